#!/usr/bin/env python3
"""ejk's Vulkan decode (paged_attention, and flash_attention's decode that
runs the same kernel) against PyTorch on the GPU machine, in one process.

Two steps, because the GPU machine has no MLIR (docs/ops/paged-vulkan.md):

  here:   python3 bench/vulkan/paged.py prepare DIR [FINGERPRINT]
          compiles every variant with `ejkc --target vulkan --fingerprint
          FINGERPRINT` (default bench/vulkan/h100.fingerprint) into
          DIR/art/<name>/, copies the runtime to DIR/lib/ and this script to
          DIR/.
  there:  python3 DIR/paged.py run DIR
          loads each artifact through the runtime's C API (ctypes), fills
          its inputs (pages dealt from a shuffled pool; the checks also have
          empty and one-token sequences), checks output and lse against an
          f32 PyTorch reference, times it with the runtime's GPU timestamps
          after a warm-up of a second, and times in the same process:
          PyTorch SDPA (cuDNN, FlashAttention-2 and efficient backends) on
          the gathered (dense) KV, the gather itself, and a device copy;
          writes DIR/paged.json (and $OUT/paged.json when OUT is set).

The bench shape is WORKLOADS.md's gdecode: B32, 32 query heads over 8 KV
heads, 4096 cached tokens, head dim 128, fp16, pages of 16 tokens. GB/s
count the compulsory K/V traffic (B x Hkv x L x D x 2 x 2 bytes); the copy
rate counts bytes read and written, as bench/harness/gpu_peers.py does.
"""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ejk_runtime  # noqa: E402  (beside this script here and there)
B, H, HKV, D, CTX, PAGE = 32, 32, 8, 128, 4096, 16


# name: (B, H, Hkv, D, ctx, page, dtype, layout, config or None, dense)
def variants():
    g = (B, H, HKV, D, CTX, PAGE, "f16")
    v = {
        "gdecode_dense": g + ("dense", None, True),
        # The attention kernel's own path (before the decode kernel): one
        # query padded to a 64-row cooperative tile per (head, sequence).
        "gdecode_dense_tile": g + ("dense", "block_q = 64, block_k = 16, "
                                   "num_subgroups = 4", True),
        "gdecode_paged": g + ("head_major", None, False),
        "gdecode_paged_token_major": g + ("token_major", None, False),
        "gdecode_paged_bf16": (B, H, HKV, D, CTX, PAGE, "bf16", "head_major",
                               None, False),
        "b8_paged": (8, H, HKV, D, CTX, PAGE, "f16", "head_major", None,
                     False),
        "b1_paged": (1, H, HKV, D, CTX, PAGE, "f16", "head_major", None,
                     False),
        # Configs around the heuristic (8 subgroups, 2 tokens a team).
        "gdecode_paged_w4": g + ("head_major",
                                 "block_k = 16, num_subgroups = 4", False),
        "gdecode_paged_w8_s2": g + ("head_major",
                                    "block_k = 32, num_subgroups = 8, "
                                    "num_splits = 2", False),
        "gdecode_paged_w8_s4": g + ("head_major",
                                    "block_k = 32, num_subgroups = 8, "
                                    "num_splits = 4", False),
        # Correctness: ragged lengths (0, 1, ...), odd shapes.
        "chk_small": (3, 28, 4, 64, 208, 16, "f16", "token_major", None,
                      False),
        "chk_page1_bf16": (2, 8, 1, 128, 100, 1, "bf16", "head_major",
                           "block_k = 8, num_subgroups = 2, num_splits = 3",
                           False),
        "chk_dense_gqa": (3, 12, 4, 64, 77, 77, "f16", "dense", None, True),
    }
    return v


def t(*s, e):
    return "tensor<" + "x".join(map(str, s)) + "x" + e + ">"


