#!/usr/bin/env python3
"""ejk's Vulkan MLA decode (ejk.paged_mla) against PyTorch on the GPU
machine, in one process (docs/ops/latent.md, "Speed").

  here:   python3 bench/vulkan/mla.py prepare DIR [FINGERPRINT]
          compiles every variant with `ejkc --target vulkan --fingerprint`
          (default bench/vulkan/h100.fingerprint) into DIR/art/<name>/ and
          copies the runtime and these scripts to DIR.
  there:  python3 DIR/mla.py run DIR
          fills each artifact's inputs (one new token per sequence, the
          latent cache in shuffled pages), checks the output against an f32
          PyTorch reference, times it with the runtime's GPU timestamps after
          a second of warm-up and, in the same process: PyTorch on the same
          math over the gathered (dense) cache (two bf16 batched matmuls
          around an f32 softmax, cuBLAS), the gather itself, and a device
          copy; writes DIR/mla.json (and $OUT/mla.json when OUT is set).

mla-deepseek-v3 is issue 19's shape: DeepSeek-V3 decode, batch 32, 128
heads, latent 512, RoPE 64, 4096 cached tokens per sequence in pages of 64,
bf16, softmax scale 1/sqrt(192). GB/s counts every sequence's cache once
(B x 4096 x 576 x 2 bytes = 151 MB); TFLOP/s counts 2 x H x (576 + 512)
per (query, token). At 128 heads the decode does about 240 FLOPs per cache
byte: on an H100 (about 3 TB/s, about 990 dense bf16 TFLOP/s with tensor
cores) it is compute-bound, so the copy rate is a ceiling no kernel reaches;
both are reported. The 16-head variant is bandwidth-bound.
"""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ejk_runtime  # noqa: E402

LAT, ROPE, SCALE = 512, 64, 1.0 / 192 ** 0.5


PORTABLE = "block_k = 16, block_h = 16, head_lanes = 16, num_splits = 2"
# The register-softmax cooperative kernel (cooperative = 2, RegisterKernel.cpp;
# the heuristic's choice on NVIDIA) and the cooperative = 1 kernel before it.
REG = "block_k = 32, block_h = 32, cooperative = 2"
COOP1 = "block_k = 32, block_h = 32, cooperative = 1"
# The register softmax with P V one step late on two stages of 16 rows
# (cooperative = 3, RegisterKernel.cpp).
PIPE = "block_k = 16, block_h = 32, cooperative = 3"


