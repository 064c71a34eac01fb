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
import ctypes, json, math, os, shutil, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))


# name: (B, T, H, K, V, dtype, gated: "g" or "gamma")
def variants():
    return {
        "ggla_bf16": (4, 4096, 16, 128, 128, "bf16", "g"),
        "ggla_f16": (4, 4096, 16, 128, 128, "f16", "g"),
        "gsimple_bf16": (16, 16384, 8, 128, 128, "bf16", "gamma"),
        "chk_gla": (2, 100, 3, 32, 48, "f16", "g"),
    }


def t(*s, e):
    return "tensor<" + "x".join(map(str, s)) + "x" + e + ">"


def ir(b, tt, h, k, v, dt, gated):
    q, vv = t(b, tt, h, k, e=dt), t(b, tt, h, v, e=dt)
    args = [f"%q: {q}", f"%k: {q}", f"%v: {vv}"]
    clause = ""
    if gated == "g":
        args.append(f"%g: {q}")
        clause = f" g(%g : {q})"
    else:
        args.append(f"%gg: {t(h, e='f32')}")
        clause = f" g_gamma(%gg : {t(h, e='f32')})"
    return (f"func.func @main({', '.join(args)}) -> {vv} {{\n"
            f"  %o = ejk.gla %q, %k, %v{clause} : {q}, {q}, {vv} -> {vv}\n"
            f"  return %o : {vv}\n}}\n")


def prepare(out, fingerprint):
    root = os.path.dirname(os.path.dirname(HERE))
    ejkc = os.path.join(root, "build", "bin", "ejkc")
    os.makedirs(os.path.join(out, "art"), exist_ok=True)
    os.makedirs(os.path.join(out, "lib"), exist_ok=True)
    cases = {}
    for name, spec in variants().items():
        src = os.path.join(out, "art", name + ".mlir")
        open(src, "w").write(ir(*spec))
        r = subprocess.run([ejkc, src, "--target", "vulkan", "--fingerprint",
                            fingerprint, "--no-cache", "-o",
                            os.path.join(out, "art", name), "--name", "kernel"],
                           capture_output=True, text=True)
        print(name, "FAILED " + r.stderr.strip()[:300] if r.returncode else "ok")
        if not r.returncode:
            cases[name] = spec
    json.dump(cases, open(os.path.join(out, "cases.json"), "w"), indent=1)
    shutil.copy(os.path.join(root, "build", "lib", "Runtime", "libejk_runtime.so.1"),
                os.path.join(out, "lib", "libejk_runtime.so.1"))
    shutil.copy(os.path.abspath(__file__), os.path.join(out, "linear.py"))


def run(d):
    import torch
    import torch.nn.functional as F

    log = lambda *a: print(*a, flush=True)
    gpu = torch.device("cuda")
    rt = ctypes.CDLL(os.path.join(d, "lib", "libejk_runtime.so.1"))
    rt.ejk_last_error.restype = ctypes.c_char_p

    def check(st, what):
        if st != 0:
            raise RuntimeError(f"{what}: {rt.ejk_last_error().decode()}")

    dev = ctypes.c_void_p()
    check(rt.ejk_device_create(b"vulkan", ctypes.byref(dev)), "device")
    bufs = []

    def to_dev(x):
        raw = x.contiguous().cpu().view(torch.uint8)
        b = ctypes.c_void_p()
        check(rt.ejk_buffer_create(dev, ctypes.c_size_t(raw.numel()), ctypes.byref(b)), "buffer")
        check(rt.ejk_buffer_upload(b, ctypes.c_void_p(raw.data_ptr()),
                                   ctypes.c_size_t(raw.numel()), ctypes.c_size_t(0)), "upload")
        bufs.append(b)
        return b

    def empty(nbytes):
        b = ctypes.c_void_p()
        check(rt.ejk_buffer_create(dev, ctypes.c_size_t(nbytes), ctypes.byref(b)), "buffer")
        bufs.append(b)
        return b

    def from_dev(b, shape, dtype):
        x = torch.empty(shape, dtype=dtype)
        raw = x.view(torch.uint8)
        check(rt.ejk_buffer_download(b, ctypes.c_void_p(raw.data_ptr()),
                                     ctypes.c_size_t(raw.numel()), ctypes.c_size_t(0)), "download")
        return x

    def clocks():
        r = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks_throttle_reasons.active",
                            "--format=csv,noheader"], capture_output=True, text=True)
        return r.stdout.strip()

    def warm(fn, seconds=1.0):
        t0 = time.time()
        while time.time() - t0 < seconds:
            fn()

    def cuda_ms(fn, reps=10):
        warm(lambda: (fn(), torch.cuda.synchronize()))
        ts = []
        for _ in range(reps):
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            torch.cuda.synchronize()
            ts.append(s.elapsed_time(e))
        ts.sort()
        return ts[len(ts) // 2]

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
    for name, (b, tt, h, k, v, dt, gated) in cases.items():
        try:
            torch.manual_seed(0)
            q = torch.randn(b, tt, h, k, device=gpu).to(tdt[dt])
            kk = torch.randn(b, tt, h, k, device=gpu).to(tdt[dt])
            vv = torch.randn(b, tt, h, v, device=gpu).to(tdt[dt])
            g = (F.logsigmoid(torch.randn(b, tt, h, k, device=gpu)) / 16).to(tdt[dt])
            gamma = torch.tensor([math.log(1 - 2 ** (-5 - i / 2)) for i in range(h)],
                                 dtype=torch.float32, device=gpu)
            mod = ctypes.c_void_p()
            check(rt.ejk_module_load(dev, os.path.join(d, "art", name, "kernel.json").encode(),
                                     ctypes.byref(mod)), "load")
            ins = [to_dev(q), to_dev(kk), to_dev(vv), to_dev(g if gated == "g" else gamma)]
            outs = [empty(b * tt * h * v * q.element_size())]
            ia = (ctypes.c_void_p * len(ins))(*ins)
            oa = (ctypes.c_void_p * len(outs))(*outs)
            invoke = lambda: check(rt.ejk_invoke(mod, b"main", ia, ctypes.c_size_t(len(ins)), oa,
                                                 ctypes.c_size_t(len(outs))), "invoke")
            invoke()
            got = from_dev(outs[0], (b, tt, h, v), tdt[dt]).float().to(gpu)
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
                    ns = ctypes.c_uint64()
                    rt.ejk_last_invoke_time_ns(mod, ctypes.byref(ns))
                    ts.append(ns.value / 1e6)
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
            for x in bufs:
                rt.ejk_buffer_destroy(x)
            bufs.clear()
            rt.ejk_module_destroy(mod)
        except Exception as ex:
            results[name] = {"error": repr(ex)[:400]}
            log(name, "ERROR", repr(ex)[:400])
    json.dump(results, open(os.path.join(d, "linear.json"), "w"), indent=1)
    out = os.environ.get("OUT")
    if out:
        json.dump(results, open(os.path.join(out, "linear.json"), "w"), indent=1)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else
                os.path.join(HERE, "h100.fingerprint"))
    elif len(sys.argv) >= 3 and sys.argv[1] == "run":
        run(sys.argv[2])
    else:
        sys.exit(__doc__)
