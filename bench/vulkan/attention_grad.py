#!/usr/bin/env python3
"""ejk's Vulkan attention backward (ejk.flash_attention_grad) against
PyTorch's FlashAttention-2 backward on the GPU machine, in one process.

Two steps, because the GPU machine has no MLIR (as paged.py):

  here:   [ONLY=prefix] python3 bench/vulkan/attention_grad.py prepare DIR [FINGERPRINT]
          compiles every variant with `ejkc --target vulkan --fingerprint
          FINGERPRINT` (default bench/vulkan/h100.fingerprint) into
          DIR/art/<name>/, copies the runtime, ejk_runtime.py and this script.
  there:  python3 DIR/attention_grad.py run DIR
          makes q, k, v, dO (fp16, seed 0), the forward's O and lse in f32
          on the GPU, runs the artifact through the runtime's C API, checks
          dq, dk, dv against PyTorch's f32 autograd gradients of the same
          (fp16-rounded) inputs, times it with the runtime's GPU timestamps
          after a fixed warm-up, and times in the same process the backward
          of F.scaled_dot_product_attention on the FlashAttention-2 and cuDNN
          backends; writes DIR/attention_grad.json (and $OUT/...).

The workload is WORKLOADS.md's gfa-d128 as a backward (gfa-d128-bwd): B4
S2048 H16 D128 fp16, causal and not; TFLOP/s by FlashAttention's convention
(backward = 2.5 x the forward's 4 B H S^2 D, halved when causal).
"""
import json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ejk_runtime  # noqa: E402  (beside this script here and there)


# name: (B, S, H, Hkv, D, dtype, causal, config or None[, lengths]).
# `lengths`: "padding" (a [B, S] padding_mask, about a quarter of the
# tokens padded, seed 1) or per-batch sequence lengths (cum_seqlens_q and
# cum_seqlens_k both, ejKernel's padded layout).
def variants():
    only = os.environ.get("ONLY")  # a name prefix, e.g. ONLY=chk
    return {n: v for n, v in all_variants().items()
            if not only or n.startswith(only)}


def all_variants():
    return {
        "gfa_d128_bwd": (4, 2048, 16, 16, 128, "f16", False, None),
        "gfa_d128_bwd_causal": (4, 2048, 16, 16, 128, "f16", True, None),
        # bf16 runs the portable f32 path (no cooperative backward for it).
        "gfa_d128_bwd_bf16": (4, 2048, 16, 16, 128, "bf16", False, None),
        # Block sizes around the heuristic's 64/64/64/64.
        "gfa_d128_bwd_k32": (4, 2048, 16, 16, 128, "f16", False,
                             "block_q = 64, block_k = 32, dq_block_q = 32, "
                             "dq_block_k = 64"),
        "gfa_d128_bwd_q32": (4, 2048, 16, 16, 128, "f16", False,
                             "block_q = 32, block_k = 64, dq_block_q = 64, "
                             "dq_block_k = 64"),
        "gfa_d128_bwd_dqk32": (4, 2048, 16, 16, 128, "f16", False,
                               "block_q = 64, block_k = 64, dq_block_q = 64, "
                               "dq_block_k = 32"),
        "gfa_d128_bwd_dqk16": (4, 2048, 16, 16, 128, "f16", False,
                               "block_q = 64, block_k = 64, dq_block_q = 64, "
                               "dq_block_k = 16"),
        "gfa_d128_bwd_q16": (4, 2048, 16, 16, 128, "f16", False,
                             "block_q = 16, block_k = 64, dq_block_q = 64, "
                             "dq_block_k = 32"),
        # Correctness on odd shapes: GQA, Sq not a multiple of any block.
        "chk_gqa_causal": (2, 333, 8, 2, 64, "f16", True, None),
        "chk_bf16": (1, 200, 4, 4, 128, "bf16", False, None),
        "chk_d128_causal_odd": (1, 300, 4, 4, 128, "f16", True, None),
        "chk_gqa_6_2_short": (2, 50, 6, 2, 64, "f16", False, None),
        # Padding masks and variable lengths (issue 16): padded rows and rows
        # past a length get dq = 0, such keys dk = dv = 0.
        "chk_padding_gqa_causal": (2, 300, 8, 2, 64, "f16", True, None,
                                   "padding"),
        "chk_padding_d128": (2, 200, 4, 4, 128, "f16", False, None, "padding"),
        "chk_varlen_causal": (4, 300, 8, 2, 64, "f16", True, None,
                              [300, 0, 1, 157]),
        "chk_varlen_d128": (3, 260, 4, 4, 128, "f16", False, None,
                            [77, 260, 13]),
    }


