#!/usr/bin/env python3
"""ejk's Vulkan grouped matmuls against torch._grouped_mm on the GPU machine.

Two steps, because the GPU machine has no MLIR (docs/ops/moe-vulkan.md):

  here:   python3 bench/vulkan/moe.py prepare DIR [FINGERPRINT]
          compiles every variant (bench shapes x configs, and small
          correctness cases) with `ejkc --target vulkan --fingerprint
          FINGERPRINT` (default bench/vulkan/h100.fingerprint) into
          DIR/art/<name>/, copies the runtime to DIR/lib/ and this script
          to DIR/ (MOE_ONLY=REGEX: only the variants whose names match).
  there:  python3 DIR/moe.py run DIR
          loads each artifact through the runtime's C API (ctypes), fills
          its inputs (balanced and Zipf-skewed group sizes), checks its
          output against PyTorch (f32 math per group, the op's semantics,
          bad sizes included), times it with the runtime's GPU timestamps
          after a warm-up of a second, times torch._grouped_mm on the same
          problem in the same process, records the driver's statistics of
          each bench pipeline (registers, shared memory; DIR/pipeline_stats,
          built by prepare from pipeline_stats.cpp), and writes DIR/moe.json
          (and $OUT/moe.json when OUT is set).

The bench problem is issue 20's: m = 32768 routed rows (top-8), E = 128
experts, k = 2048, n = 768.
"""
import ctypes, json, os, re, shutil, subprocess, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
M, E, K, N = 32768, 128, 2048, 768

