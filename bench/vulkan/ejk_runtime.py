"""What the Vulkan bench scripts (paged.py, linear.py, ssm.py, ...) share: compiling their
variants here, and on the GPU machine the ejk runtime's C API through ctypes
(torch tensors in and out), the SM clock, a timed warm-up, writing the
results and the prepare/run command line.

The GPU machine has no MLIR: `prepare` compiles with ejkc here and copies
the runtime, the calling script and this module next to the artifacts.
"""
import ctypes, json, os, shutil, subprocess, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def prepare(out, fingerprint, variants, ir, script):
    """Compiles `ir(*spec)` of every `variants` entry for the Vulkan device
    of `fingerprint` into out/art/<name>/ and writes out/cases.json with the
    entries that compiled; copies the runtime to out/lib/ and `script` and
    this module to out/."""
    ejkc = os.path.join(ROOT, "build", "bin", "ejkc")
    os.makedirs(os.path.join(out, "art"), exist_ok=True)
    os.makedirs(os.path.join(out, "lib"), exist_ok=True)
    cases = {}
    for name, spec in variants.items():
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
    shutil.copy(os.path.join(ROOT, "build", "lib", "Runtime", "libejk_runtime.so.1"),
                os.path.join(out, "lib", "libejk_runtime.so.1"))
    shutil.copy(os.path.abspath(script), out)
    shutil.copy(os.path.abspath(__file__), out)



def preparer(variants, ir, script):
    """A script's `prepare(out, fingerprint)`: `prepare` of `variants()`
    (built when it runs) and `ir`."""
    return lambda out, fingerprint: prepare(out, fingerprint, variants(), ir,
                                            script)


def tensor_type(*shape, e):
    """The MLIR tensor type of `shape` and element type `e`."""
    return "tensor<" + "x".join(map(str, shape)) + "x" + e + ">"


class Runtime:
    """The Vulkan device of the runtime in `directory`/lib, and the buffers
    made through it (released by `release`)."""

    def __init__(self, directory):
        self.rt = ctypes.CDLL(os.path.join(directory, "lib", "libejk_runtime.so.1"))
        self.rt.ejk_last_error.restype = ctypes.c_char_p
        self.dev = ctypes.c_void_p()
        self.check(self.rt.ejk_device_create(b"vulkan", ctypes.byref(self.dev)), "device")
        self.buffers = []

    def check(self, status, what):
        if status != 0:
            raise RuntimeError(f"{what}: {self.rt.ejk_last_error().decode()}")

    def device_lines(self):
        """The fingerprint's device name and driver lines."""
        buf = ctypes.create_string_buffer(8192)
        self.rt.ejk_device_fingerprint(self.dev, buf, ctypes.c_size_t(8192), None)
        return [l for l in buf.value.decode().splitlines()
                if "device_name" in l or "driver" in l]

    def empty(self, nbytes):
        b = ctypes.c_void_p()
        self.check(self.rt.ejk_buffer_create(self.dev, ctypes.c_size_t(nbytes),
                                             ctypes.byref(b)), "buffer")
        self.buffers.append(b)
        return b

    def upload(self, tensor):
        """A new buffer holding `tensor`'s bytes (any dtype, any device)."""
        raw = tensor.contiguous().cpu().view(__import__("torch").uint8)
        b = self.empty(raw.numel())
        self.check(self.rt.ejk_buffer_upload(b, ctypes.c_void_p(raw.data_ptr()),
                                             ctypes.c_size_t(raw.numel()),
                                             ctypes.c_size_t(0)), "upload")
        return b

    def download(self, b, shape, dtype):
        import torch
        x = torch.empty(shape, dtype=dtype)
        raw = x.view(torch.uint8)
        self.check(self.rt.ejk_buffer_download(b, ctypes.c_void_p(raw.data_ptr()),
                                               ctypes.c_size_t(raw.numel()),
                                               ctypes.c_size_t(0)), "download")
        return x

    def load(self, artifact_dir):
        return Module(self, artifact_dir)

    def release(self):
        for b in self.buffers:
            self.rt.ejk_buffer_destroy(b)
        self.buffers.clear()