# name: (batch, heads, context, page (0: ejk.mla's dense caches), dtype,
#        config or None, query tokens per sequence)
def variants():
    return {
        # f16 runs a cooperative-matrix kernel (heuristic: cooperative = 2
        # on NVIDIA, 1 elsewhere); bf16 too on a device with bf16
        # cooperative matrices (VK_KHR_shader_bfloat16), the portable
        # kernel elsewhere.
        "mla-deepseek-v3": (32, 128, 4096, 64, "bf16", None, 1),
        "mla-deepseek-v3-coop1": (32, 128, 4096, 64, "bf16", COOP1, 1),
        "mla-deepseek-v3-reg-s2": (32, 128, 4096, 64, "bf16", REG + ", num_splits = 2", 1),
        "mla-deepseek-v3-reg-h16": (32, 128, 4096, 64, "bf16",
                                    "block_k = 32, block_h = 16, cooperative = 2", 1),
        "mla-deepseek-v3-reg-k16": (32, 128, 4096, 64, "bf16",
                                    "block_k = 16, block_h = 32, cooperative = 2", 1),
        "mla-deepseek-v3-f16": (32, 128, 4096, 64, "f16", None, 1),
        "mla-deepseek-v3-f16-coop1": (32, 128, 4096, 64, "f16", COOP1, 1),
        "mla-dense-f16": (32, 128, 4096, 0, "f16", None, 1),
        "mla-dense-f16-coop1": (32, 128, 4096, 0, "f16", COOP1, 1),
        "mla-16h-f16": (32, 16, 4096, 64, "f16", None, 1),
        "mla-16h-f16-coop1": (32, 16, 4096, 64, "f16",
                              "block_k = 32, block_h = 16, cooperative = 1, num_splits = 4", 1),
        "mla-b4-f16": (4, 128, 4096, 64, "f16", None, 1),
        "mla-b4-f16-coop1": (4, 128, 4096, 64, "f16", COOP1 + ", num_splits = 8", 1),
        "mla-deepseek-v3-reg-h16-s2": (32, 128, 4096, 64, "bf16",
                                       "block_k = 32, block_h = 16, cooperative = 2, num_splits = 2", 1),
        "mla-deepseek-v3-pipe": (32, 128, 4096, 64, "bf16", PIPE, 1),
        "mla-deepseek-v3-f16-pipe": (32, 128, 4096, 64, "f16", PIPE, 1),
        "mla-dense-f16-pipe": (32, 128, 4096, 0, "f16", PIPE, 1),
        "mla-b4-f16-pipe": (4, 128, 4096, 64, "f16", PIPE + ", num_splits = 8", 1),
        # Correctness only: ragged lengths (0, 1, a partial page; the slots
        # past each length hold NaN), splits, several query tokens a
        # sequence (causal), dense caches.
        "chk-ragged": (5, 16, 300, 64, "bf16", PORTABLE, 1),
        "chk-coop-bf16-ragged": (5, 16, 300, 64, "bf16",
                                 "block_k = 32, block_h = 16, cooperative = 1, num_splits = 2", 1),
        "chk-coop-bf16-128h-splits": (3, 128, 1000, 16, "bf16",
                                      "block_k = 32, block_h = 32, cooperative = 1, num_splits = 5", 1),
        "chk-coop-bf16-causal": (3, 32, 200, 16, "bf16", COOP1, 3),
        "chk-coop-bf16-dense": (3, 48, 208, 0, "bf16",
                                "block_k = 32, block_h = 16, cooperative = 1, num_splits = 3", 1),
        "chk-coop-ragged": (5, 16, 300, 64, "f16",
                            "block_k = 32, block_h = 16, cooperative = 1, num_splits = 2", 1),
        "chk-coop-128h-splits": (3, 128, 1000, 16, "f16",
                                 "block_k = 32, block_h = 32, cooperative = 1, num_splits = 5", 1),
        "chk-coop-causal": (3, 32, 200, 16, "f16", COOP1, 3),
        "chk-coop-dense": (3, 48, 208, 0, "f16",
                           "block_k = 32, block_h = 16, cooperative = 1, num_splits = 3", 1),
    } | {
        # The same checks on the register-softmax kernel, f16 and bf16 (the
        # heuristic's configs where no num_splits is forced).
        f"chk-reg{'-bf16' if dt == 'bf16' else ''}-{name}": spec[:4] + (dt,) + spec[4:]
        for dt in ("f16", "bf16")
        for name, spec in {
            "ragged": (5, 16, 300, 64, "block_k = 32, block_h = 16, cooperative = 2, num_splits = 2", 1),
            "128h-splits": (3, 128, 1000, 16, REG + ", num_splits = 5", 1),
            "causal": (3, 32, 200, 16, REG, 3),
            "dense": (3, 48, 208, 0, "block_k = 32, block_h = 16, cooperative = 2, num_splits = 3", 1),
            "k16": (5, 32, 300, 16, "block_k = 16, block_h = 32, cooperative = 2, num_splits = 3", 1),
            "h16-q2": (4, 16, 130, 16, "block_k = 32, block_h = 16, cooperative = 2", 2),
        }.items()
    } | {
        # The pipelined kernel (cooperative = 3): ragged lengths (0, 1) and
        # empty splits, 128 heads with 5 splits, causal rows, dense caches
        # (64 heads), two query tokens on pages of 16 with an odd length.
        f"chk-pipe{'-bf16' if dt == 'bf16' else ''}-{name}": spec[:4] + (dt,) + spec[4:]
        for dt in ("f16", "bf16")
        for name, spec in {
            "ragged": (5, 32, 300, 64, PIPE + ", num_splits = 2", 1),
            "128h-splits": (3, 128, 1000, 16, PIPE + ", num_splits = 5", 1),
            "causal": (3, 32, 200, 16, PIPE, 3),
            "dense": (3, 64, 208, 0, PIPE + ", num_splits = 3", 1),
            "q2": (4, 32, 130, 16, PIPE, 2),
        }.items()
    }


