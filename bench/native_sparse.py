#!/usr/bin/env python3
"""Native sparse attention (NSA) on the CPU against ejk's dense causal flash
attention on the same shape and against ejKernel's XLA
native_sparse_attention, in one run (issue 19; docs/ops/native-sparse.md).

    python3 bench/native_sparse.py [--build build] [--runs 3] [--threads 2]
        [--workloads nsa-t4096-h16,...] [--ejkernel-python PY]
        [--ejkernel-runs 1] [--cpu-time]

A workload is B1, T tokens, H query heads over H/4 KV heads (GQA 4), head
dim 128, f32, NSA's blocks of 64 with top-16 selection from the compression
branch (g_cmp, g_slc) and, for "+ window", the sliding-window branch of
512 keys (g_swa). ejk's kernels run through ejk-run --bench (median of
--runs after a warm-up, EJK_NUM_THREADS = --threads, heuristic config);
ejKernel's XLA function (which has no window branch) is called as users
call it (its selected attention is jitted inside; an outer jit fails in its
top-k) and timed after one warm-up call with the same inputs in the python of --ejkernel-python (default: the
conformance venv), on every core XLA sees (after one compile). Times are
"median (min)" ms; the ratios use the minima. GFLOP/s counts 4 * keys *
head_dim per query row and branch (selected keys <= 16 * 64) plus the
compression branch, over the NSA time without window.
"""
import argparse, json, os, re, resource, subprocess, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# id: (batch, seq, heads, kv_heads, head_dim)
WORKLOADS = {
    # Small enough for ejKernel's XLA path (it gathers ~4.3 GB here).
    "nsa-t2048-h4": (1, 2048, 4, 1, 128),
    "nsa-t1024-h16": (1, 1024, 16, 4, 128),
    "nsa-t2048-h16": (1, 2048, 16, 4, 128),
    "nsa-t4096-h16": (1, 4096, 16, 4, 128),
    "nsa-t8192-h16": (1, 8192, 16, 4, 128),
}
BLOCK, TOPK, WINDOW = 64, 16, 512


def t(shape, dtype="f32"):
    return "tensor<" + "x".join(map(str, shape)) + "x" + dtype + ">"


def ir(spec, kind):
    b, s, h, hkv, d = spec
    q, kv, g = t([b, s, h, d]), t([b, s, hkv, d]), t([b, s, h])
    if kind == "dense":
        return (f"func.func @main(%q: {q}, %k: {kv}, %v: {kv}) -> {q} {{\n"
                f"  %o = ejk.flash_attention %q, %k, %v {{causal}} : {q}, {kv}, {kv} -> {q}\n"
                f"  return %o : {q}\n}}\n")
    gates = ["cmp", "slc"] + (["swa"] if kind == "window" else [])
    args = "".join(f", %g{n}: {g}" for n in gates)
    ops = "".join(f" g_{n}(%g{n} : {g})" for n in gates)
    attrs = f"block_size = {BLOCK} : i64, block_counts = {TOPK} : i64"
    if kind == "window":
        attrs += f", window_size = {WINDOW} : i64"
    return (f"func.func @main(%q: {q}, %k: {kv}, %v: {kv}{args}) -> {q} {{\n"
            f"  %o = ejk.native_sparse_attention %q, %k, %v{ops} {{{attrs}}}"
            f" : {q}, {kv}, {kv} -> {q}\n  return %o : {q}\n}}\n")