class Module:
    """An artifact's `main`, invoked on fixed input and output buffers."""

    def __init__(self, runtime, artifact_dir):
        self.runtime, self.mod = runtime, ctypes.c_void_p()
        runtime.check(runtime.rt.ejk_module_load(
            runtime.dev, os.path.join(artifact_dir, "kernel.json").encode(),
            ctypes.byref(self.mod)), "load")

    def bind(self, inputs, outputs):
        self.ins = (ctypes.c_void_p * len(inputs))(*inputs)
        self.outs = (ctypes.c_void_p * len(outputs))(*outputs)

    def invoke(self):
        rt = self.runtime.rt
        self.runtime.check(rt.ejk_invoke(self.mod, b"main", self.ins,
                                         ctypes.c_size_t(len(self.ins)), self.outs,
                                         ctypes.c_size_t(len(self.outs))), "invoke")

    def last_time_us(self):
        """The GPU time of the last invoke (timestamp queries)."""
        ns = ctypes.c_uint64()
        self.runtime.rt.ejk_last_invoke_time_ns(self.mod, ctypes.byref(ns))
        return ns.value / 1e3

    def dispatch_times_us(self, capacity=16):
        """The GPU time of each dispatch of the last invoke, in order (a
        timestamp after each; empty without timestamps)."""
        n = ctypes.c_size_t()
        ns = (ctypes.c_uint64 * capacity)()
        self.runtime.rt.ejk_last_invoke_dispatch_times_ns(
            self.mod, ns, ctypes.c_size_t(capacity), ctypes.byref(n))
        return [ns[i] / 1e3 for i in range(min(n.value, capacity))]

    def time_us(self, entry, runs=30):
        """Times `runs` invokes by the runtime's GPU timestamps after a
        second of warm-up; records the SM clock before and after and the
        median and minimum in `entry`; returns the median (us)."""
        warm(self.invoke)
        entry["clocks_before"] = clocks()
        ts = []
        for _ in range(runs):
            self.invoke()
            ts.append(self.last_time_us())
        ts.sort()
        entry["clocks_after"] = clocks()
        entry.update(median_us=ts[runs // 2], min_us=ts[0])
        return ts[runs // 2]

    def destroy(self):
        self.runtime.rt.ejk_module_destroy(self.mod)


def clocks():
    """The SM clock and throttle reasons, as nvidia-smi reads them."""
    r = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,clocks_throttle_reasons.active",
                        "--format=csv,noheader"], capture_output=True, text=True)
    return r.stdout.strip()


def warm(fn, seconds=1.0):
    """Runs `fn` for `seconds`: the GPU idles at 345 MHz and needs a second
    of work to reach its clock (../shared/NOTES.md)."""
    t0 = time.time()
    while time.time() - t0 < seconds:
        fn()


def cuda_median_ms(fn, reps=20):
    """Median of `reps` CUDA-event timings of `fn`, after a second of
    warm-up."""
    import torch
    warm(lambda: (fn(), torch.cuda.synchronize()))
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def copy_gbps():
    """The device's copy rate in GB/s, bytes read plus written, as
    bench/harness/gpu_peers.py measures it (a 2 GiB f32 device copy)."""
    import torch
    src = torch.empty(512 * 2 ** 20, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    us = cuda_median_ms(lambda: dst.copy_(src)) * 1e3
    return 2 * src.numel() * 4 / (us * 1e-6) / 1e9



def ordered_cases(d, variable):
    """The cases of DIR/cases.json, the checks ("chk" names) first (small: a
    kernel that fails shows before the timings), only those whose names
    match the regular expression in the environment variable `variable`
    where it is set."""
    import re
    cases = json.load(open(os.path.join(d, "cases.json")))
    ordered = sorted(cases.items(), key=lambda kv: not kv[0].startswith("chk"))
    only = os.environ.get(variable)
    return [kv for kv in ordered if not only or re.search(only, kv[0])]


def record(results, name, entry, log, rt, mod):
    """Stores and logs case `name`'s `entry`, then frees its buffers and
    module."""
    results[name] = entry
    log(name, json.dumps(entry))
    rt.release()
    mod.destroy()


def record_error(results, name, ex, log):
    """Stores and logs the error of case `name` (its first 400 characters)."""
    results[name] = {"error": repr(ex)[:400]}
    log(name, "ERROR", repr(ex)[:400])


def save_results(d, name, results):
    """Writes `results` as DIR/NAME.json, and as $OUT/NAME.json when the
    device tool's OUT is set (what comes back from the GPU machine)."""
    paths = [os.path.join(d, name + ".json")]
    if os.environ.get("OUT"):
        paths.append(os.path.join(os.environ["OUT"], name + ".json"))
    for path in paths:
        with open(path, "w") as f:
            json.dump(results, f, indent=1)


def main(argv, usage, prepare_fn, run_fn):
    """The bench scripts' command line: `prepare DIR [FINGERPRINT]` here
    (default the saved H100 fingerprint), `run DIR` on the GPU machine."""
    if len(argv) >= 3 and argv[1] == "prepare":
        prepare_fn(argv[2], argv[3] if len(argv) > 3 else
                   os.path.join(HERE, "h100.fingerprint"))
    elif len(argv) >= 3 and argv[1] == "run":
        run_fn(argv[2])
    else:
        raise SystemExit(usage)