# name: (op, dtype, out dtype, shapes, options, config)
#   op "gmm": lhs [rows, k], rhs [local, k, n] ([local, n, k] with "T");
#   op "tgmm": lhs [rows, k], rhs [rows, n] -> [local, k, n].
def variants():
    v = {}
    # (block_m, block_n, block_k, num_subgroups[, num_stages]); "heur" lets
    # the compiler pick.
    cfgs = {"heur": None}
    for name, cfg in cfgs.items():
        v[f"gmm_f16_{name}"] = ("gmm", "f16", "f16", (M, K, N, E, E), "", cfg)
    tcfgs = {"heur": None,
             "m128n128k16w4": (128, 128, 16, 4),
             "m128n128k16w4s2": (128, 128, 16, 4, 2),
             "m128n128k32w4s2": (128, 128, 32, 4, 2),
             "m128n256k16w8": (128, 256, 16, 8),
             "m256n128k16w8": (256, 128, 16, 8),
             "m128n256k32w8": (128, 256, 32, 8),
             "m256n128k32w8": (256, 128, 32, 8),
             "m64n64k32w4": (64, 64, 32, 4),
             "m128n128k32w8": (128, 128, 32, 8),
             "m128n128k16w8": (128, 128, 16, 8),
             "m64n128k32w4": (64, 128, 32, 4)}
    for name, cfg in tcfgs.items():
        v[f"gmm_f16T_{name}"] = ("gmm", "f16", "f16", (M, K, N, E, E), "T", cfg)
    # A quarter of the reduction: what the time has that is not the k loop.
    v["gmm_f16T_heur_k512"] = ("gmm", "f16", "f16", (M, 512, N, E, E), "T", None)
    v["gmm_f16T_heur_k1024"] = ("gmm", "f16", "f16", (M, 1024, N, E, E), "T", None)
    v["gmm_bf16_heur"] = ("gmm", "bf16", "bf16", (M, K, N, E, E), "", None)
    # bf16 on bf16 cooperative matrices (VK_KHR_shader_bfloat16), both
    # weight layouts, and the weight gradient.
    v["gmm_bf16T_heur"] = ("gmm", "bf16", "bf16", (M, K, N, E, E), "T", None)
    v["tgmm_bf16_heur"] = ("tgmm", "bf16", "f32", (M, K, N, E, E), "", None)
    # int8 weights with per-channel scales ("Q"), f16 lhs: against the f16
    # weights of the same layout above.
    v["gmm_i8f16_heur"] = ("gmm", "f16", "f16", (M, K, N, E, E), "Q", None)
    v["gmm_i8f16T_heur"] = ("gmm", "f16", "f16", (M, K, N, E, E), "TQ", None)
    v["tgmm_f16_heur"] = ("tgmm", "f16", "f32", (M, K, N, E, E), "", None)
    v["tgmm_f16_m16n128k128w4"] = ("tgmm", "f16", "f32", (M, K, N, E, E), "",
                                   (16, 128, 128, 4))
    v["tgmm_f16_m32n128k128w4s2"] = ("tgmm", "f16", "f32", (M, K, N, E, E), "",
                                     (32, 128, 128, 4, 2))
    # Correctness cases: ragged shapes, offsets, existing_out, f32 results.
    v["chk_gmm"] = ("gmm", "f16", "f16", (300, 64, 48, 5, 5), "", None)
    v["chk_gmm_small"] = ("gmm", "f16", "f16", (300, 64, 48, 5, 5), "", (16, 16, 16, 1))
    v["chk_gmmT_off_acc"] = ("gmm", "f16", "f32", (300, 64, 40, 7, 3), "TOA", None)
    v["chk_gmm_off_acc"] = ("gmm", "f16", "f16", (129, 136, 72, 6, 4), "OA", (64, 64, 32, 2))
    v["chk_tgmm"] = ("tgmm", "f16", "f32", (300, 64, 48, 5, 5), "", None)
    v["chk_tgmm_off_acc"] = ("tgmm", "f16", "f16", (257, 40, 56, 7, 4), "OA", (32, 32, 16, 2))
    v["chk_bf16"] = ("gmm", "bf16", "f32", (300, 64, 48, 5, 5), "T", None)
    v["chk_bf16_two_stages"] = ("gmm", "bf16", "bf16", (1000, 200, 136, 9, 9), "A", (128, 128, 32, 4, 2))
    v["chk_bf16T_off_acc"] = ("gmm", "bf16", "f32", (300, 64, 40, 7, 3), "TOA", None)
    v["chk_tgmm_bf16"] = ("tgmm", "bf16", "f32", (1000, 136, 200, 9, 9), "A", (32, 128, 128, 4, 2))
    # "W": lhs values near 2^20, past f16's range: only bf16 matrices hold
    # them (an f16 conversion would give inf).
    v["chk_bf16_wide"] = ("gmm", "bf16", "f32", (300, 64, 48, 5, 5), "W", None)
    v["chk_gmm_big_tiles"] = ("gmm", "f16", "f32", (1000, 256, 136, 9, 9), "A", (128, 128, 32, 4))
    v["chk_gmmT_one_stage"] = ("gmm", "f16", "f16", (1000, 264, 136, 9, 9), "TA", (128, 128, 64, 4, 1))
    v["chk_gmmT_w8_256"] = ("gmm", "f16", "f16", (1000, 264, 136, 9, 9), "T", (256, 128, 32, 8, 1))
    v["chk_gmmT_two_stages_k16"] = ("gmm", "f16", "f32", (1000, 264, 136, 9, 9), "TOA", (128, 128, 16, 4, 2))
    v["chk_gmm_two_stages"] = ("gmm", "f16", "f16", (1000, 200, 136, 9, 9), "", (128, 128, 32, 4, 2))
    v["chk_gmm_out_tiles_2"] = ("gmm", "f16", "f16", (1000, 264, 264, 9, 9), "A", (128, 256, 16, 8))
    v["chk_gmm_out_tile_1"] = ("gmm", "f16", "f16", (700, 72, 200, 9, 9), "", (64, 64, 16, 4))
    v["chk_tgmm_two_stages"] = ("tgmm", "f16", "f32", (1000, 136, 200, 9, 9), "A", (32, 128, 128, 4, 2))
    v["chk_tgmm_w8"] = ("tgmm", "f16", "f16", (1000, 136, 256, 9, 9), "A", (32, 128, 16, 8))
    v["chk_gmm_i8"] = ("gmm", "f16", "f16", (300, 64, 48, 5, 5), "Q", None)
    v["chk_gmmT_i8_off_acc"] = ("gmm", "f16", "f32", (300, 64, 48, 7, 3), "TOAQ", None)
    v["chk_gmm_i8_two_stages"] = ("gmm", "f16", "f16", (1000, 208, 144, 9, 9), "AQ", (128, 128, 32, 4, 2))
    v["chk_gmm_i8_portable_k"] = ("gmm", "f16", "f16", (300, 72, 40, 5, 5), "Q", None)
    only = os.environ.get("MOE_ONLY")
    if only:
        v = {name: spec for name, spec in v.items() if re.search(only, name)}
    return v


