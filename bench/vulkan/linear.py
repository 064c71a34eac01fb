#!/usr/bin/env python3
"""ejk's Vulkan gla against flash-linear-attention's Triton kernels on the
GPU machine, in one process (issue 18's GPU bar; docs/ops/linear.md).

  here:   python3 bench/vulkan/linear.py prepare DIR [FINGERPRINT]
          compiles the variants with ejkc for FINGERPRINT (default
          bench/vulkan/h100.fingerprint) into DIR/art/<name>/, copies the
          runtime to DIR/lib/ and this script to DIR/.
  there:  python3 DIR/linear.py run DIR
          (with flash-linear-attention 0.6.0, fla-core 0.6.0 and einops on
          PYTHONPATH, carried as wheels: the device tool's README) fills the
          inputs (q, k, v ~ N(0, 1), g = logsigmoid(N(0, 1)) / 16, g_gamma =
          log(1 - 2^(-5 - h/2)) per head), checks a small case against an
          f32 recurrence in PyTorch and each bench case against fla's output,
          times ejk with the runtime's GPU timestamps and fla's chunk_gla /
          chunk_simple_gla with CUDA events (a second of warm-up each), and
          writes DIR/linear.json (and $OUT/linear.json).
"""
import json, math, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ejk_runtime  # noqa: E402  (beside this script here and there)


# name: (B, T, H, K, V, dtype, gated: "g" or "gamma"[, config])
# Without a config ejkc's heuristic picks (chunk-parallel from 256 steps);
# the "_recurrent" variants pin the step-by-step kernel for comparison.
RECURRENT = "block_v = 8, chunk_size = 16"
CHUNK_PARALLEL = "block_v = 48, chunk_size = 32, chunk_parallel = 1"


def variants():
    return {
        "ggla_bf16": (4, 4096, 16, 128, 128, "bf16", "g"),
        "ggla_f16": (4, 4096, 16, 128, 128, "f16", "g"),
        "ggla_bf16_recurrent": (4, 4096, 16, 128, 128, "bf16", "g", RECURRENT),
        # Chunk-parallel configs around the heuristic's (C 64, block_v 128).
        "ggla_bf16_c32_v128": (4, 4096, 16, 128, 128, "bf16", "g",
                               "block_v = 128, chunk_size = 32, chunk_parallel = 1"),
        "ggla_bf16_c64_v64": (4, 4096, 16, 128, 128, "bf16", "g",
                              "block_v = 64, chunk_size = 64, chunk_parallel = 1"),
        "ggla_bf16_c32_v64": (4, 4096, 16, 128, 128, "bf16", "g",
                              "block_v = 64, chunk_size = 32, chunk_parallel = 1"),
        "gsimple_bf16": (16, 16384, 8, 128, 128, "bf16", "gamma"),
        "chk_gla": (2, 100, 3, 32, 48, "f16", "g"),
        "chk_gla_chunk_parallel": (2, 100, 3, 32, 48, "f16", "g",
                                   CHUNK_PARALLEL),
        "chk_gla_long": (1, 700, 2, 64, 64, "f16", "g"),
    }


def t(*s, e):
    return "tensor<" + "x".join(map(str, s)) + "x" + e + ">"


def ir(b, tt, h, k, v, dt, gated, config=None):
    q, vv = t(b, tt, h, k, e=dt), t(b, tt, h, v, e=dt)
    args = [f"%q: {q}", f"%k: {q}", f"%v: {vv}"]
    clause = ""
    if gated == "g":
        args.append(f"%g: {q}")
        clause = f" g(%g : {q})"
    else:
        args.append(f"%gg: {t(h, e='f32')}")
        clause = f" g_gamma(%gg : {t(h, e='f32')})"
    attrs = f" {{config = #ejk.config<{config}>}}" if config else ""
    return (f"func.func @main({', '.join(args)}) -> {vv} {{\n"
            f"  %o = ejk.gla %q, %k, %v{clause}{attrs} : {q}, {q}, {vv} -> {vv}\n"
            f"  return %o : {vv}\n}}\n")