def ir(b, h, hkv, d, ctx, page, dt, layout, cfg, dense):
    if dense:
        q, k = t(b, 1, h, d, e=dt), t(b, ctx, hkv, d, e=dt)
        a = f" {{config = #ejk.config<{cfg}>}}" if cfg else ""
        return (f"func.func @main(%q: {q}, %k: {k}, %v: {k}) -> {q} {{\n"
                f"  %o = ejk.flash_attention %q, %k, %v{a} : {q}, {k}, {k} -> {q}\n"
                f"  return %o : {q}\n}}\n")
    pages = b * (ctx // page)
    c = (t(pages, page, hkv, d, e=dt) if layout == "token_major"
         else t(pages, hkv, page, d, e=dt))
    q, lse = t(b, h, d, e=dt), t(b, h, e="f32")
    attrs = ['kv_layout = "token_major"'] if layout == "token_major" else []
    if cfg:
        attrs.append(f"config = #ejk.config<{cfg}>")
    a = (" {" + ", ".join(attrs) + "}") if attrs else ""
    lens, tables = t(b, e="i32"), t(b, ctx // page, e="i32")
    return (f"func.func @main(%q: {q}, %kc: {c}, %vc: {c}, %l: {lens}, "
            f"%tb: {tables}) -> ({q}, {lse}) {{\n"
            f"  %o, %lse = ejk.paged_attention %q, %kc, %vc, %l, %tb{a}\n"
            f"      : {q}, {c}, {c}, {lens}, {tables} -> {q}, {lse}\n"
            f"  return %o, %lse : {q}, {lse}\n}}\n")


def prepare(out, fingerprint):
    ejk_runtime.prepare(out, fingerprint, variants(), ir, __file__)


# --- run (on the GPU machine) -------------------------------------------------

def run(d):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    log = lambda *a: print(*a, flush=True)
    gpu = torch.device("cuda")
    rt = ejk_runtime.Runtime(d)
    device_lines = rt.device_lines()
    log(device_lines)
    clocks, warm = ejk_runtime.clocks, ejk_runtime.warm

    def cuda_us(fn, reps=20):
        return ejk_runtime.cuda_median_ms(fn, reps) * 1e3

    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}
    results = {"device": device_lines, "torch": torch.__version__}

    # The device's copy rate, read + written (bench/harness/gpu_peers.py).
    results["copy_gbps"] = ejk_runtime.copy_gbps()
    results["copy_clocks"] = clocks()
    log("copy", results["copy_gbps"], results["copy_clocks"])

    cases = json.load(open(os.path.join(d, "cases.json")))
    peers_done = set()
    for name, (b, h, hkv, dim, ctx, page, dt, layout, cfg, dense) in cases.items():
        try:
            torch.manual_seed(0)
            group = h // hkv
            pps = ctx // page
            pages = b * pps
            q = torch.randn(b, h, dim).to(tdt[dt])
            kd = torch.randn(b, ctx, hkv, dim).to(tdt[dt])
            vd = torch.randn(b, ctx, hkv, dim).to(tdt[dt])
            if name.startswith("chk") and not dense:
                lens = torch.randint(0, ctx + 1, (b,), dtype=torch.int32)
                lens[0] = 0
                if b > 2:
                    lens[1] = 1
            else:
                lens = torch.full((b,), ctx, dtype=torch.int32)
            tables = torch.randperm(pages, dtype=torch.int32).reshape(b, pps)
            kc = torch.zeros(pages, page, hkv, dim, dtype=tdt[dt])
            vc = torch.zeros(pages, page, hkv, dim, dtype=tdt[dt])
            kc[tables.long()] = kd.reshape(b, pps, page, hkv, dim)
            vc[tables.long()] = vd.reshape(b, pps, page, hkv, dim)
            if layout == "head_major":
                kc, vc = (kc.permute(0, 2, 1, 3).contiguous(),
                          vc.permute(0, 2, 1, 3).contiguous())
            mod = rt.load(os.path.join(d, "art", name))
            if dense:
                ins = [rt.upload(q.reshape(b, 1, h, dim)), rt.upload(kd), rt.upload(vd)]
                outs = [rt.empty(b * h * dim * q.element_size())]
            else:
                ins = [rt.upload(x) for x in (q, kc, vc, lens, tables)]
                outs = [rt.empty(b * h * dim * q.element_size()), rt.empty(b * h * 4)]
            mod.bind(ins, outs)
            invoke = mod.invoke
            invoke()
            got = rt.download(outs[0], (b, h, dim), tdt[dt]).float().to(gpu)
            # Reference: f32 on the GPU.
            qf = q.float().to(gpu) * dim ** -0.5
            kf = kd.float().to(gpu).repeat_interleave(group, dim=2)
            vf = vd.float().to(gpu).repeat_interleave(group, dim=2)
            s = torch.einsum("bhd,bthd->bht", qf, kf)
            mask = torch.arange(ctx, device=gpu)[None, :] < lens.to(gpu)[:, None].long()
            s = s.masked_fill(~mask[:, None, :], float("-inf"))
            lse_ref = torch.logsumexp(s, dim=-1)
            p = torch.exp(s - lse_ref[..., None]).nan_to_num(0.0)
            ref = torch.einsum("bht,bthd->bhd", p, vf)
            entry = {"max_abs_err": float((got - ref).abs().max()),
                     "nan": bool(torch.isnan(got).any()), "config": cfg}
            if not dense:
                lse = rt.download(outs[1], (b, h), torch.float32).to(gpu)
                finite = torch.isfinite(lse_ref)
                entry["lse_err"] = float((lse - lse_ref)[finite].abs().max()) if finite.any() else 0.0
                entry["lse_empty_ok"] = bool(((lse == float("-inf")) == ~finite).all())
            if not name.startswith("chk"):
                med = mod.time_us(entry)
                kv = b * hkv * ctx * dim * 2 * q.element_size()
                entry.update(gbps=kv / (med * 1e-6) / 1e9)
                entry["pct_of_copy"] = 100 * entry["gbps"] / results["copy_gbps"]
                # PyTorch on the same problem, once per shape and dtype.
                key = (b, h, hkv, dim, ctx, dt)
                if key not in peers_done:
                    peers_done.add(key)
                    qg = q.to(gpu).reshape(b, h, 1, dim)
                    kg = kd.to(gpu).transpose(1, 2).contiguous()
                    vg = vd.to(gpu).transpose(1, 2).contiguous()
                    peers = {}
                    for label, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                                           ("flash2", SDPBackend.FLASH_ATTENTION),
                                           ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
                        try:
                            with sdpa_kernel(backend):
                                f = lambda: F.scaled_dot_product_attention(
                                    qg, kg, vg, enable_gqa=True)
                                f()
                                peers[label + "_us"] = cuda_us(f)
                        except Exception as ex:
                            peers[label + "_error"] = repr(ex)[:120]
                    # The gather a paged cache needs before a dense kernel.
                    kcg, tg = kc.to(gpu), tables.to(gpu).long()
                    peers["gather_k_us"] = cuda_us(lambda: kcg[tg])
                    peers["clocks"] = clocks()
                    entry["torch"] = peers
                    del qg, kg, vg, kcg
            ejk_runtime.record(results, name, entry, log, rt, mod)
        except Exception as ex:
            ejk_runtime.record_error(results, name, ex, log)
    ejk_runtime.save_results(d, "paged", results)


if __name__ == "__main__":
    ejk_runtime.main(sys.argv, __doc__, prepare, run)