def ir(op, dt, odt, shape, opts, cfg):
    rows, k, n, g, local = shape
    t = lambda *s, e=dt: "tensor<" + "x".join(map(str, s)) + "x" + e + ">"
    args = [f"%lhs: {t(rows, k)}"]
    if op == "gmm":
        we = "i8" if "Q" in opts else dt
        rhs = t(local, n, k, e=we) if "T" in opts else t(local, k, n, e=we)
        out = t(rows, n, e=odt)
    else:
        rhs = t(rows, n)
        out = t(local, k, n, e=odt)
    args += [f"%rhs: {rhs}", f"%sizes: tensor<{g}xi32>"]
    extra = ""
    if "O" in opts:
        args.append("%off: tensor<1xi32>")
        extra += " group_offset(%off : tensor<1xi32>)"
    if "A" in opts:
        args.append(f"%acc: {out}")
        extra += f" existing_out(%acc : {out})"
    if "Q" in opts:
        args.append(f"%scales: {t(local, n, e='f32')}")
        extra += f" rhs_scales(%scales : {t(local, n, e='f32')})"
    attrs = []
    if op == "gmm" and "T" in opts:
        attrs.append("transpose_rhs")
    if cfg:
        bm, bn, bk, w = cfg[:4]
        stages = f", num_stages = {cfg[4]}" if len(cfg) > 4 else ""
        attrs.append(f"config = #ejk.config<block_m = {bm}, block_n = {bn}, "
                     f"block_k = {bk}, num_subgroups = {w}{stages}>")
    a = (" {" + ", ".join(attrs) + "}") if attrs else ""
    name = "ejk.grouped_matmul" if op == "gmm" else "ejk.transposed_grouped_matmul"
    return (f"func.func @main({', '.join(args)}) -> {out} {{\n"
            f"  %out = {name} %lhs, %rhs, %sizes{extra}{a}\n"
            f"      : {t(rows, k)}, {rhs}, tensor<{g}xi32> -> {out}\n"
            f"  return %out : {out}\n}}\n")


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
    shutil.copy(os.path.abspath(__file__), os.path.join(out, "moe.py"))
    # The driver's statistics of each pipeline (registers, shared memory).
    r = subprocess.run(["c++", "-O1", "-std=c++17",
                        os.path.join(HERE, "pipeline_stats.cpp"), "-lvulkan",
                        "-o", os.path.join(out, "pipeline_stats")],
                       capture_output=True, text=True)
    print("pipeline_stats", "FAILED " + r.stderr[:300] if r.returncode else "ok")


