#!/usr/bin/env python3
"""On the H100: time every devrun/art variant through ejk-bench-run (Vulkan,
GPU timestamps), check its output against PyTorch (f32 math on the GPU), and
time PyTorch SDPA (flash, cuDNN, default f32) on the same shapes."""
import ctypes, json, os, re, subprocess, sys, time
import numpy as np
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.environ.get("OUT", "/tmp/out")
B, S, H, D = 4, 2048, 16, 128
FLOPS = 4 * B * H * S * S * D
results = {"ejk": {}, "torch": {}, "errors": {}}

def log(*a):
    print(*a, flush=True)

# The device's own fingerprint, through the runtime's C API.
rt = ctypes.CDLL(os.path.join(HERE, "lib", "libejk_runtime.so.1"))
dev = ctypes.c_void_p()
st = rt.ejk_device_create(b"vulkan", ctypes.byref(dev))
rt.ejk_last_error.restype = ctypes.c_char_p
if st != 0:
    log("vulkan device failed:", rt.ejk_last_error())
else:
    buf = ctypes.create_string_buffer(8192)
    n = ctypes.c_size_t()
    rt.ejk_device_fingerprint(dev, buf, 8192, ctypes.byref(n))
    open(os.path.join(OUT, "h100-device.fingerprint"), "w").write(buf.value.decode())
    log(buf.value.decode())
    rt.ejk_device_destroy(dev)

rng = np.random.default_rng(0)
inputs = {}
for dt in ("f16", "f32"):
    arrs = [rng.standard_normal((B, S, H, D), dtype=np.float32).astype(np.float16 if dt == "f16" else np.float32) for _ in range(3)]
    paths = []
    for i, a in enumerate(arrs):
        p = f"/tmp/{dt}_{i}.npy"
        np.save(p, a)
        paths.append(p)
    inputs[dt] = (arrs, paths)

refs = {}
def reference(dt, causal):
    key = (dt, causal)
    if key not in refs:
        q, k, v = (torch.from_numpy(a).cuda().float().transpose(1, 2) for a in inputs[dt][0])
        with sdpa_kernel(SDPBackend.MATH):
            refs[key] = F.scaled_dot_product_attention(q, k, v, is_causal=causal).transpose(1, 2).cpu().numpy()
        torch.cuda.empty_cache()
    return refs[key]

runner = os.path.join(HERE, "ejk-bench-run")
for name in sorted(os.listdir(os.path.join(HERE, "art"))):
    d = os.path.join(HERE, "art", name)
    if not os.path.isdir(d):
        continue
    dt = name[:3]
    causal = "_causal" in name
    outp = f"/tmp/out_{name}.npy"
    cmd = [runner, os.path.join(d, "kernel.json"), "--runs", "10", "--warmup", "2"]
    for p in inputs[dt][1]:
        cmd += ["--input", p]
    cmd += ["--output", outp]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    m = re.search(r"median ([0-9.]+) ms, min ([0-9.]+) ms", r.stdout + r.stderr)
    if r.returncode or not m:
        log(f"{name}: FAILED rc={r.returncode} {(r.stdout + r.stderr)[-400:]}")
        results["ejk"][name] = {"error": (r.stdout + r.stderr)[-400:]}
        continue
    med, mn = float(m.group(1)), float(m.group(2))
    flops = FLOPS / 2 if causal else FLOPS
    out = np.load(outp).astype(np.float32)
    err = float(np.max(np.abs(out - reference(dt, causal))))
    results["ejk"][name] = {"median_ms": med, "min_ms": mn, "tflops": flops / med / 1e9, "max_abs_err": err}
    log(f"{name}: median {med:.3f} ms min {mn:.3f} ms -> {flops/med/1e9:.1f} TFLOP/s, max abs err {err:.2e}")

def time_torch(fn, runs=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    ts.sort()
    return ts[len(ts) // 2], ts[0]

for dt, tdt in (("f16", torch.float16), ("f32", torch.float32)):
    q, k, v = (torch.from_numpy(a).cuda().to(tdt).transpose(1, 2).contiguous() for a in inputs[dt][0])
    for causal in (False, True):
        flops = FLOPS / 2 if causal else FLOPS
        backends = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION),
                    ("efficient", SDPBackend.EFFICIENT_ATTENTION), ("default", None)]
        for bname, be in backends:
            if dt == "f32" and bname in ("flash", "cudnn"):
                continue
            key = f"{dt}{'_causal' if causal else ''}_{bname}"
            try:
                if be is None:
                    fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    med, mn = time_torch(fn)
                else:
                    with sdpa_kernel(be):
                        fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        med, mn = time_torch(fn)
                results["torch"][key] = {"median_ms": med, "min_ms": mn, "tflops": flops / med / 1e9}
                log(f"torch {key}: median {med:.3f} ms -> {flops/med/1e9:.1f} TFLOP/s")
            except Exception as ex:
                results["torch"][key] = {"error": str(ex)[:200]}
                log(f"torch {key}: error {str(ex)[:200]}")
    del q, k, v
    torch.cuda.empty_cache()
results["torch_tf32_matmul"] = torch.backends.cuda.matmul.allow_tf32
json.dump(results, open(os.path.join(OUT, "h100-attention.json"), "w"), indent=1)
