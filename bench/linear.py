#!/usr/bin/env python3
"""Gated linear attention and the gated delta rule on the CPU: ejk against
ejKernel's XLA path, PyTorch chunked references (and, for the delta rule, a
numpy chunked reference) and the machine's FMA peak, in one run (docs/ops/linear.md and
docs/ops/delta.md, "Speed").

    python3 bench/linear.py [--build build] [--runs 10] [--threads 2]
                            [--workloads gla-t4096,...] [--peer-runs 3]

Each workload is drawn once (numpy, seed 0) and written as .npy: q, k, v
N(0, 1), gates g = logsigmoid(N(0, 1)) / 16 (fla's benchmark gates). ejk
runs `ejk-run --bench` on them (the kernel's time as the runtime measures
it, median of --runs); ejKernel's `gla_attention` (XLA, jit, the recurrent
scan) runs in .venv-conformance on the same arrays (median of --peer-runs
after one warm-up); `ejk-cpu-peak THREADS` measures the FMA peak before and
after. GFLOP/s counts the chunked algorithm's matmul work with the
heuristic's chunk of 64 (include/ejk/Ops/Linear/Problem.h, glaFlops):
  steps * heads * (4 K V + (chunk + 1) (K + V)).

The delta workloads (delta-*) draw q, k, v N(0, 1), beta = sigmoid(N(0, 1))
and per-head (or per-key, -kda) log decays logsigmoid(N(0, 1)) / 16, run
ejk.delta_attention (l2 norm on, ejKernel's default), ejKernel's
gated_delta_rule (XLA, jit, its chunked triangular solve) and a numpy
chunked reference (the same per-chunk UT transform with numpy's BLAS, f32,
chunks of 64: batched matmuls and np.linalg.solve; per-head decay only).
GFLOP/s counts the delta kernel's chunked work
(include/ejk/Ops/Linear/DeltaProblem.h, deltaFlops):
  steps * heads * (6 K V + (chunk + 1) 2 (K + V)).

PyTorch chunked references (bench/.venv from bench/setup.sh: torch, and
fla-core 0.6.0 without its Triton dependencies): for gla a chunk form
written here (TORCH_GLA_CHUNKED; fla ships no chunked PyTorch gla with
per-key gates; for the ungated workloads also fla's own
`naive_chunk_simple_gla` with a zero decay), for the delta rule fla's own
`naive_chunk_gated_delta_rule` (per-key decay: `naive_chunk_kda`) after the
l2 norm; each one's largest difference from ejk's output is reported beside
its time.

Threads: ejk gets EJK_NUM_THREADS = --threads; XLA, numpy and PyTorch run
pinned (taskset) to as many cores (PyTorch also torch.set_num_threads).
"""
import argparse, json, os, re, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# id: (batch, seq, heads, K, V, gated)
WORKLOADS = {
    "gla-t4096": (1, 4096, 16, 128, 128, True),
    "gla-t4096-ungated": (1, 4096, 16, 128, 128, False),
    "gla-b4-t1024": (4, 1024, 16, 128, 128, True),
}
CHUNK = 64

# id: (batch, seq, heads, K, V, decay: None, "head" or "key")
DELTA_WORKLOADS = {
    "delta-t4096": (1, 4096, 16, 128, 128, "head"),
    "delta-t4096-kda": (1, 4096, 16, 128, 128, "key"),
    "delta-t4096-no-decay": (1, 4096, 16, 128, 128, None),
}


def tensor(shape, dtype="f32"):
    return "tensor<" + "x".join(map(str, shape)) + f"x{dtype}>"


def arrays(spec):
    b, t, h, k, v, gated = spec
    rng = np.random.default_rng(0)
    n = lambda *s: rng.standard_normal(s, dtype=np.float32)
    arrs = [n(b, t, h, k), n(b, t, h, k), n(b, t, h, v)]
    if gated:
        arrs.append((-np.logaddexp(0, -n(b, t, h, k)) / 16).astype(np.float32))
    return arrs


