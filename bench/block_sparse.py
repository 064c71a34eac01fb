#!/usr/bin/env python3
"""Block-sparse attention on the CPU against ejk's dense flash attention on
the same shape, in one run (issue 19's CPU bar: <= 0.35x dense's time at
25 % density; docs/ops/attention.md, "Block-sparse attention").

    python3 bench/block_sparse.py [--build build] [--runs 5] [--threads 2]
                                  [--workloads sparse-fa-d128,...]
                                  [--density 0.25] [--backward]

sparse-fa-d128 is fa-d128 (B1 S2048 H16 D128, f32, not causal) with a
random block mask of blocks of 128 (16 x 16 blocks, one mask for every
head, exactly `density` of the blocks live, drawn with a fixed seed): the
CPU counterpart of gsparse (WORKLOADS.md). GFLOP/s counts the live blocks'
matmuls only (2 x 128 x 128 x 2 D each, per head). Both kernels run through
ejk-run --bench (median of --runs after a warm-up) with EJK_NUM_THREADS =
--threads and the heuristic config.

--backward times the backward instead: ejk.block_sparse_attention_grad
against ejk.flash_attention_grad on the same shape (each op alone, on
random o, dO and lse: the work does not depend on their values); GFLOP/s
counts the live blocks' five backward matmuls (2.5 x the forward's).
"""
import argparse, os, re, subprocess, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# id: (batch, seq, heads, head_dim, block)
WORKLOADS = {
    "sparse-fa-d128": (1, 2048, 16, 128, 128),
    "sparse-fa-d64": (1, 2048, 16, 64, 128),
}


def t(shape, dtype="f32"):
    return "tensor<" + "x".join(map(str, shape)) + "x" + dtype + ">"


def ir(spec, sparse):
    b, s, h, d, blk = spec
    q = t([b, s, h, d])
    if not sparse:
        return (f"func.func @main(%q: {q}, %k: {q}, %v: {q}) -> {q} {{\n"
                f"  %o = ejk.flash_attention %q, %k, %v : {q}, {q}, {q} -> {q}\n"
                f"  return %o : {q}\n}}\n")
    n = s // blk
    m = t([1, 1, n, n], "i1")
    return (f"func.func @main(%q: {q}, %k: {q}, %v: {q}, %bm: {m}) -> {q} {{\n"
            f"  %o = ejk.block_sparse_attention %q, %k, %v, %bm "
            f"{{q_block_size = {blk} : i64, kv_block_size = {blk} : i64, "
            f"causal = false}} : {q}, {q}, {q}, {m} -> {q}\n"
            f"  return %o : {q}\n}}\n")


def grad_ir(spec, sparse):
    b, s, h, d, blk = spec
    q = t([b, s, h, d])
    lse = t([b, h, s])
    ins = f"%q: {q}, %k: {q}, %v: {q}, %o: {q}, %do: {q}, %lse: {lse}"
    outs = f"{q}, {q}, {q}"
    types = f"{q}, {q}, {q}, {q}, {q}, {lse}"
    if not sparse:
        return (f"func.func @main({ins}) -> ({outs}) {{\n"
                f"  %dq, %dk, %dv = ejk.flash_attention_grad %q, %k, %v, %o, "
                f"%do, %lse : {types} -> {outs}\n"
                f"  return %dq, %dk, %dv : {outs}\n}}\n")
    n = s // blk
    m = t([1, 1, n, n], "i1")
    return (f"func.func @main({ins}, %bm: {m}) -> ({outs}) {{\n"
            f"  %dq, %dk, %dv = ejk.block_sparse_attention_grad %q, %k, %v, "
            f"%o, %do, %lse, %bm {{q_block_size = {blk} : i64, "
            f"kv_block_size = {blk} : i64, causal = false}} : {types}, {m} "
            f"-> {outs}\n"
            f"  return %dq, %dk, %dv : {outs}\n}}\n")


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--density", type=float, default=0.25)
    ap.add_argument("--workloads", default="sparse-fa-d128")
    ap.add_argument("--backward", action="store_true",
                    help="time the backwards (block_sparse_attention_grad "
                         "against flash_attention_grad)")
    args = ap.parse_args()
    bindir = os.path.join(args.build, "bin")
    rng = np.random.default_rng(0)
    print("| workload%s | density | dense ms | sparse ms | sparse/dense | "
          "sparse GFLOP/s |" % (" (backward)" if args.backward else ""))
    print("| --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as work:
        for wid in args.workloads.split(","):
            spec = WORKLOADS[wid]
            b, s, h, d, blk = spec
            q, k, v = (rng.standard_normal((b, s, h, d), dtype=np.float32)
                       for _ in range(3))
            n = s // blk
            live = int(round(args.density * n * n))
            flat = np.zeros(n * n, dtype=bool)
            flat[rng.choice(n * n, live, replace=False)] = True
            bm = flat.reshape(1, 1, n, n)
            if args.backward:
                o, do = (rng.standard_normal((b, s, h, d), dtype=np.float32)
                         for _ in range(2))
                lse = (rng.standard_normal((b, h, s), dtype=np.float32) +
                       np.float32(np.log(s)))
                dense, _ = ejk_time(bindir, grad_ir(spec, False),
                                    [q, k, v, o, do, lse], args.runs,
                                    args.threads, work, "dense")
                sparse, _ = ejk_time(bindir, grad_ir(spec, True),
                                     [q, k, v, o, do, lse, bm], args.runs,
                                     args.threads, work, "sparse")
                flops = 2 * b * h * live * blk * blk * 2 * d * 5 // 2
            else:
                dense, _ = ejk_time(bindir, ir(spec, False), [q, k, v],
                                    args.runs, args.threads, work, "dense")
                sparse, _ = ejk_time(bindir, ir(spec, True), [q, k, v, bm],
                                     args.runs, args.threads, work, "sparse")
                flops = 2 * b * h * live * blk * blk * 2 * d
            print(f"| {wid} | {live / (n * n):.3f} | {dense:.1f} | "
                  f"{sparse:.1f} | {sparse / dense:.3f} | "
                  f"{flops / sparse / 1e6:.1f} |")


if __name__ == "__main__":
    main()