t = ejk_runtime.tensor_type


def ir(b, s, h, hkv, d, dt, causal, cfg, lengths=None):
    q, k = t(b, s, h, d, e=dt), t(b, s, hkv, d, e=dt)
    lse = t(b, h, s, e="f32")
    attrs = (["causal"] if causal else []) + (
        [f"config = #ejk.config<{cfg}>"] if cfg else [])
    a = (" {" + ", ".join(attrs) + "}") if attrs else ""
    extra, clauses = "", ""
    if lengths == "padding":
        extra = f", %pad: {t(b, s, e='i1')}"
        clauses = f" padding_mask(%pad : {t(b, s, e='i1')})"
    elif lengths:
        cu = t(b + 1, e="i32")
        extra = f", %cu: {cu}"
        clauses = f" cum_seqlens_q(%cu : {cu}) cum_seqlens_k(%cu : {cu})"
    return (f"func.func @main(%q: {q}, %k: {k}, %v: {k}, %o: {q}, %do: {q}, "
            f"%lse: {lse}{extra}) -> ({q}, {k}, {k}) {{\n"
            f"  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, %do, %lse{clauses}{a}\n"
            f"      : {q}, {k}, {k}, {q}, {q}, {lse} -> {q}, {k}, {k}\n"
            f"  return %dq, %dk, %dv : {q}, {k}, {k}\n}}\n")


prepare = ejk_runtime.preparer(variants, ir, __file__)


def flops(b, s, h, d, causal):
    f = 2.5 * 4 * b * h * s * s * d
    return f / 2 if causal else f


# --- run (on the GPU machine) -------------------------------------------------

