"""Writes the inputs ejk-bench-run draws itself (its LCG, seed S) as .npy files:
lcg_npy.py MANIFEST OUTDIR [SEED] -> OUTDIR/in0.npy, in1.npy, ... (f16 inputs).

A diagnostic for issue 21's decode anomaly (warmup-experiments.sh): the same
values as the runner's, from .npy. The LCG is jumped ahead in blocks of 2^20
(state_k = a^k s + c (1 + a + ... + a^(k-1)) mod 2^64). Checked on a CPU
artifact: the runner's output on these files is bit-identical to its output
on its own draws.
"""
import json
import os
import sys

import numpy as np

A, C = 6364136223846793005, 1442695040888963407
N = 1 << 20
POW = np.cumprod(np.full(N, A, dtype=np.uint64))  # a^1 .. a^N (mod 2^64)
ADD = np.cumsum(np.concatenate([np.ones(1, np.uint64), POW[:-1]])) * np.uint64(C)


def draw(state, count):
    out = np.empty(count, np.float16)
    for start in range(0, count, N):
        n = min(N, count - start)
        st = POW[:n] * np.uint64(state) + ADD[:n]
        state = int(st[-1])
        x = ((st >> np.uint64(40)).astype(np.float64) * (1.0 / 16777216.0)).astype(np.float32)
        out[start:start + n] = (x * np.float32(2) - np.float32(1)).astype(np.float16)
    return state, out


manifest, outdir = sys.argv[1], sys.argv[2]
state = int(sys.argv[3]) if len(sys.argv) > 3 else 42
m = json.load(open(manifest))
os.makedirs(outdir, exist_ok=True)
for i, b in enumerate(b for b in m["entries"][0]["buffers"] if b["role"] == "input"):
    assert b["dtype"] == "f16", b
    state, x = draw(state, int(np.prod(b["shape"])))
    np.save(os.path.join(outdir, f"in{i}.npy"), x.reshape(b["shape"]))
    print(f"in{i}.npy", b["shape"], flush=True)