def gla_ir(spec):
    b, t, h, k, v, gated = spec
    q, o = tensor((b, t, h, k)), tensor((b, t, h, v))
    vt = tensor((b, t, h, v))
    g = f" g(%g : {q})" if gated else ""
    garg = f", %g: {q}" if gated else ""
    return (f"func.func @main(%q: {q}, %k: {q}, %v: {vt}{garg}) -> {o} {{\n"
            f"  %o = ejk.gla %q, %k, %v{g} : {q}, {q}, {vt} -> {o}\n"
            f"  return %o : {o}\n}}\n")


def flops(spec):
    b, t, h, k, v, _ = spec
    return b * t * h * (4 * k * v + (CHUNK + 1) * (k + v))


def delta_arrays(spec):
    b, t, h, k, v, decay = spec
    rng = np.random.default_rng(0)
    n = lambda *s: rng.standard_normal(s, dtype=np.float32)
    arrs = [n(b, t, h, k), n(b, t, h, k), n(b, t, h, v),
            (1 / (1 + np.exp(-n(b, t, h)))).astype(np.float32)]
    if decay:
        shape = (b, t, h, k) if decay == "key" else (b, t, h)
        arrs.append((-np.logaddexp(0, -n(*shape)) / 16).astype(np.float32))
    return arrs


def delta_ir(spec):
    b, t, h, k, v, decay = spec
    q, o = tensor((b, t, h, k)), tensor((b, t, h, v))
    beta = tensor((b, t, h))
    gtype = q if decay == "key" else beta
    g = f" decay(%g : {gtype})" if decay else ""
    garg = f", %g: {gtype}" if decay else ""
    return (f"func.func @main(%q: {q}, %k: {q}, %v: {o}, %beta: {beta}{garg})"
            f" -> {o} {{\n"
            f"  %o = ejk.delta_attention %q, %k, %v, %beta{g} : {q}, {q}, {o},"
            f" {beta} -> {o}\n"
            f"  return %o : {o}\n}}\n")


def delta_flops(spec):
    b, t, h, k, v, _ = spec
    return b * t * h * (6 * k * v + (CHUNK + 1) * 2 * (k + v))


def ejk_time(bindir, ir, inputs, runs, threads, work):
    path = os.path.join(work, "entry.mlir")
    open(path, "w").write(ir)
    argv = [os.path.join(bindir, "ejk-run"), path, "--entry", "main",
            "--bench", str(runs)]
    for i, a in enumerate(inputs):
        p = os.path.join(work, f"in{i}.npy")
        np.save(p, a)
        argv += ["--input", p]
    env = dict(os.environ, EJK_NUM_THREADS=str(threads))
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    m = re.search(r"median ([0-9.]+) ms, min ([0-9.]+) ms", r.stdout + r.stderr)
    if not m:
        raise RuntimeError("ejk-run failed: " + (r.stderr or r.stdout)[-500:])
    return float(m.group(1)), float(m.group(2))


PEER = r'''
import json, sys, time, os
import numpy as np, jax
jax.config.update("jax_platforms", "cpu")
from ejkernel.modules.operations import gla_attention
d = sys.argv[1]; runs = int(sys.argv[2]); n = int(sys.argv[3])
arrs = [jax.numpy.asarray(np.load(os.path.join(d, f"in{i}.npy"))) for i in range(n)]
q, k, v = arrs[:3]
g = arrs[3] if n > 3 else None
f = jax.jit(lambda q, k, v, g: gla_attention(q, k, v, g, platform="xla"))
f(q, k, v, g).block_until_ready()
times = []
for _ in range(runs):
    t = time.perf_counter(); f(q, k, v, g).block_until_ready()
    times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3}))
'''


DELTA_PEER = r'''
import json, sys, time, os
import numpy as np, jax
jax.config.update("jax_platforms", "cpu")
from ejkernel.modules.operations import gated_delta_rule
d = sys.argv[1]; runs = int(sys.argv[2]); n = int(sys.argv[3])
arrs = [jax.numpy.asarray(np.load(os.path.join(d, f"in{i}.npy"))) for i in range(n)]
q, k, v, beta = arrs[:4]
g = arrs[4] if n > 4 else None
f = jax.jit(lambda q, k, v, beta, g: gated_delta_rule(q, k, v, beta, g,
                                                      platform="xla"))
f(q, k, v, beta, g).block_until_ready()
times = []
for _ in range(runs):
    t = time.perf_counter(); f(q, k, v, beta, g).block_until_ready()
    times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3}))
'''