def t(*s, e):
    return "tensor<" + "x".join(map(str, s)) + "x" + e + ">"


def ir(b, h, ctx, page, dt, cfg, qlen):
    attrs = [f"softmax_scale = {SCALE!r} : f32"]
    if cfg:
        attrs.append(f"config = #ejk.config<{cfg}>")
    if not page:
        ql, qr = t(b, 1, h, LAT, e=dt), t(b, 1, h, ROPE, e=dt)
        c, kr = t(b, ctx, LAT, e=dt), t(b, ctx, ROPE, e=dt)
        return (f"func.func @main(%ql: {ql}, %qr: {qr}, %c: {c}, %kr: {kr}) -> {ql} {{\n"
                f"  %o = ejk.mla %ql, %qr, %c, %kr {{{', '.join(attrs)}}}\n"
                f"      : {ql}, {qr}, {c}, {kr} -> {ql}\n"
                f"  return %o : {ql}\n}}\n")
    per = -(-ctx // page)
    ql, qr = t(b * qlen, h, LAT, e=dt), t(b * qlen, h, ROPE, e=dt)
    c = t(b * per, page, LAT + ROPE, e=dt)
    lens, tables, starts = t(b, e="i32"), t(b, per, e="i32"), t(b + 1, e="i32")
    return (f"func.func @main(%ql: {ql}, %qr: {qr}, %c: {c}, %lens: {lens}, "
            f"%tables: {tables}, %starts: {starts}) -> {ql} {{\n"
            f"  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts "
            f"{{{', '.join(attrs)}}}\n"
            f"      : {ql}, {qr}, {c}, {lens}, {tables}, {starts} -> {ql}\n"
            f"  return %o : {ql}\n}}\n")


def prepare(out, fingerprint):
    ejk_runtime.prepare(out, fingerprint, variants(), ir, __file__)


# --- run (on the GPU machine) -------------------------------------------------

def run(d):
    import torch

    log = lambda *a: print(*a, flush=True)
    gpu = torch.device("cuda")
    rt = ejk_runtime.Runtime(d)
    results = {"device": rt.device_lines(), "torch": torch.__version__}
    log(results["device"])
    clocks, warm = ejk_runtime.clocks, ejk_runtime.warm
    cuda_us = lambda fn: ejk_runtime.cuda_median_ms(fn) * 1e3
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16}

    results["copy_gbps"] = ejk_runtime.copy_gbps()
    log("copy", results["copy_gbps"], clocks())

    # MLA_ONLY (a regular expression) picks cases; the timings run before
    # the checks unless MLA_CHECKS_FIRST is set; MLA_PEER=0 leaves PyTorch
    # out; results go to DIR/$MLA_NAME.json (default mla) after every case.
    cases = ejk_runtime.ordered_cases(d, "MLA_ONLY")
    if not os.environ.get("MLA_CHECKS_FIRST"):
        cases.sort(key=lambda kv: kv[0].startswith("chk"))
    peers = os.environ.get("MLA_PEER", "1") != "0"
    out_name = os.environ.get("MLA_NAME", "mla")
    for name, (b, h, ctx, page, dt, cfg, qlen) in cases:
        try:
            torch.manual_seed(0)
            per = -(-ctx // page) if page else 1
            pages = b * per
            width = LAT + ROPE
            q = torch.randn(b, qlen, h, width).to(tdt[dt])
            dense = torch.randn(b, per * page if page else ctx, width).to(tdt[dt])
            if name.startswith("chk") and page:
                lens = torch.randint(qlen, ctx + 1, (b,), dtype=torch.int32)
                lens[0], lens[1] = (0, 1) if qlen == 1 else (qlen, qlen + 1)
            else:
                lens = torch.full((b,), ctx, dtype=torch.int32)
            mod = rt.load(os.path.join(d, "art", name))
            if page:
                tables = torch.randperm(pages, dtype=torch.int32).reshape(b, per)
                cache = torch.zeros(pages, page, width, dtype=tdt[dt])
                cache[tables.long()] = dense.reshape(b, per, page, width)
                starts = torch.arange(0, b * qlen + 1, qlen, dtype=torch.int32)
                qp = q.reshape(b * qlen, h, width)
                uploaded = cache
                if name.startswith("chk"):
                    # Slots past each length may hold anything (0 x NaN is
                    # NaN): NaN there, the reference reads the clean cache.
                    poisoned = dense.reshape(b, per * page, width).clone()
                    for i in range(b):
                        poisoned[i, int(lens[i]):] = float("nan")
                    uploaded = torch.zeros_like(cache)
                    uploaded[tables.long()] = poisoned.reshape(b, per, page, width)
                ins = [rt.upload(x) for x in (qp[..., :LAT].contiguous(),
                                               qp[..., LAT:].contiguous(), uploaded,
                                               lens, tables, starts)]
            else:
                ins = [rt.upload(x) for x in (q[..., :LAT].contiguous(),
                                               q[..., LAT:].contiguous(),
                                               dense[..., :LAT].contiguous(),
                                               dense[..., LAT:].contiguous())]
            outs = [rt.empty(b * qlen * h * LAT * q.element_size())]
            mod.bind(ins, outs)
            mod.invoke()
            got = rt.download(outs[0], (b, qlen, h, LAT), tdt[dt]).float().to(gpu)

            # f32 reference; query token i of a sequence of length L sits at
            # position L - qlen + i and sees the tokens up to it.
            qf, kf = q.float().to(gpu), dense.float().to(gpu)
            s = torch.einsum("bihc,btc->biht", qf, kf) * SCALE
            pos = lens.to(gpu)[:, None].long() - qlen + torch.arange(qlen, device=gpu)[None, :]
            tok = torch.arange(kf.shape[1], device=gpu)
            valid = tok[None, None, :] <= pos[:, :, None]
            s = s.masked_fill(~valid[:, :, None, :], float("-inf"))
            p = torch.softmax(s, dim=-1).nan_to_num(0.0)
            ref = torch.einsum("biht,btc->bihc", p, kf[..., :LAT])
            entry = {"max_abs_err": float((got - ref).abs().max()),
                     "ref_max": float(ref.abs().max()),
                     "nan": bool(torch.isnan(got).any()), "config": cfg}
            del qf, kf, s, p, ref, got
            if name.startswith("chk"):
                entry["ok"] = bool(not entry["nan"] and entry["max_abs_err"]
                                   <= (8e-3 if dt == "bf16" else 2e-3) * max(1.0, entry["ref_max"]))
            else:
                med = mod.time_us(entry)
                nbytes = b * ctx * width * q.element_size()
                flops = 2.0 * b * h * ctx * (width + LAT)
                entry.update(gbps=nbytes / (med * 1e-6) / 1e9,
                             tflops=flops / (med * 1e-6) / 1e12)
                entry["pct_of_copy"] = 100 * entry["gbps"] / results["copy_gbps"]
                # PyTorch: the same math on the gathered cache (cuBLAS).
                qg = q.to(gpu).reshape(b, h, width)
                kg = dense.to(gpu)[:, :ctx]
                vg = kg[..., :LAT]

                def torch_mla():
                    sc = torch.bmm(qg, kg.transpose(1, 2)).float() * SCALE
                    return torch.bmm(torch.softmax(sc, -1).to(qg.dtype), vg)
                if not peers:
                    del qg, kg, vg
                    ejk_runtime.record(results, name, entry, log, rt, mod)
                    ejk_runtime.save_results(d, out_name, results)
                    continue
                peer_err = float((torch_mla().float()
                                  - rt.download(outs[0], (b, h, LAT), tdt[dt]).float().to(gpu)).abs().max())
                peer_us = cuda_us(torch_mla)
                entry["torch"] = {"matmul_softmax_us": peer_us,
                                  "tflops": flops / (peer_us * 1e-6) / 1e12,
                                  "max_abs_diff_vs_ejk": peer_err,
                                  "clocks": clocks()}
                if page:
                    cg, tg = cache.to(gpu), tables.to(gpu).long()
                    entry["torch"]["gather_us"] = cuda_us(lambda: cg[tg])
                    del cg
                del qg, kg, vg
            ejk_runtime.record(results, name, entry, log, rt, mod)
        except Exception as ex:
            ejk_runtime.record_error(results, name, ex, log)
        ejk_runtime.save_results(d, out_name, results)
    ejk_runtime.save_results(d, out_name, results)


if __name__ == "__main__":
    ejk_runtime.main(sys.argv, __doc__, prepare, run)
