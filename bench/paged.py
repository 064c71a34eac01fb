#!/usr/bin/env python3
"""Paged decode attention on the CPU: ejk against ejKernel's XLA path and
the machine's read bandwidth, in one run (docs/ops/paged.md, "Speed").

    python3 bench/paged.py [--build build] [--runs 20] [--threads 2]
                           [--workloads decode-paged,decode-paged-f16,...]

ragged-mixed (ejk.ragged_paged_attention: 8 decodes over 1024 cached
tokens and 2 prefills of 512 new tokens in one packed batch, pages of 16,
shuffled tables) runs against ejKernel's ragged_page_attention_v2 (XLA,
compute_dtype f32) on the same arrays; its GB/s counts each sequence's K/V
once (the prefill rows re-read theirs: see docs/ops/paged.md).
unified-mixed is the same batch through ejk.unified_attention (every slot
live, with sinks) against ejKernel's XLA unified_attention; ragged-decode-b8
(ejk.ragged_decode_attention: 8 sequences over rows of 1024 dense keys,
GQA 32:8, D128, ranges [start, end) drawn with seed 0) against ejKernel's
XLA ragged_decode_attention.

Each workload is drawn once (numpy, seed 0) and written as .npy: queries
N(0, 1), caches N(0, 1), every sequence full, block tables a shuffled
permutation of the pages (no two neighbours adjacent in memory). ejk runs
`ejk-run --bench` on them (the kernel's time as the runtime measures it,
median of --runs); ejKernel's `page_attention` (XLA, jit) runs in
.venv-conformance on the same arrays (median of --runs after two warm-ups);
`ejk-cpu-peak THREADS 512` measures the read bandwidth before and after.
GB/s counts the compulsory traffic: K and V of every sequence's tokens
once, plus queries and outputs. The dense flash_attention decode of the
same shape (decode-gqa of WORKLOADS.md) runs in the same process as a
yardstick.

Threads: ejk gets EJK_NUM_THREADS = --threads; XLA runs pinned
(taskset) to as many cores.

On a machine without MLIR (the device machine's quiet CPU), two steps:

    python3 bench/paged.py --prepare DIR [--workloads ...]   # here
    python3 DIR/paged.py --artifacts DIR --threads 2 ...      # there

--prepare compiles each workload with ejkc into DIR/<workload>/ and copies
this script, ejk-bench-run, ejk-cpu-peak and the runtime library into DIR;
--artifacts draws the same arrays there (numpy, seed 0), times each
artifact with ejk-bench-run (median of --runs after two warm-ups, pinned
with taskset to the first --threads CPUs) and measures the read rate with
ejk-cpu-peak, pinned alike, twice: over 2 GiB (DRAM) and over the
workload's own footprint (KV cache size, rounded up to a MiB), since a
cache of tens of MiB stays in a large L3 between runs (the device
machine's Xeon reports 300 MiB).  decode-paged-b32 (1 GiB of f32 KV)
reads beyond any L3.
"""
import argparse, json, os, re, subprocess, sys, tempfile, time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# id: (batch, heads, kv heads, head dim, context, page size, cache dtype,
#      layout)
WORKLOADS = {
    "decode-paged": (1, 32, 8, 128, 4096, 16, "f32", "head_major"),
    "decode-paged-f16": (1, 32, 8, 128, 4096, 16, "f16", "head_major"),
    "decode-paged-token-major": (1, 32, 8, 128, 4096, 16, "f32", "token_major"),
    "decode-paged-b8": (8, 32, 8, 128, 1024, 16, "f32", "head_major"),
    # Beyond a 300 MiB L3 (only with --workloads; the default list is the
    # build machine's).
    "decode-paged-b32": (32, 32, 8, 128, 4096, 16, "f32", "head_major"),
}
# The dense decode-gqa of WORKLOADS.md (B1 Sq1 Hq32 Hkv8 Sk4096 D128): id:
# element type. Timed on --random-inputs (no array files).
DENSE_WORKLOADS = {"decode-gqa": "f32", "decode-gqa-f16": "f16"}
NP = {"f32": np.float32, "f16": np.float16}
# id: (decodes, decode context, prefills, prefill length, heads, kv heads,
#      head dim, page size)
RAGGED_WORKLOADS = {
    "ragged-mixed": (8, 1024, 2, 512, 32, 8, 128, 16),
}