def run(d):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    log = lambda *a: print(*a, flush=True)
    gpu = torch.device("cuda")
    rt = ejk_runtime.Runtime(d)
    results = {"device": rt.device_lines(), "torch": torch.__version__}
    log(results["device"])
    clocks, warm = ejk_runtime.clocks, ejk_runtime.warm
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16}

    cases = json.load(open(os.path.join(d, "cases.json")))
    for name, (b, s, h, hkv, dim, dt, causal, cfg, *extra) in cases.items():
        lengths = extra[0] if extra else None
        try:
            torch.manual_seed(0)
            g = h // hkv
            q = torch.randn(b, s, h, dim, device=gpu).to(tdt[dt])
            k = torch.randn(b, s, hkv, dim, device=gpu).to(tdt[dt])
            v = torch.randn(b, s, hkv, dim, device=gpu).to(tdt[dt])
            do = torch.randn(b, s, h, dim, device=gpu).to(tdt[dt])
            # f32 reference forward and gradients ([B, H, S, D] for SDPA).
            qf = q.float().transpose(1, 2).requires_grad_()
            kf = k.float().transpose(1, 2).requires_grad_()
            vf = v.float().transpose(1, 2).requires_grad_()
            scale = dim ** -0.5
            sc = torch.einsum("bhqd,bhkd->bhqk", qf,
                              kf.repeat_interleave(g, dim=1)) * scale
            keep = torch.ones(b, 1, s, s, dtype=torch.bool, device=gpu)
            if causal:
                keep &= torch.ones(s, s, dtype=torch.bool, device=gpu).tril()
            extra_in = []
            if lengths == "padding":
                gen = torch.Generator(device="cpu").manual_seed(1)
                tok = torch.rand(b, s, generator=gen) < 0.75
                extra_in = [tok]
                tok = tok.to(gpu)
            elif lengths:
                lens = torch.tensor(lengths)
                extra_in = [torch.cat([torch.zeros(1, dtype=torch.int64),
                                       lens.cumsum(0)]).to(torch.int32)]
                tok = (torch.arange(s)[None, :] < lens[:, None]).to(gpu)
            if lengths:
                keep &= tok[:, None, :, None] & tok[:, None, None, :]
            # Rows that see no key: output 0, lse -inf (as ejk's forward),
            # no gradient (their scores are made finite and their P zeroed).
            seen = keep.any(-1, keepdim=True)
            sc = sc.masked_fill(~keep, float("-inf")).masked_fill(~seen, 0.0)
            lse = torch.logsumexp(sc, dim=-1)
            o = torch.einsum("bhqk,bhkd->bhqd",
                             torch.exp(sc - lse[..., None]) * seen,
                             vf.repeat_interleave(g, dim=1))
            lse = lse.masked_fill(~seen[..., 0], float("-inf"))
            dq_ref, dk_ref, dv_ref = torch.autograd.grad(
                o, (qf, kf, vf), do.float().transpose(1, 2))
            o_in = o.detach().transpose(1, 2).to(tdt[dt]).contiguous()
            lse_in = lse.detach().contiguous()
            del sc, o
            mod = rt.load(os.path.join(d, "art", name))
            ins = [rt.upload(x) for x in [q, k, v, o_in, do, lse_in] + extra_in]
            outs = [rt.empty(x.numel() * x.element_size()) for x in (q, k, v)]
            mod.bind(ins, outs)
            mod.invoke()
            entry = {"config": cfg}
            for i, (label, ref, shape) in enumerate(
                    (("dq", dq_ref, q.shape), ("dk", dk_ref, k.shape),
                     ("dv", dv_ref, v.shape))):
                got = rt.download(outs[i], tuple(shape), tdt[dt]).float().to(gpu)
                r = ref.transpose(1, 2)
                entry[label + "_max_abs_err"] = float((got - r).abs().max())
                entry[label + "_ref_max"] = float(r.abs().max())
                entry[label + "_nan"] = bool(torch.isnan(got).any())
            if not name.startswith("chk") and not (
                    dt == "bf16" and os.environ.get("SKIP_BF16")):
                warm(mod.invoke, 2.0)
                entry["clocks_before"] = clocks()
                ts = []
                for _ in range(10):
                    mod.invoke()
                    ts.append(mod.last_time_us())
                ts.sort()
                entry["clocks_after"] = clocks()
                fl = flops(b, s, h, dim, causal)
                entry.update(median_ms=ts[5] / 1e3, min_ms=ts[0] / 1e3,
                             tflops=fl / (ts[5] * 1e-6) / 1e12)
                # PyTorch's backward on the same inputs.
                qg = q.transpose(1, 2).detach().requires_grad_()
                kg = k.transpose(1, 2).detach().requires_grad_()
                vg = v.transpose(1, 2).detach().requires_grad_()
                dog = do.transpose(1, 2)
                peers = {}
                for label, backend in (("flash2", SDPBackend.FLASH_ATTENTION),
                                       ("cudnn", SDPBackend.CUDNN_ATTENTION)):
                    try:
                        with sdpa_kernel(backend):
                            out = F.scaled_dot_product_attention(
                                qg, kg, vg, is_causal=causal,
                                enable_gqa=hkv != h)
                            bwd = lambda: torch.autograd.grad(
                                out, (qg, kg, vg), dog, retain_graph=True)
                            ms = ejk_runtime.cuda_median_ms(bwd, 20)
                        peers[label + "_ms"] = ms
                        peers[label + "_tflops"] = fl / (ms * 1e-3) / 1e12
                    except Exception as ex:
                        peers[label + "_error"] = repr(ex)[:160]
                peers["clocks"] = clocks()
                entry["torch"] = peers
                if "flash2_ms" in peers:
                    entry["pct_of_flash2"] = 100 * peers["flash2_ms"] / entry["median_ms"]
            results[name] = entry
            log(name, json.dumps(entry))
            rt.release()
            mod.destroy()
        except Exception as ex:
            results[name] = {"error": repr(ex)[:400]}
            log(name, "ERROR", repr(ex)[:400])
    json.dump(results, open(os.path.join(d, "attention_grad.json"), "w"), indent=1)
    out = os.environ.get("OUT")
    if out:
        json.dump(results, open(os.path.join(out, "attention_grad.json"), "w"),
                  indent=1)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else
                os.path.join(HERE, "h100.fingerprint"))
    elif len(sys.argv) >= 3 and sys.argv[1] == "run":
        run(sys.argv[2])
    else:
        sys.exit(__doc__)