# The chunked algorithm in numpy (f32, all heads of a chunk batched): the
# per-chunk UT transform (I + A) U = diag(b) (V - K~ S) solved with
# np.linalg.solve, then O = Q~ S + P U and the decayed state update.
NUMPY_CHUNKED = r'''
import json, sys, time, os
import numpy as np
d = sys.argv[1]; runs = int(sys.argv[2]); n = int(sys.argv[3])
arrs = [np.load(os.path.join(d, f"in{i}.npy")) for i in range(n)]
q, k, v, beta = (a[0].transpose(1, 0, *range(2, a.ndim - 1)) for a in arrs[:4])
g = arrs[4][0].T if n > 4 else np.zeros(beta.shape, np.float32)
H, T, K = q.shape; V = v.shape[2]; C = 64
def run():
    qn = q / np.sqrt((q * q).sum(-1, keepdims=True) + 1e-6) / np.float32(np.sqrt(K))
    kn = k / np.sqrt((k * k).sum(-1, keepdims=True) + 1e-6)
    S = np.zeros((H, K, V), np.float32)
    out = np.empty((H, T, V), np.float32)
    eye = np.eye(C, dtype=np.float32)
    for c0 in range(0, T, C):
        Q, Kc, Vc, b = qn[:, c0:c0+C], kn[:, c0:c0+C], v[:, c0:c0+C], beta[:, c0:c0+C]
        L = Q.shape[1]
        B = np.cumsum(g[:, c0:c0+C], axis=1)
        ratio = np.exp(np.minimum(B[:, :, None] - B[:, None, :], 0))
        lower = np.tril(np.ones((L, L), np.float32), -1)
        A = b[:, :, None] * (Kc @ Kc.transpose(0, 2, 1)) * ratio * lower
        rhs = b[:, :, None] * (Vc - (Kc * np.exp(B)[:, :, None]) @ S)
        U = np.linalg.solve(eye[:L, :L] + A, rhs)
        P = (Q @ Kc.transpose(0, 2, 1)) * ratio * np.tril(np.ones((L, L), np.float32))
        out[:, c0:c0+L] = (Q * np.exp(B)[:, :, None]) @ S + P @ U
        last = B[:, -1]
        S = np.exp(last)[:, None, None] * S + (Kc * np.exp(last[:, None] - B)[:, :, None]).transpose(0, 2, 1) @ U
    return out
o = run()
np.save(os.path.join(d, "numpy_out.npy"), o.transpose(1, 0, 2)[None])
times = []
for _ in range(runs):
    t = time.perf_counter(); run(); times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3}))
'''


