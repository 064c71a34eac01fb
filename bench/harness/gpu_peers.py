"""The GPU peers (PyTorch SDPA backends, JAX) and their timing, for bench/gpu.py.

Each peer runs in its own process (bench/gpu.py worker), so JAX's memory
preallocation and PyTorch's caching allocator never meet. Every peer gets the
workload's f16 arrays (BSHD, as ejk); the f32 peer gets them widened to f32.

Timing (the same for every peer): after the compiling call (made once, when
the worker starts), each measurement first runs the peer back to back for a
fixed time (--warm-s, default 2 s: an idle GPU drops its clocks and a fixed
count of calls does not bring them back), then takes N samples, each K
back-to-back calls followed by one synchronisation, divided by K, with K
chosen so that a sample lasts about 20 ms: the GPU queue stays full, so a
sample is the kernels' time, not the host's launch latency (ejk's own number,
ejk_last_invoke_time_ns, is the GPU time between timestamps around its
dispatches). Median and min over the N samples, and the unix times that
bracket them (for the clock samples, harness/gpu_clocks.py).
"""
import os
import statistics
import time

# name -> (label, description)
PEERS = {
    "torch-flash": ("PyTorch SDPA FA2", "torch.nn.functional.scaled_dot_product_attention "
                    "under sdpa_kernel(SDPBackend.FLASH_ATTENTION) (FlashAttention-2), fp16, "
                    "BHSD views of the BSHD inputs, is_causal"),
    "torch-cudnn": ("PyTorch SDPA cuDNN", "the same under "
                    "sdpa_kernel(SDPBackend.CUDNN_ATTENTION), fp16"),
    "torch-f32": ("PyTorch SDPA f32", "the same inputs widened to f32 under "
                  "sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION) (no TF32); the f32 reference"),
    "jax-cudnn": ("JAX cuDNN", "jax.jit(jax.nn.dot_product_attention(..., is_causal, "
                  "implementation='cudnn')), fp16, BSHD"),
    "jax-xla": ("JAX XLA", "jax.jit(jax.nn.dot_product_attention(..., "
                "implementation='xla')), fp16, BSHD"),
}


def limit(name, device):
    """Environment before the framework is imported."""
    if name.startswith("jax"):
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        os.environ["JAX_PLATFORMS"] = "cuda" if device == "cuda" else "cpu"


def version(name):
    if name.startswith("torch"):
        import torch
        cuda = torch.version.cuda or "no CUDA"
        cudnn = torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None
        return f"torch {torch.__version__}, CUDA {cuda}, cuDNN {cudnn}"
    import jax
    return f"jax {jax.__version__}, {jax.devices()[0].device_kind}"


def build(name, w, arrays, device):
    """(run, sync, to_numpy): run() launches one call and returns its result."""
    import numpy as np
    if name.startswith("torch"):
        import torch
        import torch.nn.functional as F
        from torch.nn.attention import SDPBackend, sdpa_kernel
        dev = torch.device(device)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        dtype = torch.float32 if name == "torch-f32" else torch.float16
        q, k, v = (torch.from_numpy(a).to(dev, dtype).permute(0, 2, 1, 3) for a in arrays)
        backend = {"torch-flash": SDPBackend.FLASH_ATTENTION,
                   "torch-cudnn": SDPBackend.CUDNN_ATTENTION,
                   "torch-f32": SDPBackend.EFFICIENT_ATTENTION}[name]
        if name == "torch-f32" and dev.type == "cpu":
            backend = SDPBackend.MATH  # the CPU self-test: no efficient kernel there
        gqa = w.dims["Hq"] != w.dims["Hkv"]

        def run():
            with sdpa_kernel(backend), torch.inference_mode():
                return F.scaled_dot_product_attention(q, k, v, is_causal=w.causal,
                                                      enable_gqa=gqa)

        def sync(_):
            if dev.type == "cuda":
                torch.cuda.synchronize()

        return run, sync, lambda o: o.permute(0, 2, 1, 3).float().cpu().numpy()
    import jax
    q, k, v = (jax.device_put(a) for a in arrays)
    impl = "cudnn" if name == "jax-cudnn" else "xla"
    fn = jax.jit(lambda q, k, v: jax.nn.dot_product_attention(
        q, k, v, is_causal=w.causal, implementation=impl))
    return (lambda: fn(q, k, v)), (lambda o: o.block_until_ready()), \
        (lambda o: np.asarray(o).astype(np.float32))


def _sample(run, sync, calls):
    """Seconds for `calls` back-to-back calls and one synchronisation."""
    start = time.perf_counter()
    out = None
    for _ in range(calls):
        out = run()
    sync(out)
    return time.perf_counter() - start


def measure(run, sync, runs, warm_s, sample_s=0.02):
    """{median_ms, min_ms, runs, calls_per_sample, warm_s, times_ms, timed_unix}
    after `warm_s` seconds of back-to-back calls."""
    start = time.perf_counter()
    calls = 1
    while True:
        one = _sample(run, sync, calls) / calls
        calls = max(1, min(1000, int(sample_s / max(one, 1e-6))))
        if time.perf_counter() - start >= warm_s:
            break
    warmed = time.perf_counter() - start
    t0 = time.time()
    times = [_sample(run, sync, calls) / calls for _ in range(runs)]
    t1 = time.time()
    return {"median_ms": 1e3 * statistics.median(times), "min_ms": 1e3 * min(times),
            "runs": runs, "calls_per_sample": calls, "warm_s": warmed,
            "times_ms": [1e3 * t for t in times], "timed_unix": [t0, t1]}


def torch_peak(device, warm_s, n=8192):
    """The GPU's reference rates, measured with PyTorch in the same run after
    `warm_s` seconds of fp16 GEMMs: fp16 and f32 (no TF32) GEMM n^3 in
    TFLOP/s, device-to-device copy in GB/s, and the unix times around them."""
    import torch
    dev = torch.device(device)
    torch.backends.cuda.matmul.allow_tf32 = False

    def sync():
        if dev.type == "cuda":
            torch.cuda.synchronize()

    def rate(fn, work):
        fn()
        sync()
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(3):
                fn()
            sync()
            best = min(best, (time.perf_counter() - start) / 3)
        return work / best

    out = {"gemm_n": n}
    for key, dtype in (("fp16_tflops", torch.float16), ("f32_tflops", torch.float32)):
        a = torch.randn(n, n, device=dev).to(dtype)
        b = torch.randn(n, n, device=dev).to(dtype)
        if dtype == torch.float16:
            start = time.perf_counter()
            while time.perf_counter() - start < warm_s:
                a @ b
                sync()
            t0 = time.time()
        out[key] = rate(lambda: a @ b, 2 * n ** 3) * 1e-12
        del a, b
    src = torch.empty(1 << 28, dtype=torch.float32, device=dev)  # 1 GiB
    dst = torch.empty_like(src)
    out["copy_gbps"] = rate(lambda: dst.copy_(src), 2 * src.numel() * 4) * 1e-9
    out["timed_unix"] = [t0, time.time()]
    if dev.type == "cuda":
        out["gpu"] = torch.cuda.get_device_name(dev)
    return out