def prepare(out, fingerprint):
    ejk_runtime.prepare(out, fingerprint, variants(), ir, __file__)


def run(d):
    import torch
    import torch.nn.functional as F

    log = lambda *a: print(*a, flush=True)
    gpu = torch.device("cuda")
    rt = ejk_runtime.Runtime(d)
    clocks, warm = ejk_runtime.clocks, ejk_runtime.warm

    cuda_ms = ejk_runtime.cuda_median_ms

    try:
        from fla.ops.gla import chunk_gla
        from fla.ops.simple_gla import chunk_simple_gla
        fla_error = None
    except Exception as ex:
        chunk_gla = chunk_simple_gla = None
        fla_error = repr(ex)[:300]
    tdt = {"f16": torch.float16, "bf16": torch.bfloat16}
    results = {"torch": torch.__version__, "fla_import_error": fla_error}
    cases = json.load(open(os.path.join(d, "cases.json")))
    for name, (b, tt, h, k, v, dt, gated, *_) in cases.items():
        try:
            torch.manual_seed(0)
            q = torch.randn(b, tt, h, k, device=gpu).to(tdt[dt])
            kk = torch.randn(b, tt, h, k, device=gpu).to(tdt[dt])
            vv = torch.randn(b, tt, h, v, device=gpu).to(tdt[dt])
            g = (F.logsigmoid(torch.randn(b, tt, h, k, device=gpu)) / 16).to(tdt[dt])
            gamma = torch.tensor([math.log(1 - 2 ** (-5 - i / 2)) for i in range(h)],
                                 dtype=torch.float32, device=gpu)
            mod = rt.load(os.path.join(d, "art", name))
            ins = [rt.upload(x) for x in (q, kk, vv, g if gated == "g" else gamma)]
            outs = [rt.empty(b * tt * h * v * q.element_size())]
            mod.bind(ins, outs)
            invoke = mod.invoke
            invoke()
            got = rt.download(outs[0], (b, tt, h, v), tdt[dt]).float().to(gpu)
            entry = {"nan": bool(torch.isnan(got).any())}
            scale = k ** -0.5
            if name.startswith("chk"):
                # The recurrence in f32.
                s = torch.zeros(b, h, k, v, device=gpu)
                ref = torch.empty(b, tt, h, v, device=gpu)
                for i in range(tt):
                    decay = torch.exp(g[:, i].float()) if gated == "g" else torch.exp(gamma)[None, :, None]
                    s = s * decay[..., None] + kk[:, i].float()[..., None] * vv[:, i].float()[:, :, None, :]
                    ref[:, i] = scale * torch.einsum("bhk,bhkv->bhv", q[:, i].float(), s)
                entry["max_abs_err_vs_recurrence"] = float((got - ref).abs().max())
            else:
                warm(invoke)
                entry["clocks_before"] = clocks()
                ts = []
                for _ in range(10):
                    invoke()
                    ts.append(mod.last_time_us() / 1e3)
                ts.sort()
                entry["ejk_median_ms"] = ts[5]
                entry["clocks_after"] = clocks()
                if chunk_gla is not None:
                    if gated == "g":
                        f = lambda: chunk_gla(q, kk, vv, g, scale=scale)[0]
                    else:
                        f = lambda: chunk_simple_gla(q, kk, vv, g_gamma=gamma, scale=scale)[0]
                    ref = f().float()
                    entry["max_abs_err_vs_fla"] = float((got - ref).abs().max())
                    entry["max_abs_fla"] = float(ref.abs().max())
                    entry["fla_median_ms"] = cuda_ms(f)
                    entry["ejk_over_fla"] = entry["ejk_median_ms"] / entry["fla_median_ms"]
            results[name] = entry
            log(name, json.dumps(entry))
            rt.release()
            mod.destroy()
        except Exception as ex:
            results[name] = {"error": repr(ex)[:400]}
            log(name, "ERROR", repr(ex)[:400])
    ejk_runtime.save_results(d, "linear", results)


if __name__ == "__main__":
    ejk_runtime.main(sys.argv, __doc__, prepare, run)