# PyTorch chunked references (bench/.venv, bench/setup.sh's torch and fla
# peers), each writing its output for the comparison with ejk's. gla: the
# chunk form written here (fla ships no chunked PyTorch gla with per-key
# gates): gates cumulated from the chunk start, q and k rescaled by them,
# the chunk's scores masked, the state passed between chunks. The delta
# rule: fla 0.6.0's own `naive_chunk_gated_delta_rule` (its PyTorch chunked
# reference, loaded from the installed package's file without importing
# fla, whose package imports Triton), after the l2 norm ejk applies.
TORCH_GLA_CHUNKED = r"""
import json, sys, time, os
import numpy as np, torch
d = sys.argv[1]; runs = int(sys.argv[2]); n = int(sys.argv[3])
torch.set_num_threads(int(sys.argv[4]))
arrs = [torch.from_numpy(np.load(os.path.join(d, f"in{i}.npy"))) for i in range(n)]
# [B, T, H, D] -> [B H, T, D]: every (sequence, head) its own scan.
B = arrs[0].shape[0]
flat = lambda a: a.permute(0, 2, 1, 3).reshape(-1, a.shape[1], a.shape[3]).contiguous()
q, k, v = (flat(a) for a in arrs[:3])
g = flat(arrs[3]) if n > 3 else torch.zeros_like(q)
H, T, K = q.shape; V = v.shape[2]; C = 64
def run():
    S = q.new_zeros(H, K, V)
    out = torch.empty(H, T, V)
    causal = torch.ones(C, C, dtype=torch.bool).tril()
    for c0 in range(0, T, C):
        Q, Kc, Vc = q[:, c0:c0+C] * K ** -0.5, k[:, c0:c0+C], v[:, c0:c0+C]
        L = Q.shape[1]
        G = g[:, c0:c0+C].cumsum(1)
        Qg, Kg = Q * G.exp(), Kc * (-G).exp()
        A = (Qg @ Kg.transpose(1, 2)).masked_fill(~causal[:L, :L], 0)
        out[:, c0:c0+L] = Qg @ S + A @ Vc
        last = G[:, -1:]
        S = last.transpose(1, 2).exp() * S + (Kc * (last - G).exp()).transpose(1, 2) @ Vc
    return out
with torch.no_grad():
    o = run()
    o = o.reshape(B, -1, T, V).permute(0, 2, 1, 3)
    np.save(os.path.join(d, "torch_out.npy"), o.contiguous().numpy())
    times = []
    for _ in range(runs):
        t = time.perf_counter(); run(); times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3}))
"""

TORCH_DELTA_CHUNKED = r"""
import importlib.util, json, sys, time, os
import numpy as np, torch
spec = importlib.util.find_spec("fla")
if spec is None:
    sys.exit("fla (fla-core 0.6.0) is not installed in this venv: bench/setup.sh")
d = sys.argv[1]; runs = int(sys.argv[2]); n = int(sys.argv[3])
torch.set_num_threads(int(sys.argv[4]))
arrs = [torch.from_numpy(np.load(os.path.join(d, f"in{i}.npy"))) for i in range(n)]
q, k, v, beta = arrs[:4]
g = arrs[4] if n > 4 else torch.zeros_like(beta)
# A decay per key dim is Kimi's delta attention: fla's naive_chunk_kda.
per_key = g.dim() == 4
name, fn = (("kda", "naive_chunk_kda") if per_key else
            ("gated_delta_rule", "naive_chunk_gated_delta_rule"))
path = os.path.join(os.path.dirname(spec.origin), "ops", name, "naive.py")
mod_spec = importlib.util.spec_from_file_location("fla_naive_" + name, path)
naive = importlib.util.module_from_spec(mod_spec); mod_spec.loader.exec_module(naive)
def run():
    qn = q / (q * q).sum(-1, keepdim=True).add(1e-6).sqrt()
    kn = k / (k * k).sum(-1, keepdim=True).add(1e-6).sqrt()
    return getattr(naive, fn)(qn, kn, v, g, beta, chunk_size=64)[0]
with torch.no_grad():
    o = run()
    np.save(os.path.join(d, "torch_out.npy"), o.numpy())
    times = []
    for _ in range(runs):
        t = time.perf_counter(); run(); times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3}))
"""

# fla 0.6.0's naive_chunk_simple_gla (its PyTorch chunked reference of a
# decay per head) with a zero decay: the ungated gla workloads' second
# PyTorch reference.
FLA_SIMPLE_GLA_CHUNKED = r"""
import importlib.util, json, sys, time, os
import numpy as np, torch
spec = importlib.util.find_spec("fla")
if spec is None:
    sys.exit("fla (fla-core 0.6.0) is not installed in this venv: bench/setup.sh")
path = os.path.join(os.path.dirname(spec.origin), "ops", "simple_gla", "naive.py")
mod_spec = importlib.util.spec_from_file_location("fla_naive_simple_gla", path)
naive = importlib.util.module_from_spec(mod_spec); mod_spec.loader.exec_module(naive)
d = sys.argv[1]; runs = int(sys.argv[2]); n = int(sys.argv[3])
torch.set_num_threads(int(sys.argv[4]))
q, k, v = (torch.from_numpy(np.load(os.path.join(d, f"in{i}.npy"))) for i in range(3))
g = torch.zeros(q.shape[:3])
run = lambda: naive.naive_chunk_simple_gla(q, k, v, g, chunk_size=64)[0]
with torch.no_grad():
    np.save(os.path.join(d, "torch_out.npy"), run().numpy())
    times = []
    for _ in range(runs):
        t = time.perf_counter(); run(); times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3}))
"""