# id: (batch, heads, kv heads, head dim, seq_len)
DECODE_WORKLOADS = {
    "ragged-decode-b8": (8, 32, 8, 128, 1024),
}


def unified_arrays(spec):
    """ragged-mixed's arrays without the count, plus sinks."""
    q, kc, vc, lens, tables, cu, _ = ragged_arrays(spec)
    sinks = np.random.default_rng(1).standard_normal(q.shape[1]).astype(np.float32)
    return q, kc, vc, lens, tables, cu, sinks


def unified_ir(arrs):
    types = [tensor(a.shape, "i32" if a.dtype == np.int32 else "f32")
             for a in arrs]
    names = ["%q", "%kc", "%vc", "%lens", "%tables", "%cu", "%s"]
    params = ", ".join(f"{n}: {t}" for n, t in zip(names, types))
    return (f"func.func @main({params}) -> {types[0]} {{\n"
            f"  %o = ejk.unified_attention {', '.join(names[:6])} "
            f"sinks(%s : {types[6]})\n"
            f"      : {', '.join(types[:6])} -> {types[0]}\n"
            f"  return %o : {types[0]}\n}}\n")


def decode_arrays(spec):
    b, h, hkv, d, sl = spec
    rng = np.random.default_rng(0)
    q = rng.standard_normal((b, h, d), dtype=np.float32)
    k = rng.standard_normal((b, sl, hkv, d), dtype=np.float32)
    v = rng.standard_normal((b, sl, hkv, d), dtype=np.float32)
    ends = rng.integers(sl // 2, sl + 1, b).astype(np.int32)
    starts = (rng.integers(0, sl // 8, b) * (rng.random(b) < 0.5)).astype(np.int32)
    return q, k, v, starts, ends


def decode_ir(arrs):
    types = [tensor(a.shape, "i32" if a.dtype == np.int32 else "f32")
             for a in arrs]
    names = ["%q", "%k", "%v", "%s", "%e"]
    params = ", ".join(f"{n}: {t}" for n, t in zip(names, types))
    return (f"func.func @main({params}) -> {types[0]} {{\n"
            f"  %o = ejk.ragged_decode_attention {', '.join(names)}\n"
            f"      : {', '.join(types)} -> {types[0]}\n"
            f"  return %o : {types[0]}\n}}\n")


def ragged_arrays(spec):
    nd, dctx, npf, plen, h, hkv, d, page = spec
    rng = np.random.default_rng(0)
    qlens = [1] * nd + [plen] * npf
    lens = [dctx] * nd + [plen] * npf
    m = max(-(-n // page) for n in lens)
    slots = nd + npf
    pages = slots * m
    t = sum(qlens)
    q = rng.standard_normal((t, h, d), dtype=np.float32)
    kc = rng.standard_normal((pages, page, hkv, d), dtype=np.float32)
    vc = rng.standard_normal((pages, page, hkv, d), dtype=np.float32)
    tables = rng.permutation(pages).astype(np.int32).reshape(slots, m)
    cu = np.concatenate([[0], np.cumsum(qlens)]).astype(np.int32)
    return (q, kc, vc, np.array(lens, np.int32), tables, cu,
            np.array([slots], np.int32))


def ragged_ir(arrs):
    types = [tensor(a.shape, "i32" if a.dtype == np.int32 else "f32")
             for a in arrs]
    names = ["%q", "%kc", "%vc", "%lens", "%tables", "%cu", "%n"]
    params = ", ".join(f"{n}: {t}" for n, t in zip(names, types))
    return (f"func.func @main({params}) -> {types[0]} {{\n"
            f"  %o = ejk.ragged_paged_attention {', '.join(names)}\n"
            f"      : {', '.join(types)} -> {types[0]}\n"
            f"  return %o : {types[0]}\n}}\n")


RAGGED_PEER = r'''
import json, sys, time, os
import numpy as np, jax
jax.config.update("jax_platforms", "cpu")
from ejkernel.kernels._xla.ragged_page_attention_v2 import ragged_page_attention_v2
d = sys.argv[1]; runs = int(sys.argv[2])
q, kc, vc, lens, tables, cu, n = (np.load(os.path.join(d, f"in{i}.npy")) for i in range(7))
pages, page, hkv, hd = kc.shape
kv = np.stack([kc, vc], axis=3).reshape(pages, page, 2 * hkv, hd)
f = jax.jit(lambda *a: ragged_page_attention_v2(
    *a, softmax_scale=hd ** -0.5, compute_dtype=jax.numpy.float32))
args = [jax.numpy.asarray(a) for a in (q, kv, lens, tables, cu, n)]
for _ in range(2):
    f(*args).block_until_ready()
times = []
for _ in range(runs):
    t = time.perf_counter(); f(*args).block_until_ready()
    times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3}))
'''


UNIFIED_PEER = r'''
import json, sys, time, os
import numpy as np, jax
jax.config.update("jax_platforms", "cpu")
from ejkernel.kernels._xla.unified_attention import unified_attention
d = sys.argv[1]; runs = int(sys.argv[2])
q, kc, vc, lens, tables, cu, sinks = (np.load(os.path.join(d, f"in{i}.npy")) for i in range(7))
f = jax.jit(lambda q, kc, vc, lens, tables, cu, sinks: unified_attention(
    q, kc, vc, lens, tables, cu, None, None, sinks,
    softmax_scale=q.shape[-1] ** -0.5))
args = [jax.numpy.asarray(a) for a in (q, kc, vc, lens, tables, cu, sinks)]
for _ in range(2):
    f(*args).block_until_ready()
times = []
for _ in range(runs):
    t = time.perf_counter(); f(*args).block_until_ready()
    times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3}))
'''

DECODE_PEER = r'''
import json, sys, time, os
import numpy as np, jax
jax.config.update("jax_platforms", "cpu")
from ejkernel.kernels._xla.ragged_decode_attention import ragged_decode_attention
d = sys.argv[1]; runs = int(sys.argv[2])
q, k, v, s, e = (np.load(os.path.join(d, f"in{i}.npy")) for i in range(5))
f = jax.jit(lambda *a: ragged_decode_attention(
    *a, softmax_scale=q.shape[-1] ** -0.5))
args = [jax.numpy.asarray(a) for a in (q, k, v, s, e)]
for _ in range(2):
    f(*args).block_until_ready()
times = []
for _ in range(runs):
    t = time.perf_counter(); f(*args).block_until_ready()
    times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3}))
'''


def tensor(shape, dtype):
    return "tensor<" + "x".join(map(str, shape)) + f"x{dtype}>"


def arrays(spec, empty=False):
    """The workload's arrays; with `empty`, unfilled ones of the same shapes
    and types (np.empty touches no memory: enough to write the IR)."""
    b, h, hkv, d, ctx, page, cdt, layout = spec
    pages_per_seq = ctx // page
    pages = b * pages_per_seq
    cache_shape = ((pages, hkv, page, d) if layout == "head_major"
                   else (pages, page, hkv, d))
    if empty:
        return (np.empty((b, h, d), np.float32),
                np.empty(cache_shape, NP[cdt]), np.empty(cache_shape, NP[cdt]),
                np.empty((b,), np.int32),
                np.empty((b, pages_per_seq), np.int32))
    rng = np.random.default_rng(0)
    q = rng.standard_normal((b, h, d), dtype=np.float32)
    kc = rng.standard_normal(cache_shape, dtype=np.float32).astype(NP[cdt])
    vc = rng.standard_normal(cache_shape, dtype=np.float32).astype(NP[cdt])
    lens = np.full((b,), ctx, dtype=np.int32)
    tables = rng.permutation(pages).astype(np.int32).reshape(b, pages_per_seq)
    return q, kc, vc, lens, tables


def paged_ir(spec, arrs):
    layout = spec[7]
    q, kc, vc, lens, tables = arrs
    dt = {np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}
    types = [tensor(a.shape, "i32" if a.dtype == np.int32 else dt[a.dtype])
             for a in arrs]
    out = tensor(q.shape, "f32")
    attrs = ' {kv_layout = "token_major"}' if layout == "token_major" else ""
    return (f"func.func @main(%q: {types[0]}, %kc: {types[1]}, %vc: {types[2]}, "
            f"%lens: {types[3]}, %tables: {types[4]}) -> {out} {{\n"
            f"  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables{attrs}\n"
            f"      : {', '.join(types)} -> {out}\n"
            f"  return %o : {out}\n}}\n")


def dense_ir(spec, dtype="f32"):
    b, h, hkv, d, ctx = spec[:5]
    q = tensor((b, 1, h, d), dtype)
    kv = tensor((b, ctx, hkv, d), dtype)
    return (f"func.func @main(%q: {q}, %k: {kv}, %v: {kv}) -> {q} {{\n"
            f"  %o = ejk.flash_attention %q, %k, %v : {q}, {kv}, {kv} -> {q}\n"
            f"  return %o : {q}\n}}\n")


def ejk_time(bindir, ir, inputs, runs, threads, work):
    path = os.path.join(work, "entry.mlir")
    open(path, "w").write(ir)
    argv = [os.path.join(bindir, "ejk-run"), path, "--entry", "main",
            "--bench", str(runs)]
    if inputs:
        for i, a in enumerate(inputs):
            p = os.path.join(work, f"in{i}.npy")
            np.save(p, a)
            argv += ["--input", p]
    else:
        argv += ["--random-inputs", "1"]
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
from ejkernel.modules import page_attention
d = sys.argv[1]; runs = int(sys.argv[2])
q, kc, vc, lens, tables = (np.load(os.path.join(d, f"in{i}.npy")) for i in range(5))
if kc.dtype == np.float16:
    q = q.astype(np.float16)
scale = 1.0 / np.sqrt(q.shape[-1])
f = jax.jit(lambda *a: page_attention(*a, attn_scale=scale, platform="xla"))
args = [jax.numpy.asarray(a) for a in (q, kc, vc, lens, tables)]
for _ in range(2):
    f(*args).block_until_ready()
times = []
for _ in range(runs):
    t = time.perf_counter(); f(*args).block_until_ready()
    times.append(time.perf_counter() - t)
times.sort()
print(json.dumps({"median_ms": times[len(times) // 2] * 1e3, "min_ms": times[0] * 1e3}))
'''


def peer_time(work, runs, threads, script=PEER):
    python = os.path.join(ROOT, ".venv-conformance", "bin", "python")
    if not os.path.exists(python):
        return None
    env = dict(os.environ, EJKERNEL_AUTOTUNE_POLICY="heuristics",
               OMP_NUM_THREADS=str(threads))
    r = subprocess.run(["taskset", "-c", ",".join(map(str, range(threads))),
                        python, "-c", script, work, str(runs)],
                       capture_output=True, text=True, env=env)
    if r.returncode:
        return {"error": r.stderr.strip().splitlines()[-1][:200]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def read_gbs(bindir, threads):
    r = subprocess.run([os.path.join(bindir, "ejk-cpu-peak"), str(threads), "512"],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["read_gbps"]


def ragged_row(wid, bindir, args, unified=False):
    spec = RAGGED_WORKLOADS[wid]
    nd, dctx, npf, plen, h, hkv, d, page = spec
    arrs = unified_arrays(spec) if unified else ragged_arrays(spec)
    traffic = (2 * hkv * d * 4 * (nd * dctx + npf * plen)
               + 2 * arrs[0].nbytes + arrs[4].nbytes)
    # Causal prefill and the decodes: 4 * H * D per (query, visible key).
    flops = 4 * h * d * (nd * dctx + npf * plen * (plen + 1) // 2)
    with tempfile.TemporaryDirectory() as work:
        med, mn = ejk_time(bindir, (unified_ir if unified else ragged_ir)(arrs),
                           arrs, args.runs, args.threads, work)
        peer = (None if args.no_peer else
                peer_time(work, args.runs, args.threads,
                          UNIFIED_PEER if unified else RAGGED_PEER))
    row = {"workload": "unified-mixed" if unified else wid,
           "shape": dict(decodes=nd, decode_ctx=dctx, prefills=npf,
                         prefill_len=plen, Hq=h, Hkv=hkv, D=d, page=page),
           "ejk_median_ms": med, "ejk_min_ms": mn,
           "ejk_gbs": traffic / (med * 1e-3) / 1e9,
           "ejk_gflops": flops / (med * 1e-3) / 1e9}
    if peer and "median_ms" in peer:
        row["ejkernel_xla_median_ms"] = peer["median_ms"]
        row["speedup_vs_ejkernel"] = peer["median_ms"] / med
    elif peer:
        row["ejkernel_xla_error"] = peer["error"]
    return row


def decode_row(wid, bindir, args):
    b, h, hkv, d, sl = DECODE_WORKLOADS[wid]
    arrs = decode_arrays(DECODE_WORKLOADS[wid])
    starts, ends = arrs[3], arrs[4]
    keys = int(np.sum(np.maximum(ends - starts, 0)))
    traffic = 2 * hkv * d * 4 * keys + 2 * arrs[0].nbytes
    with tempfile.TemporaryDirectory() as work:
        med, mn = ejk_time(bindir, decode_ir(arrs), arrs, args.runs,
                           args.threads, work)
        peer = (None if args.no_peer else
                peer_time(work, args.runs, args.threads, DECODE_PEER))
    row = {"workload": wid,
           "shape": dict(B=b, Hq=h, Hkv=hkv, D=d, seq_len=sl, keys=keys),
           "ejk_median_ms": med, "ejk_min_ms": mn,
           "ejk_gbs": traffic / (med * 1e-3) / 1e9}
    if peer and "median_ms" in peer:
        row["ejkernel_xla_median_ms"] = peer["median_ms"]
        row["speedup_vs_ejkernel"] = peer["median_ms"] / med
    elif peer:
        row["ejkernel_xla_error"] = peer["error"]
    return row


def paged_traffic(spec, arrs):
    """Compulsory bytes of a paged decode: every token's K and V once, the
    queries and outputs (f32), the block tables."""
    b, h, hkv, d, ctx, page, cdt, layout = spec
    return (2 * b * hkv * ctx * d * np.dtype(NP[cdt]).itemsize
            + 2 * b * h * d * 4 + arrs[4].nbytes)


def dense_spec(wid):
    return WORKLOADS["decode-paged"][:5], DENSE_WORKLOADS[wid]


def dense_traffic(wid):
    (b, h, hkv, d, ctx), dt = dense_spec(wid)
    e = 2 if dt == "f16" else 4
    return 2 * b * ctx * hkv * d * e + 2 * b * h * d * e


def prepare(args):
    """Compiles every workload into args.prepare/<id>/ (ejkc here) and copies
    what the device machine needs to time them without MLIR."""
    import shutil
    out = os.path.abspath(args.prepare)
    os.makedirs(out, exist_ok=True)
    for wid in args.workloads.split(","):
        if wid in DENSE_WORKLOADS:
            spec, dt = dense_spec(wid)
            ir = dense_ir(spec, dt)
        else:
            ir = paged_ir(WORKLOADS[wid], arrays(WORKLOADS[wid], empty=True))
        src = os.path.join(out, wid + ".mlir")
        open(src, "w").write(ir)
        shutil.rmtree(os.path.join(out, wid), ignore_errors=True)
        subprocess.run([os.path.join(args.build, "bin", "ejkc"), src, "-o",
                        os.path.join(out, wid)], check=True,
                       stdout=subprocess.DEVNULL)
    for f in ("bin/ejk-bench-run", "bin/ejk-cpu-peak",
              "lib/Runtime/libejk_runtime.so.1"):
        shutil.copy(os.path.realpath(os.path.join(args.build, f)),
                    os.path.join(out, os.path.basename(f)))
    shutil.copy(os.path.abspath(__file__), os.path.join(out, "paged.py"))
    open(os.path.join(out, "workloads"), "w").write(args.workloads)


def pinned(threads):
    return ["taskset", "-c", ",".join(map(str, range(threads)))]


def peak_gbs(tool, threads, mib):
    r = subprocess.run(pinned(threads) + [tool, str(threads), str(mib)],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)["read_gbps"]


def bench_artifact(art, wid, inputs, runs, threads):
    runner = os.path.join(art, "ejk-bench-run")
    argv = pinned(threads) + [runner, os.path.join(art, wid, wid + ".json"),
                              "--device", "cpu", "--entry", "main",
                              "--runs", str(runs), "--warmup", "2"]
    for path in inputs:
        argv += ["--input", path]
    env = dict(os.environ, EJK_NUM_THREADS=str(threads),
               LD_LIBRARY_PATH=art + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
    r = subprocess.run(argv, capture_output=True, text=True, env=env)
    m = re.search(r"median ([0-9.]+) ms, min ([0-9.]+) ms", r.stdout)
    if not m:
        raise RuntimeError(f"{wid}: ejk-bench-run failed: "
                           + (r.stderr or r.stdout)[-500:])
    return float(m.group(1)), float(m.group(2))


def run_artifacts(args):
    """The device half: times the prepared artifacts against the read rate
    measured around them, pinned to the first T CPUs for each T of
    --threads (the arrays drawn once per workload)."""
    art = os.path.abspath(args.artifacts)
    peak = os.path.join(art, "ejk-cpu-peak")
    wids = open(os.path.join(art, "workloads")).read().split(",")
    counts = [int(t) for t in str(args.threads).split(",")]
    dram = {t: [peak_gbs(peak, t, 2048)] for t in counts}
    rows = []
    for wid in wids:
        with tempfile.TemporaryDirectory() as work:
            inputs = []
            if wid in DENSE_WORKLOADS:
                traffic = dense_traffic(wid)
            else:
                arrs = arrays(WORKLOADS[wid])
                traffic = paged_traffic(WORKLOADS[wid], arrs)
                for i, a in enumerate(arrs):
                    inputs.append(os.path.join(work, f"in{i}.npy"))
                    np.save(inputs[-1], a)
                del arrs
            for threads in counts:
                med, mn = bench_artifact(art, wid, inputs, args.runs, threads)
                # The read rate over the same footprint, right after.
                same = peak_gbs(peak, threads,
                                max(1, -(-traffic // (1 << 20))))
                gbs = traffic / (med * 1e-3) / 1e9
                rows.append({"threads": threads, "workload": wid,
                             "ejk_median_ms": med, "ejk_min_ms": mn,
                             "ejk_gbs": gbs,
                             "footprint_mib": traffic / (1 << 20),
                             "read_gbs_footprint": same,
                             "pct_of_footprint_read": 100 * gbs / same})
                print(json.dumps(rows[-1]), flush=True)
    for t in counts:
        dram[t].append(peak_gbs(peak, t, 2048))
        print(json.dumps({"threads": t, "read_gbs_dram_before_after":
                          dram[t]}), flush=True)
    print("threads workload ms(median) GB/s | %footprint-read(GB/s) "
          "| %DRAM-read(GB/s, best of before/after)")
    for r in rows:
        r["read_gbs_dram"] = max(dram[r["threads"]])
        r["pct_of_dram_read"] = 100 * r["ejk_gbs"] / r["read_gbs_dram"]
        print(f"{r['threads']} {r['workload']} {r['ejk_median_ms']:.3f} "
              f"{r['ejk_gbs']:.1f} | {r['pct_of_footprint_read']:.0f}% "
              f"({r['read_gbs_footprint']:.1f}) | {r['pct_of_dram_read']:.0f}% "
              f"({r['read_gbs_dram']:.1f})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--threads", default="2")
    ap.add_argument("--workloads",
                    default=",".join(list(WORKLOADS) + list(RAGGED_WORKLOADS)
                                     + ["unified-mixed"] + list(DECODE_WORKLOADS)))
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--prepare", metavar="DIR",
                    help="compile the workloads into DIR for --artifacts")
    ap.add_argument("--artifacts", metavar="DIR",
                    help="time DIR's prepared workloads (no MLIR needed); "
                         "--threads may list several counts, 1,2,8")
    args = ap.parse_args()
    if args.prepare:
        return prepare(args)
    if args.artifacts:
        return run_artifacts(args)
    args.threads = int(args.threads)
    bindir = os.path.join(args.build, "bin")
    before = read_gbs(bindir, args.threads)
    rows = []
    for wid in args.workloads.split(","):
        if wid in RAGGED_WORKLOADS or wid == "unified-mixed":
            rows.append(ragged_row("ragged-mixed" if wid == "unified-mixed"
                                   else wid, bindir, args,
                                   unified=wid == "unified-mixed"))
            print(json.dumps(rows[-1]), flush=True)
            continue
        if wid in DECODE_WORKLOADS:
            rows.append(decode_row(wid, bindir, args))
            print(json.dumps(rows[-1]), flush=True)
            continue
        spec = WORKLOADS[wid]
        arrs = arrays(spec)
        b, h, hkv, d, ctx, page, cdt, layout = spec
        traffic = paged_traffic(spec, arrs)
        with tempfile.TemporaryDirectory() as work:
            med, mn = ejk_time(bindir, paged_ir(spec, arrs), arrs, args.runs,
                               args.threads, work)
            peer = None if args.no_peer else peer_time(work, args.runs, args.threads)
        row = {"workload": wid, "shape": dict(B=b, Hq=h, Hkv=hkv, D=d, L=ctx,
                                              page=page, cache=cdt, layout=layout),
               "ejk_median_ms": med, "ejk_min_ms": mn,
               "ejk_gbs": traffic / (med * 1e-3) / 1e9}
        if peer and "median_ms" in peer:
            row["ejkernel_xla_median_ms"] = peer["median_ms"]
            row["speedup_vs_ejkernel"] = peer["median_ms"] / med
        elif peer:
            row["ejkernel_xla_error"] = peer["error"]
        if b == 1 and cdt == "f32" and layout == "head_major":
            with tempfile.TemporaryDirectory() as work:
                dmed, _ = ejk_time(bindir, dense_ir(spec), None, args.runs,
                                   args.threads, work)
            row["dense_flash_attention_median_ms"] = dmed
        rows.append(row)
        print(json.dumps(row), flush=True)
    after = read_gbs(bindir, args.threads)
    summary = {"read_gbs_before": before, "read_gbs_after": after,
               "threads": args.threads, "rows": rows}
    for row in rows:
        row["pct_of_read_bw"] = 100 * row["ejk_gbs"] / max(before, after)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