def ejk_cpu_seconds(bindir, text, runs, threads, work, name):
    """CPU seconds (user + sys) of one run: ejkc compiles the entry, then
    ejk-bench-run runs it once and `runs` + 1 times on random inputs; the
    difference of the two processes' CPU times over `runs`. On a machine
    that others load, a run's CPU time moves far less than its wall time
    (the wall time of two threads is about half of it when they get both
    cores)."""
    path = os.path.join(work, name + "_cpu.mlir")
    open(path, "w").write(text)
    art = os.path.join(work, name + "_art")
    subprocess.run([os.path.join(bindir, "ejkc"), path, "-o", art],
                   check=True, capture_output=True)
    manifest = os.path.join(art, name + "_cpu.json")
    env = dict(os.environ, EJK_NUM_THREADS=str(threads))
    spent = []
    for n in (1, runs + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([os.path.join(bindir, "ejk-bench-run"), manifest,
                        "--runs", str(n), "--warmup", "0"], check=True,
                       capture_output=True, env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent.append(after.ru_utime + after.ru_stime - before.ru_utime -
                     before.ru_stime)
    return (spent[1] - spent[0]) / runs


def ejk_time(bindir, text, inputs, runs, threads, work, name):
    path = os.path.join(work, name + ".mlir")
    open(path, "w").write(text)
    argv = [os.path.join(bindir, "ejk-run"), path, "--entry", "main",
            "--bench", str(runs)]
    for i, a in enumerate(inputs):
        p = os.path.join(work, f"{name}{i}.npy")
        np.save(p, a)
        argv += ["--input", p]
    env = dict(os.environ, EJK_NUM_THREADS=str(threads))
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    m = re.search(r"median ([0-9.]+) ms, min ([0-9.]+) ms", r.stdout + r.stderr)
    if not m:
        raise RuntimeError("ejk-run failed: " + (r.stderr or r.stdout)[-800:])
    return float(m.group(1)), float(m.group(2))


EJKERNEL = r'''
import json, os, sys, time
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ["EJKERNEL_AUTOTUNE_POLICY"] = "heuristics"
import numpy as np, jax, jax.numpy as jnp
from ejkernel.kernels._xla.native_sparse_attention import native_sparse_attention
work, runs, block, topk = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
a = [jnp.asarray(np.load(os.path.join(work, f"nsa{i}.npy"))) for i in range(5)]
# Called as users call it: not under an outer jit, which its top-k cannot
# take (it asks a traced array for its device); the selected attention
# inside is jitted by ejKernel (ejit), the compression and top-k run as
# XLA ops one by one.
f = lambda q, k, v, gc, gs: native_sparse_attention(
    q, k, v, g_cmp=gc, g_slc=gs, block_counts=topk, block_size=block)
try:
    t0 = time.perf_counter(); f(*a).block_until_ready(); first = time.perf_counter() - t0
    times = []
    for _ in range(runs):
        t0 = time.perf_counter(); f(*a).block_until_ready()
        times.append(time.perf_counter() - t0)
    print(json.dumps({"ms": 1e3 * sorted(times)[len(times) // 2],
                      "first_ms": 1e3 * first}))
except Exception as e:  # out of memory: say so in the table
    print(json.dumps({"error": type(e).__name__ + ": " + str(e)[:200]}))
'''


def ejkernel_time(python, work, runs, memory_gib):
    # An optional cap on the address space (XLA's CPU client reserves much
    # more than it touches: 16 GiB already fails nsa-t2048-h4).
    cap = f"ulimit -v {memory_gib * 1024 * 1024}; " if memory_gib else ""
    r = subprocess.run(["bash", "-c", cap + 'exec "$0" -c "$1" "$2" "$3" "$4" "$5"',
                        python, EJKERNEL, work, str(runs), str(BLOCK),
                        str(TOPK)], capture_output=True, text=True)
    lines = [l for l in r.stdout.splitlines() if l.startswith("{")]
    if not lines:
        return None, (r.stderr or r.stdout)[-300:].strip()
    out = json.loads(lines[-1])
    return out.get("ms"), out.get("error")


def flops(spec, window):
    b, s, h, hkv, d = spec
    rows = np.arange(s)
    blocks = np.minimum(TOPK, rows // BLOCK + 1)
    keys = np.minimum(blocks * BLOCK, rows + 1).sum()
    if window:
        keys += np.minimum(WINDOW, rows + 1).sum()
    compression = (rows // BLOCK + 1).sum()
    return 4 * b * h * d * (int(keys) + int(compression))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workloads", default="nsa-t4096-h16")
    ap.add_argument("--ejkernel-python", default=os.path.join(
        ROOT, ".venv-conformance", "bin", "python"))
    ap.add_argument("--ejkernel-runs", type=int, default=1)
    ap.add_argument("--ejkernel-memory-gib", type=int, default=0,
                    help="address-space cap of the ejKernel process (0: "
                         "none; XLA's CPU client fails under a tight one)")
    ap.add_argument("--ejkernel-max-gather-gib", type=float, default=8.0,
                    help="skip ejKernel where its gathered blocks alone "
                         "would take more")
    ap.add_argument("--cpu-time", action="store_true",
                    help="report CPU seconds per run of ejk's three kernels "
                         "instead (no ejKernel)")
    args = ap.parse_args()
    bindir = os.path.join(args.build, "bin")
    rng = np.random.default_rng(0)
    if args.cpu_time:
        print("| workload | dense causal CPU s | NSA CPU s | NSA + window "
              "CPU s | NSA / dense | NSA + window / dense |")
        print("| --- | --- | --- | --- | --- | --- |")
        with tempfile.TemporaryDirectory() as work:
            for wid in args.workloads.split(","):
                spec = WORKLOADS[wid]
                t = {k: ejk_cpu_seconds(bindir, ir(spec, k), args.runs,
                                        args.threads, work, k)
                     for k in ("dense", "nsa", "window")}
                print(f"| {wid} | {t['dense']:.2f} | {t['nsa']:.2f} | "
                      f"{t['window']:.2f} | {t['nsa'] / t['dense']:.2f} | "
                      f"{t['window'] / t['dense']:.2f} |", flush=True)
        return
    print("| workload | ejk dense causal ms | ejk NSA ms | ejk NSA + window "
          "ms | ejKernel XLA NSA ms | NSA / dense | NSA / ejKernel | NSA "
          "GFLOP/s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as work:
        for wid in args.workloads.split(","):
            spec = WORKLOADS[wid]
            b, s, h, hkv, d = spec
            q = rng.standard_normal((b, s, h, d), dtype=np.float32)
            k, v = (rng.standard_normal((b, s, hkv, d), dtype=np.float32)
                    for _ in range(2))
            gc, gs, gw = (rng.random((b, s, h), dtype=np.float32)
                          for _ in range(3))
            dense = ejk_time(bindir, ir(spec, "dense"), [q, k, v], args.runs,
                             args.threads, work, "dense")
            nsa = ejk_time(bindir, ir(spec, "nsa"), [q, k, v, gc, gs],
                           args.runs, args.threads, work, "nsa")
            win = ejk_time(bindir, ir(spec, "window"), [q, k, v, gc, gs, gw],
                           args.runs, args.threads, work, "win")
            # ejKernel's selected attention gathers k blocks of every
            # token and head: [B, H, T, k * 64, D] f32, for K and for V.
            gather = 2 * b * h * s * min(TOPK, -(-s // BLOCK)) * BLOCK * d * 4
            if gather > args.ejkernel_max_gather_gib * 2**30:
                ref, err = None, f"not run: gathers {gather / 2**30:.0f} GiB"
            else:
                for i, a in enumerate([q, k, v, gc, gs]):
                    np.save(os.path.join(work, f"nsa{i}.npy"), a)
                ref, err = ejkernel_time(args.ejkernel_python, work,
                                         args.ejkernel_runs,
                                         args.ejkernel_memory_gib)
            ref_text = f"{ref:.0f}" if ref else f"- ({err})"
            # Ratios of the minima: on a shared machine the fastest run is
            # the one least disturbed.
            ratio = f"{nsa[1] / ref:.4f}" if ref else "-"
            ms = lambda t: f"{t[0]:.0f} ({t[1]:.0f})"
            print(f"| {wid} | {ms(dense)} | {ms(nsa)} | {ms(win)} | "
                  f"{ref_text} | {nsa[1] / dense[1]:.2f} | {ratio} | "
                  f"{flops(spec, False) / nsa[1] / 1e6:.1f} |", flush=True)


if __name__ == "__main__":
    main()