def pipeline_stats(d, names):
    """{variant: {statistic: value}} from the driver, or {} without it."""
    tool = os.path.join(d, "pipeline_stats")
    if not os.path.exists(tool):
        return {}
    args, files = [tool], {}
    for name in names:
        kj = json.load(open(os.path.join(d, "art", name, "kernel.json")))
        # A variant's dispatches may share an entry-point name: key each
        # statistic by its dispatch's position so none overwrites another.
        for i, disp in enumerate(kj["entries"][0]["dispatches"]):
            spv = os.path.join(d, "art", name, disp["spirv"])
            args += [disp["entry_point"], str(len(disp["bindings"])), spv]
            files[spv] = (name, i)
    try:
        r = subprocess.run(args, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return {"error": "timed out"}
    out = {}
    for line in r.stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == 4 and parts[0] in files:
            name, i = files[parts[0]]
            key = "dispatch %d %s: %s" % (i, parts[1], parts[2])
            out.setdefault(name, {})[key] = parts[3]
    if r.returncode:
        out["error"] = r.stderr[-500:]
    return out


# --- run (on the GPU machine) -------------------------------------------------

def run(d):
    import numpy as np
    import torch

    log = lambda *a: print(*a, flush=True)
    # On a machine without CUDA (lavapipe here) only the small checks run,
    # with the reference on the CPU.
    gpu = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    rt = ctypes.CDLL(os.path.join(d, "lib", "libejk_runtime.so.1"))
    rt.ejk_last_error.restype = ctypes.c_char_p

    class Desc(ctypes.Structure):
        _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_int32),
                    ("shape", ctypes.c_int64 * 8)]

    def check(st, what):
        if st != 0:
            raise RuntimeError(f"{what}: {rt.ejk_last_error().decode()}")

    dev = ctypes.c_void_p()
    check(rt.ejk_device_create(b"vulkan", ctypes.byref(dev)), "device")
    buf = ctypes.create_string_buffer(8192)
    rt.ejk_device_fingerprint(dev, buf, ctypes.c_size_t(8192), None)
    fingerprint = buf.value.decode()
    log(fingerprint)

    def to_dev(t):
        """A torch tensor (any dtype) as a new ejk buffer."""
        host = t.detach().contiguous().cpu()
        raw = host.view(torch.uint8) if host.dtype != torch.uint8 else host
        nbytes = raw.numel()
        b = ctypes.c_void_p()
        check(rt.ejk_buffer_create(dev, ctypes.c_size_t(nbytes), ctypes.byref(b)), "buffer")
        if nbytes:
            check(rt.ejk_buffer_upload(b, ctypes.c_void_p(raw.data_ptr()),
                                       ctypes.c_size_t(nbytes), ctypes.c_size_t(0)), "upload")
        return b

    def from_dev(b, shape, dtype):
        t = torch.empty(shape, dtype=dtype)
        raw = t.view(torch.uint8)
        check(rt.ejk_buffer_download(b, ctypes.c_void_p(raw.data_ptr()),
                                     ctypes.c_size_t(raw.numel()), ctypes.c_size_t(0)), "download")
        return t

    tdt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}

    def zipf_sizes(rows, g, s=1.2):
        w = 1.0 / np.arange(1, g + 1) ** s
        sizes = np.floor(w / w.sum() * rows).astype(np.int64)
        sizes[0] += rows - sizes.sum()
        return sizes

    def bad_sizes(rows, g, gen):
        # Random split, one negative size, and a sum past rows.
        cuts = np.sort(gen.integers(0, rows + 1, g - 1))
        sizes = np.diff(np.concatenate([[0], cuts, [rows]]))
        sizes[gen.integers(0, g)] = -3
        sizes[-1] += 7
        return sizes

    def reference(op, opts, lhs, rhs, sizes, off, acc, local, odt, scales=None):
        """The op's semantics in f32 on the GPU."""
        rows = lhs.shape[0]
        starts = [0]
        for s in sizes.tolist():
            starts.append(min(starts[-1] + max(s, 0), rows))
        x = lhs.to(gpu).float()
        r = rhs.to(gpu).float()
        if op == "gmm":
            out = acc.to(gpu).float().clone() if acc is not None else torch.zeros(rows, rhs.shape[1 if "T" in opts else 2], device=gpu)
            for l in range(local):
                g = off + l
                if 0 <= g < len(sizes) and starts[g + 1] > starts[g]:
                    w = r[l].t() if "T" in opts else r[l]
                    part = x[starts[g]:starts[g + 1]] @ w
                    if scales is not None:
                        part = part * scales[l].to(gpu).float()
                    out[starts[g]:starts[g + 1]] += part
            return out
        out = acc.to(gpu).float().clone() if acc is not None else torch.zeros(local, lhs.shape[1], rhs.shape[1], device=gpu)
        for l in range(local):
            g = off + l
            if 0 <= g < len(sizes) and starts[g + 1] > starts[g]:
                out[l] += x[starts[g]:starts[g + 1]].t() @ r[starts[g]:starts[g + 1]]
        return out

    def warm(fn, seconds=1.0):
        t0 = time.time()
        while time.time() - t0 < seconds:
            fn()

    def clocks():
        if not shutil.which("nvidia-smi"):
            return ""
        r = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks_throttle_reasons.active",
                            "--format=csv,noheader"], capture_output=True, text=True)
        return r.stdout.strip()

    torch.backends.cuda.matmul.allow_tf32 = False
    results = {"device": torch.cuda.get_device_name() if gpu.type == "cuda" else "cpu", "fingerprint": fingerprint,
               "ejk": {}, "torch": {}}
    cases = json.load(open(os.path.join(d, "cases.json")))
    gen = np.random.default_rng(0)
    inputs = {}

    def run_case(name, op, dt, odt, shape, opts, big, key):
        rows, k, n, g, local = shape
        lhs, rhs, acc, off, outshape, dists, bl, br, bacc, boff, scales, bsc = inputs[key]
        mod = ctypes.c_void_p()
        check(rt.ejk_module_load(dev, os.path.join(d, "art", name, "kernel.json").encode(),
                                 ctypes.byref(mod)), f"load {name}")
        outb = ctypes.c_void_p()
        nbytes = int(np.prod(outshape)) * (4 if odt == "f32" else 2)
        check(rt.ejk_buffer_create(dev, ctypes.c_size_t(nbytes), ctypes.byref(outb)), "out")
        res = {}
        for dname, sizes in dists.items():
            bs = to_dev(torch.tensor(sizes, dtype=torch.int32))
            ins = ([bl, br, bs] + ([boff] if "O" in opts else []) + ([bacc] if "A" in opts else [])
                   + ([bsc] if "Q" in opts else []))
            in_arr = (ctypes.c_void_p * len(ins))(*ins)
            out_arr = (ctypes.c_void_p * 1)(outb)
            invoke = lambda: check(rt.ejk_invoke(mod, b"main", in_arr, ctypes.c_size_t(len(ins)),
                                                 out_arr, ctypes.c_size_t(1)), "invoke")
            invoke()
            got = from_dev(outb, outshape, tdt[odt]).to(gpu).float()
            ref = reference(op, opts, lhs, rhs, sizes, off, acc, local, odt, scales)
            err = (got - ref).abs()
            rel = float((err / (ref.abs() + 1.0)).max())
            entry = {"max_abs_err": float(err.max()), "max_rel_err": rel,
                     "nan": bool(torch.isnan(got).any())}
            if big:
                warm(invoke)
                clk = clocks()
                ts = []
                for _ in range(10):
                    invoke()
                    ns = ctypes.c_uint64()
                    rt.ejk_last_invoke_time_ns(mod, ctypes.byref(ns))
                    ts.append(ns.value / 1e6)
                ts.sort()
                entry.update(median_ms=ts[5], min_ms=ts[0], clocks=clk,
                             tflops=2 * rows * k * n / ts[5] / 1e9)
            res[dname] = entry
            log(name, dname, entry)
            rt.ejk_buffer_destroy(bs)
        rt.ejk_buffer_destroy(outb)
        rt.ejk_module_destroy(mod)
        return res

    for name, (op, dt, odt, shape, opts, cfg) in sorted(cases.items()):
        rows, k, n, g, local = shape
        big = not name.startswith("chk")
        if big and gpu.type != "cuda":
            continue
        key = (op, dt, odt, tuple(shape), opts)
        if key not in inputs:
            torch.manual_seed(0)
            lhs = (torch.randn(rows, k) * (2.0 ** 20 if "W" in opts else 1.0)).to(tdt[dt])
            scales = None
            if op == "gmm" and "Q" in opts:
                rshape = (local, n, k) if "T" in opts else (local, k, n)
                rhs = torch.randint(-128, 128, rshape, dtype=torch.int8)
                scales = torch.rand(local, n) * 0.03 + 0.01
            elif op == "gmm":
                rhs = (torch.randn(local, n, k) if "T" in opts else torch.randn(local, k, n)).to(tdt[dt])
            else:
                rhs = torch.randn(rows, n).to(tdt[dt])
            outshape = (rows, n) if op == "gmm" else (local, k, n)
            acc = torch.randn(outshape).to(tdt[odt]) if "A" in opts else None
            off = int(gen.integers(0, g - local + 1)) if "O" in opts else 0
            dists = ({"balanced": np.full(g, rows // g), "zipf": zipf_sizes(rows, g)} if big
                     else {"ragged": bad_sizes(rows, g, gen)})
            inputs.clear()
            inputs[key] = (lhs, rhs, acc, off, outshape, dists,
                           to_dev(lhs), to_dev(rhs),
                           to_dev(acc) if acc is not None else None,
                           to_dev(torch.tensor([off], dtype=torch.int32)),
                           scales, to_dev(scales) if scales is not None else None)
        try:
            results["ejk"][name] = run_case(name, op, dt, odt, shape, opts, big, key)
        except Exception as ex:
            results["ejk"][name] = {"error": repr(ex)[:400]}
            log(name, "ERROR", repr(ex)[:400])
    inputs.clear()
    results["pipeline_stats"] = pipeline_stats(
        d, [n for n in cases if not n.startswith("chk")])
    for name, st in sorted(results["pipeline_stats"].items()):
        log("stats", name, str(st)[:300])

    # torch._grouped_mm on the bench problem (offs: cumulative row ends).
    for dname in ("balanced", "zipf") if gpu.type == "cuda" else ():
        sizes = np.full(E, M // E) if dname == "balanced" else zipf_sizes(M, E)
        offs = torch.tensor(np.cumsum(sizes), dtype=torch.int32, device=gpu)
        for dt in ("bf16", "f16"):
            for layout in ("kn", "nk^T"):
                key = f"{dt}_{layout}_{dname}"
                try:
                    torch.manual_seed(0)
                    x = torch.randn(M, K, device=gpu, dtype=tdt[dt])
                    w = (torch.randn(E, K, N, device=gpu, dtype=tdt[dt]) if layout == "kn"
                         else torch.randn(E, N, K, device=gpu, dtype=tdt[dt]).transpose(-2, -1))
                    fn = lambda: torch._grouped_mm(x, w, offs=offs)
                    fn()
                    torch.cuda.synchronize()
                    warm(fn)
                    torch.cuda.synchronize()
                    clk = clocks()
                    ts = []
                    for _ in range(20):
                        s, t = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                        s.record(); fn(); t.record(); torch.cuda.synchronize()
                        ts.append(s.elapsed_time(t))
                    ts.sort()
                    results["torch"][key] = {"median_ms": ts[10], "min_ms": ts[0], "clocks": clk,
                                             "tflops": 2 * M * K * N / ts[10] / 1e9}
                except Exception as ex:  # a dtype or layout torch refuses
                    results["torch"][key] = {"error": str(ex)[:300]}
                log("torch", key, results["torch"][key])
                x = w = None
                torch.cuda.empty_cache()
    text = json.dumps(results, indent=1)
    open(os.path.join(d, "moe.json"), "w").write(text)
    if os.environ.get("OUT"):
        open(os.path.join(os.environ["OUT"], "moe.json"), "w").write(text)


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "prepare":
        prepare(os.path.abspath(sys.argv[2]),
                sys.argv[3] if len(sys.argv) > 3 else os.path.join(HERE, "h100.fingerprint"))
    elif len(sys.argv) >= 3 and sys.argv[1] == "run":
        run(os.path.abspath(sys.argv[2]))
    else:
        sys.exit(__doc__)
