#!/usr/bin/env python3
"""MLA decode on the CPU: ejk.paged_mla against ejKernel's XLA
multi_latent_ragged_page_attention and the machine's read bandwidth, in one
run (docs/ops/latent.md, "Speed").

    python3 bench/mla.py [--build build] [--runs 3] [--threads 2]
                         [--workloads mla-deepseek-v3,...] [--no-peer]

mla-deepseek-v3 is DeepSeek-V3's decode (issue 19): batch 32, one new token
per sequence, 128 heads, latent 512, RoPE 64, 4096 cached tokens per
sequence in pages of 64 (bf16; shuffled block tables), softmax scale
1/sqrt(192). GB/s counts the compulsory traffic: every sequence's cache
once (B x 4096 x 576 x 2 bytes = 151 MB), plus queries and outputs.
GFLOP/s counts 2 x H x (2 x 512 + 64) per (query, token). The workload is
compute-bound on a CPU (about 240 FLOPs per cache byte), so the read
bandwidth of `ejk-cpu-peak THREADS 512` is a ceiling it cannot reach; the
row reports both. ejKernel runs in .venv-conformance (jit, median of --runs
after a warm-up) on the same arrays, in its cache layout.

Threads: ejk gets EJK_NUM_THREADS = --threads; XLA runs pinned (taskset)
to as many cores.
"""
import argparse, json, os, re, subprocess, sys, tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# id: (batch, heads, latent, rope, context, page, dtype)
WORKLOADS = {
    "mla-deepseek-v3": (32, 128, 512, 64, 4096, 64, "bf16"),
    "mla-deepseek-v3-b4": (4, 128, 512, 64, 4096, 64, "bf16"),
    "mla-16h": (32, 16, 512, 64, 4096, 64, "bf16"),
}
SCALE = 1.0 / np.sqrt(192.0)


def bf16_bits(a):
    """f32 -> bf16 as uint16 (round to nearest even), and back to f32."""
    u = a.astype(np.float32).view(np.uint32)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return u, (u.astype(np.uint32) << 16).view(np.float32)


def arrays(spec, rng):
    b, h, lat, rope, ctx, page, _ = spec
    per = ctx // page
    pages = b * per
    q = rng.standard_normal((b, h, lat + rope), dtype=np.float32)
    cache = rng.standard_normal((pages, page, lat + rope), dtype=np.float32)
    tables = rng.permutation(pages).reshape(b, per).astype(np.int32)
    lens = np.full((b,), ctx, np.int32)
    starts = np.arange(b + 1, dtype=np.int32)
    return q, cache, tables, lens, starts