TORCH_PYTHON = os.path.join(ROOT, "bench", ".venv", "bin", "python")


def ejk_output(bindir, work, n, threads):
    """ejk's output on the inputs of `work` (for the references' check)."""
    out = os.path.join(work, "ejk_out.npy")
    if not os.path.exists(out):
        subprocess.run([os.path.join(bindir, "ejk-run"),
                        os.path.join(work, "entry.mlir"), "--entry", "main"]
                       + sum([["--input", os.path.join(work, f"in{i}.npy")]
                              for i in range(n)], [])
                       + ["--output", out], capture_output=True,
                       env=dict(os.environ, EJK_NUM_THREADS=str(threads)))
    return np.load(out) if os.path.exists(out) else None


def torch_peer(work, runs, threads, n, script, bindir):
    """A PyTorch chunked reference's time and its largest difference from
    ejk's output; None without bench/.venv."""
    p = peer_time(work, runs, threads, n, script, TORCH_PYTHON,
                  extra_args=[str(threads)])
    ref = os.path.join(work, "torch_out.npy")
    mine = ejk_output(bindir, work, n, threads)
    if p and "median_ms" in p and os.path.exists(ref) and mine is not None:
        p["max_abs_diff_vs_ejk"] = float(np.abs(mine - np.load(ref)).max())
    return p


