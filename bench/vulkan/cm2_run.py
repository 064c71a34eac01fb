#!/usr/bin/env python3
"""Device side of the VK_NV_cooperative_matrix2 prototype (issue 21).

Makes Q, K, V (f16, [B, S, H, D], seeded normal), times FlashAttention-2
(PyTorch SDPA, flash backend) before and after the Vulkan kernels, runs
cm2_bench on every kernel of KDIR (name=file.spv:br per line of KDIR/list),
and checks each kernel's output against PyTorch's f32 attention.

  python3 cm2_run.py --bench .b-cm2/cm2_bench --kernels .b-cm2/k --out $OUT/cm2.json
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F


def fa2_ms(q, k, v, causal, warm_s=0.5, batch=20, rounds=15):
    """Per-call median of batches of back-to-back calls (as bench/gpu.py times
    its peers: no launch gaps between calls), after a fixed warm-up time."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    qt, kt, vt = (x.transpose(1, 2) for x in (q, k, v))  # [B, H, S, D] views
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION), torch.inference_mode():
        t0 = time.time()
        while time.time() - t0 < warm_s:
            F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
        torch.cuda.synchronize()
        ms = []
        for _ in range(rounds):
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            a.record()
            for _ in range(batch):
                F.scaled_dot_product_attention(qt, kt, vt, is_causal=causal)
            b.record()
            b.synchronize()
            ms.append(a.elapsed_time(b) / batch)
    ms.sort()
    return ms[len(ms) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--shape", default="4,2048,16,128")
    ap.add_argument("--tmp", default="/tmp/cm2")
    ap.add_argument("--causal", action="store_true")
    a = ap.parse_args()
    B, S, H, D = (int(x) for x in a.shape.split(","))
    os.makedirs(a.tmp, exist_ok=True)
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, S, H, D, device="cuda", dtype=torch.float16) for _ in range(3))
    for name, x in zip("qkv", (q, k, v)):
        x.cpu().numpy().tofile(os.path.join(a.tmp, f"{name}.bin"))
    ref = F.scaled_dot_product_attention(*(x.float().transpose(1, 2) for x in (q, k, v)),
                                         is_causal=a.causal).transpose(1, 2).contiguous()
    flops = 4.0 * B * H * S * S * D / (2 if a.causal else 1)
    result = {"shape": [B, S, H, D], "causal": a.causal, "device": torch.cuda.get_device_name(),
              "fa2_ms": [fa2_ms(q, k, v, a.causal)], "kernels": {}}
    print(f"FA2 (before): {result['fa2_ms'][0]:.4f} ms", flush=True)

    specs = [l.strip() for l in open(os.path.join(a.kernels, "list")) if l.strip()]
    specs = [re.sub(r"=", "=" + a.kernels + "/", s, count=1) for s in specs]
    r = subprocess.run([a.bench, str(B), str(S), str(H), str(D), a.tmp] + specs,
                       capture_output=True, text=True, timeout=200)
    print(r.stdout + r.stderr, flush=True)
    result["bench_stdout"] = r.stdout
    result["bench_rc"] = r.returncode
    result["fa2_ms"].append(fa2_ms(q, k, v, a.causal))
    print(f"FA2 (after): {result['fa2_ms'][1]:.4f} ms", flush=True)
    fa2 = min(result["fa2_ms"])

    for line in r.stdout.splitlines():
        m = re.match(r"(\S+): median ([0-9.]+) ms", line)
        if not m:
            continue
        name, ms = m.group(1), float(m.group(2))
        path = os.path.join(a.tmp, f"o_{name}.bin")
        o = torch.from_numpy(np.fromfile(path, dtype=np.float16).reshape(B, S, H, D)).cuda().float()
        err = (o - ref).abs()
        finite = bool(torch.isfinite(o).all())
        ok = finite and float(err.max()) < 2e-2
        result["kernels"][name] = {"ms": ms, "tflops": flops / ms * 1e-9, "vs_fa2": fa2 / ms,
                                   "max_abs_err": float(err.max()), "mean_abs_err": float(err.mean()),
                                   "finite": finite, "ok": ok}
        print(f"{name}: {ms:.4f} ms = {fa2 / ms * 100:.1f} % of FA2 ({fa2:.4f} ms); "
              f"max |err| {float(err.max()):.2e} mean {float(err.mean()):.2e} {'ok' if ok else 'WRONG'}",
              flush=True)
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