def ir(spec):
    b, h, lat, rope, ctx, page, dt = spec
    pages = b * ctx // page
    t = lambda shape, d: "tensor<" + "x".join(map(str, shape)) + "x" + d + ">"
    ql, qr = t((b, h, lat), dt), t((b, h, rope), dt)
    c = t((pages, page, lat + rope), dt)
    lens, tables, starts = t((b,), "i32"), t((b, ctx // page), "i32"), t((b + 1,), "i32")
    return (f"func.func @main(%ql: {ql}, %qr: {qr}, %c: {c}, %lens: {lens}, "
            f"%tables: {tables}, %starts: {starts}) -> {ql} {{\n"
            f"  %o = ejk.paged_mla %ql, %qr, %c, %lens, %tables, %starts "
            f"{{softmax_scale = {SCALE!r} : f32}}\n"
            f"      : {ql}, {qr}, {c}, {lens}, {tables}, {starts} -> {ql}\n"
            f"  return %o : {ql}\n}}\n")


def save_bf16(path, a):
    """ejk-run reads a bf16 input as a uint16 .npy of its bits."""
    bits, _ = bf16_bits(a)
    np.save(path, bits)


def ejk_time(bindir, spec, arrs, runs, threads, work):
    q, cache, tables, lens, starts = arrs
    lat = spec[2]
    path = os.path.join(work, "entry.mlir")
    open(path, "w").write(ir(spec))
    inputs = [np.ascontiguousarray(q[..., :lat]), np.ascontiguousarray(q[..., lat:]),
              cache, lens, tables, starts]
    argv = [os.path.join(bindir, "ejk-run"), path, "--entry", "main",
            "--bench", str(runs)]
    for i, a in enumerate(inputs):
        p = os.path.join(work, f"in{i}.npy")
        if a.dtype == np.float32 and spec[6] == "bf16":
            save_bf16(p, a)
        else:
            np.save(p, a)
        argv += ["--input", p]
    env = dict(os.environ, EJK_NUM_THREADS=str(threads))
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    m = re.search(r"median ([0-9.]+) ms, min ([0-9.]+) ms", r.stdout + r.stderr)
    if not m:
        raise RuntimeError("ejk-run failed: " + (r.stderr or r.stdout)[-800:])
    return float(m.group(1)), float(m.group(2))


PEER = r'''
import json, os, sys, time
import numpy as np, jax, jax.numpy as jnp
jax.config.update("jax_platforms", "cpu")
from ejkernel.modules.operations import multi_latent_ragged_page_attention
d, runs, lat = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
q, cache, tables, lens, starts = (np.load(os.path.join(d, f"p{i}.npy")) for i in range(5))
pages, page, width = cache.shape
rope = width - lat
pad = lambda n: -(-n // 128) * 128
c = np.zeros((pages, page, pad(lat) + pad(rope)), np.float32)
c[:, :, :lat] = cache[:, :, :lat]; c[:, :, pad(lat):pad(lat) + rope] = cache[:, :, lat:]
bf = jnp.bfloat16
kv = jnp.asarray(c, bf).reshape(pages, page // 2, 2, -1)
b = len(lens)
rows = np.stack([cache[tables[s, (lens[s] - 1) // page], (lens[s] - 1) % page] for s in range(b)])
args = [jnp.asarray(q[..., :lat], bf), jnp.asarray(q[..., lat:], bf),
        jnp.asarray(rows[:, :lat], bf), jnp.asarray(rows[:, lat:], bf), kv,
        jnp.asarray(lens), jnp.asarray(tables.reshape(-1)), jnp.asarray(starts),
        jnp.asarray(np.array([0, 0, b], np.int32))]
f = jax.jit(lambda *a: multi_latent_ragged_page_attention(
    *a, softmax_scale=float(1 / np.sqrt(192.0)), platform="xla")[0])
f(*args).block_until_ready()
times = []
for _ in range(runs):
    t = time.perf_counter(); f(*args).block_until_ready()
    times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3}))
'''


def peer_time(work, arrs, spec, runs, threads):
    python = os.path.join(ROOT, ".venv-conformance", "bin", "python")
    if not os.path.exists(python):
        return None
    for i, a in enumerate(arrs):
        np.save(os.path.join(work, f"p{i}.npy"), a)
    env = dict(os.environ, EJKERNEL_AUTOTUNE_POLICY="heuristics",
               OMP_NUM_THREADS=str(threads))
    r = subprocess.run(["taskset", "-c", ",".join(map(str, range(threads))),
                        python, "-c", PEER, work, str(runs), str(spec[2])],
                       capture_output=True, text=True, env=env)
    if r.returncode:
        return {"error": r.stderr.strip().splitlines()[-1][:200]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def read_gbs(bindir, threads):
    r = subprocess.run([os.path.join(bindir, "ejk-cpu-peak"), str(threads), "512"],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["read_gbps"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workloads", default="mla-deepseek-v3")
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()
    bindir = os.path.join(args.build, "bin")
    peak_before = read_gbs(bindir, args.threads)
    rows = []
    for wid in args.workloads.split(","):
        spec = WORKLOADS[wid]
        b, h, lat, rope, ctx, page, dt = spec
        arrs = arrays(spec, np.random.default_rng(0))
        traffic = b * ctx * (lat + rope) * 2 + b * h * (2 * lat + rope) * 2
        flops = 2 * b * h * ctx * (2 * lat + rope)
        with tempfile.TemporaryDirectory() as work:
            med, mn = ejk_time(bindir, spec, arrs, args.runs, args.threads, work)
            peer = None if args.no_peer else peer_time(work, arrs, spec,
                                                       args.runs, args.threads)
        row = {"workload": wid,
               "shape": dict(B=b, H=h, latent=lat, rope=rope, ctx=ctx,
                             page=page, dtype=dt),
               "ejk_median_ms": med, "ejk_min_ms": mn,
               "ejk_gbs": traffic / (med * 1e-3) / 1e9,
               "ejk_gflops": flops / (med * 1e-3) / 1e9}
        if peer and "median_ms" in peer:
            row["ejkernel_xla_median_ms"] = peer["median_ms"]
            row["speedup_vs_ejkernel"] = peer["median_ms"] / med
        elif peer:
            row["ejkernel_xla_error"] = peer["error"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    peak_after = read_gbs(bindir, args.threads)
    print(json.dumps({"read_gbs_before": peak_before, "read_gbs_after": peak_after,
                      "threads": args.threads}))


if __name__ == "__main__":
    main()