def peer_time(work, runs, threads, n, script=PEER, python=None,
              extra_args=()):
    # ejKernel's venv: the conformance suite's, else the benchmark's.
    python = python or next(
        (p for p in (os.path.join(ROOT, ".venv-conformance", "bin", "python"),
                     TORCH_PYTHON) if os.path.exists(p)), None)
    if not python or not os.path.exists(python):
        return None
    env = dict(os.environ, EJKERNEL_AUTOTUNE_POLICY="heuristics",
               OMP_NUM_THREADS=str(threads),
               OPENBLAS_NUM_THREADS=str(threads))
    r = subprocess.run(["taskset", "-c", ",".join(map(str, range(threads))),
                        python, "-c", script, work, str(runs), str(n),
                        *extra_args],
                       capture_output=True, text=True, env=env)
    if r.returncode:
        return {"error": r.stderr.strip().splitlines()[-1][:200]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def fma_peak(bindir, threads):
    r = subprocess.run([os.path.join(bindir, "ejk-cpu-peak"), str(threads)],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["fma_gflops"]


def delta_row(wid, args, bindir):
    spec = DELTA_WORKLOADS[wid]
    arrs = delta_arrays(spec)
    b, t, h, k, v, decay = spec
    with tempfile.TemporaryDirectory() as work:
        med, mn = ejk_time(bindir, delta_ir(spec), arrs, args.runs,
                           args.threads, work)
        peer = numpy_peer = torch_ref = None
        if not args.no_peer:
            torch_ref = torch_peer(work, args.peer_runs, args.threads,
                                   len(arrs), TORCH_DELTA_CHUNKED, bindir)
        if not args.no_peer and decay != "key":
            peer = peer_time(work, args.peer_runs, args.threads, len(arrs),
                             DELTA_PEER)
            numpy_peer = peer_time(work, args.peer_runs, args.threads,
                                   len(arrs), NUMPY_CHUNKED)
            # The numpy reference checks itself against ejk's output.
            mine = ejk_output(bindir, work, len(arrs), args.threads)
            ref = os.path.join(work, "numpy_out.npy")
            if mine is not None and os.path.exists(ref) and numpy_peer:
                numpy_peer["max_abs_diff_vs_ejk"] = float(
                    np.abs(mine - np.load(ref)).max())
    row = {"workload": wid, "shape": dict(B=b, T=t, H=h, K=k, V=v,
                                          decay=decay),
           "gflop": delta_flops(spec) / 1e9, "ejk_median_ms": med,
           "ejk_min_ms": mn,
           "ejk_gflops": delta_flops(spec) / (med * 1e-3) / 1e9}
    for name, p in (("ejkernel_xla", peer), ("numpy_chunked", numpy_peer),
                    ("torch_chunked", torch_ref)):
        if p and "median_ms" in p:
            row[name + "_median_ms"] = p["median_ms"]
            row["speedup_vs_" + name] = p["median_ms"] / med
            if "max_abs_diff_vs_ejk" in p:
                row[name + "_max_abs_diff_vs_ejk"] = p["max_abs_diff_vs_ejk"]
        elif p:
            row[name + "_error"] = p["error"]
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--peer-runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workloads",
                    default=",".join(list(WORKLOADS) + list(DELTA_WORKLOADS)))
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()
    bindir = os.path.join(args.build, "bin")
    before = fma_peak(bindir, args.threads)
    rows = []
    for wid in args.workloads.split(","):
        if wid in DELTA_WORKLOADS:
            rows.append(delta_row(wid, args, bindir))
            print(json.dumps(rows[-1]), flush=True)
            continue
        spec = WORKLOADS[wid]
        arrs = arrays(spec)
        with tempfile.TemporaryDirectory() as work:
            med, mn = ejk_time(bindir, gla_ir(spec), arrs, args.runs,
                               args.threads, work)
            peer = (None if args.no_peer else
                    peer_time(work, args.peer_runs, args.threads, len(arrs)))
            torch_ref = (None if args.no_peer else
                         torch_peer(work, args.peer_runs, args.threads,
                                    len(arrs), TORCH_GLA_CHUNKED, bindir))
            fla_ref = (None if args.no_peer or spec[5] else
                       torch_peer(work, args.peer_runs, args.threads,
                                  len(arrs), FLA_SIMPLE_GLA_CHUNKED, bindir))
        b, t, h, k, v, gated = spec
        row = {"workload": wid, "shape": dict(B=b, T=t, H=h, K=k, V=v,
                                              gated=gated),
               "gflop": flops(spec) / 1e9, "ejk_median_ms": med,
               "ejk_min_ms": mn, "ejk_gflops": flops(spec) / (med * 1e-3) / 1e9}
        if peer and "median_ms" in peer:
            row["ejkernel_xla_median_ms"] = peer["median_ms"]
            row["speedup_vs_ejkernel"] = peer["median_ms"] / med
        elif peer:
            row["ejkernel_xla_error"] = peer["error"]
        if torch_ref and "median_ms" in torch_ref:
            row["torch_chunked_median_ms"] = torch_ref["median_ms"]
            row["speedup_vs_torch_chunked"] = torch_ref["median_ms"] / med
            if "max_abs_diff_vs_ejk" in torch_ref:
                row["torch_chunked_max_abs_diff_vs_ejk"] = \
                    torch_ref["max_abs_diff_vs_ejk"]
        elif torch_ref:
            row["torch_chunked_error"] = torch_ref["error"]
        if fla_ref and "median_ms" in fla_ref:
            row["fla_naive_chunk_median_ms"] = fla_ref["median_ms"]
            row["speedup_vs_fla_naive_chunk"] = fla_ref["median_ms"] / med
            row["fla_naive_chunk_max_abs_diff_vs_ejk"] = fla_ref.get(
                "max_abs_diff_vs_ejk")
        elif fla_ref:
            row["fla_naive_chunk_error"] = fla_ref["error"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    after = fma_peak(bindir, args.threads)
    for row in rows:
        row["pct_of_fma_peak"] = 100 * row["ejk_gflops"] / max(before, after)
    print(json.dumps({"fma_gflops_before": before, "fma_gflops_after": after,
                      "threads": args.threads, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
