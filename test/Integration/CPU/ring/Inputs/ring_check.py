"""Ring attention over MPI against single-process flash attention.

usage: ring_check.py WORK_DIR [--vulkan] [--backward] [--transport]
                     [--fake-cuda LIB] CASE [CASE ...]
       ring_check.py WORK_DIR --mismatch | --exit-early | --no-grad-blocks |
                     --bad-do | --bad-segments | --no-segments |
                     --unwanted-segments
       ring_check.py WORK_DIR --device-copy-error LIB ENTRY@RANK
       ring_check.py WORK_DIR --device-copy-off-on-rank-0 LIB
(ejkc, ejk-run, ejk-ring-run and mpirun from PATH; --vulkan compiles the
ring for Vulkan and runs each rank on the Vulkan device; the reference
stays single-process flash attention on the CPU)

For each case it writes one .mlir with a full-sequence `ejk.flash_attention`
entry and a ring entry per ring size (same options, shards of S / n rows),
compiles it with ejkc, runs the full entry with ejk-run and the ring entry
with `mpirun -np n ejk-ring-run` (in each layout that applies), and compares
the gathered output and lse with `ejk-run --check`'s f32 tolerances
(|x - ref| <= 1e-4 + 1e-4 |ref|, infinities equal). Prints one line per run.

--backward also runs `ejk-ring-run --backward` (the ring's forward, then its
backward with a random d_output) after each forward run, and compares the
gathered d_query, d_key, d_value with single-process flash_attention_grad
on the whole sequence (a `grad` entry: forward, then backward of its
output and lse), same tolerances.

Cases in SEGMENTS pass packed sequences: q/kv segment ids of the whole
sequence (i32 [B, S], the same for queries and keys) to the full entry and
to ejk-ring-run (--q-segments/--kv-segments, sharded like q/k), whose ring
entries take (q, k, v, q_segment_ids, kv_segment_ids).
"""
import json
import os
import re
import subprocess
import sys

import numpy as np

# name: (batch, seq, heads, kv_heads, dim, dim_v, attributes, ring sizes)
CASES = {
    "plain": (2, 64, 4, 4, 32, 32, "", (2, 4)),
    "causal": (1, 128, 4, 4, 32, 32, "causal", (2, 4)),
    "gqa": (1, 64, 8, 2, 32, 16, "causal", (2, 4)),
    "window": (1, 128, 2, 2, 32, 32, "sliding_window = array<i64: 40, 24>",
               (2, 4)),
    "causal-window": (1, 128, 2, 1, 32, 32,
                      "causal, sliding_window = array<i64: 48, 0>", (2, 4)),
    "softcap": (1, 64, 4, 2, 32, 32,
                "causal, logits_soft_cap = 2.0 : f32, softmax_scale = 0.5 : f32",
                (2, 4)),
    "f16": (1, 128, 4, 2, 32, 32, "causal", (2, 4)),
    # Non-causal batch 1: the gathered form's `gfull` block on Vulkan.
    "full-f16": (1, 128, 4, 2, 32, 32, "", (2, 4)),
    "bf16": (2, 64, 4, 4, 32, 16, "", (2,)),
    # Non-causal GQA with dim_v != dim and odd shards (27 rows): the
    # device copies' key and value rows differ in size (`gall` on Vulkan).
    "odd-gqa": (1, 54, 4, 2, 32, 16, "", (2,)),
    # Packed sequences (SEGMENTS).
    "packed": (2, 64, 4, 4, 32, 32, "", (2, 4)),
    "packed-causal": (2, 64, 8, 2, 32, 16, "causal", (2, 4)),
    "packed-window": (1, 64, 2, 2, 32, 32,
                      "sliding_window = array<i64: 20, 8>", (2,)),
    "packed-f16": (1, 64, 4, 2, 32, 32, "causal", (2,)),
}
# Segment lengths per batch row of the packed cases (S = 64: shards of 32
# rows on 2 ranks, 16 on 4): segments that end inside a shard (5, 30, 31),
# that cross shards (5..30, 31..64, 0..40), a one-token segment (30..31),
# and negative ids, which ejk treats as ordinary ids (ejKernel masks them).
SEGMENT_LENGTHS = ([5, 25, 1, 33], [40, 24])
SEGMENT_IDS = ([0, 1, 2, 3], [-1, 7])
SEGMENTS = ("packed", "packed-causal", "packed-window", "packed-f16")
# Element type of a case's q, k, v and output (f32 unless named here); the
# reference is single-process flash attention of the same type, and the
# tolerances are ejk-run --check's for it.
DTYPES = {"f16": "f16", "bf16": "bf16", "packed-f16": "f16",
          "full-f16": "f16"}
# Cases run twice on one ring (the output is the second run's).
REPEATED = ("causal-window", "f16", "packed-causal", "full-f16")
TOLERANCES = {"f32": (1e-4, 1e-4), "f16": (5e-3, 5e-3), "bf16": (4e-2, 2e-2)}

TIMEOUT = 120


def fa_attrs(attrs):
    return "{" + attrs + "}" if attrs else ""


def ring_attrs(attrs, n):
    return "{ring_size = %d : i64%s}" % (n, (", " + attrs) if attrs else "")


def segment_ids(b):
    """The packed cases' segment ids, i32 [b, 64]."""
    rows = []
    for i in range(b):
        lengths, ids = SEGMENT_LENGTHS[i % 2], SEGMENT_IDS[i % 2]
        rows.append(np.repeat(np.array(ids, dtype=np.int32), lengths))
    return np.stack(rows)


def write_mlir(path, case):
    b, s, h, hk, d, dv, attrs, sizes = CASES[case]
    dtype = DTYPES.get(case, "f32")
    seg = case in SEGMENTS

    def st(seq):
        return "tensor<%dx%dxi32>" % (b, seq)

    def seg_args(seq):
        return ", %%qs: %s, %%ks: %s" % (st(seq), st(seq)) if seg else ""

    def seg_ops(seq):
        return (" q_segment_ids(%%qs : %s) kv_segment_ids(%%ks : %s)" % (
            st(seq), st(seq))) if seg else ""

    def t(seq, heads, dim):
        return "tensor<%dx%dx%dx%dx%s>" % (b, seq, heads, dim, dtype)

    def lse(seq):
        return "tensor<%dx%dx%dxf32>" % (b, h, seq)
    text = []
    text.append(
        "func.func @full(%%q: %s, %%k: %s, %%v: %s%s) -> (%s, %s) {\n"
        "  %%o, %%l = ejk.flash_attention %%q, %%k, %%v%s %s : %s, %s, %s -> %s, %s\n"
        "  return %%o, %%l : %s, %s\n}\n" % (
            t(s, h, d), t(s, hk, d), t(s, hk, dv), seg_args(s), t(s, h, dv),
            lse(s), seg_ops(s), fa_attrs(attrs), t(s, h, d), t(s, hk, d), t(s, hk, dv),
            t(s, h, dv), lse(s), t(s, h, dv), lse(s)))
    for n in sizes:
        ls = s // n
        text.append(
            "func.func @ring%d(%%q: %s, %%k: %s, %%v: %s%s) -> (%s, %s) {\n"
            "  %%o, %%l = ejk.ring_attention %%q, %%k, %%v%s %s : %s, %s, %s -> %s, %s\n"
            "  return %%o, %%l : %s, %s\n}\n" % (
                n, t(ls, h, d), t(ls, hk, d), t(ls, hk, dv), seg_args(ls),
                t(ls, h, dv), lse(ls), seg_ops(ls), ring_attrs(attrs, n), t(ls, h, d), t(ls, hk, d),
                t(ls, hk, dv), t(ls, h, dv), lse(ls), t(ls, h, dv), lse(ls)))
    # The reference backward: the forward on the whole sequence, then
    # flash_attention_grad of its output and lse.
    text.append(
        "func.func @grad(%%q: %s, %%k: %s, %%v: %s, %%do: %s%s) -> (%s, %s, %s) {\n"
        "  %%o, %%l = ejk.flash_attention %%q, %%k, %%v%s %s : %s, %s, %s -> %s, %s\n"
        "  %%dq, %%dk, %%dv = ejk.flash_attention_grad %%q, %%k, %%v, %%o, %%do, %%l%s %s"
        " : %s, %s, %s, %s, %s, %s -> %s, %s, %s\n"
        "  return %%dq, %%dk, %%dv : %s, %s, %s\n}\n" % (
            t(s, h, d), t(s, hk, d), t(s, hk, dv), t(s, h, dv), seg_args(s),
            t(s, h, d), t(s, hk, d), t(s, hk, dv),
            seg_ops(s), fa_attrs(attrs), t(s, h, d), t(s, hk, d), t(s, hk, dv),
            t(s, h, dv), lse(s),
            seg_ops(s), fa_attrs(attrs), t(s, h, d), t(s, hk, d), t(s, hk, dv),
            t(s, h, dv), t(s, h, dv), lse(s),
            t(s, h, d), t(s, hk, d), t(s, hk, dv),
            t(s, h, d), t(s, hk, d), t(s, hk, dv)))
    with open(path, "w") as f:
        f.write("\n".join(text))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=TIMEOUT, **kw)


def must(cmd):
    p = run(cmd)
    if p.returncode != 0:
        sys.stdout.write("FAILED: %s\n%s%s" % (" ".join(cmd), p.stdout,
                                                p.stderr))
        sys.exit(1)
    return p


def as_stored(x, dtype):
    """An f32 array as the .npy ejk reads for dtype (bf16: uint16 bits,
    rounded to nearest even)."""
    if dtype == "f16":
        return x.astype(np.float16)
    if dtype == "bf16":
        bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
        return bits.astype(np.uint16)
    return x


def as_f32(x):
    if x.dtype == np.uint16:  # bf16 bits
        return (x.astype(np.uint32) << 16).view(np.float32)
    return x.astype(np.float32)


def close(x, ref, dtype="f32"):
    x, ref = as_f32(x), as_f32(ref)
    inf = np.isinf(ref)
    if not np.array_equal(np.isinf(x), inf) or \
            not np.array_equal(x[inf], ref[inf]):
        return False, float("inf")
    err = np.abs(x[~inf] - ref[~inf])
    atol, rtol = TOLERANCES[dtype]
    bound = atol + rtol * np.abs(ref[~inf])
    return bool(np.all(err <= bound)), float(err.max(initial=0.0))


def check_case(work, case, vulkan=False, backward=False, transport=False):
    b, s, h, hk, d, dv, attrs, sizes = CASES[case]
    dirn = os.path.join(work, case)
    os.makedirs(dirn, exist_ok=True)
    mlir = os.path.join(dirn, "ring.mlir")
    write_mlir(mlir, case)
    rng = np.random.default_rng(len(case))
    q = rng.standard_normal((b, s, h, d), dtype=np.float32)
    k = rng.standard_normal((b, s, hk, d), dtype=np.float32)
    v = rng.standard_normal((b, s, hk, dv), dtype=np.float32)
    files = {}
    dtype = DTYPES.get(case, "f32")
    d_o = rng.standard_normal((b, s, h, dv), dtype=np.float32)
    for name, arr in (("q", q), ("k", k), ("v", v), ("do", d_o)):
        files[name] = os.path.join(dirn, name + ".npy")
        np.save(files[name], as_stored(arr, dtype))
    seg_inputs, seg_flags = [], []
    if case in SEGMENTS:
        files["segs"] = os.path.join(dirn, "segs.npy")
        np.save(files["segs"], segment_ids(b))
        seg_inputs = ["--input", files["segs"]] * 2
        seg_flags = ["--q-segments", files["segs"],
                     "--kv-segments", files["segs"]]
    ref_o, ref_l = os.path.join(dirn, "o.npy"), os.path.join(dirn, "l.npy")
    must(["ejk-run", mlir, "--entry", "full",
          "--input", files["q"], "--input", files["k"], "--input", files["v"]]
         + seg_inputs + ["--output", ref_o, "--output", ref_l])
    if backward:
        must(["ejk-run", mlir, "--entry", "grad"] +
             sum([["--input", files[x]] for x in ("q", "k", "v", "do")], []) +
             seg_inputs +
             sum([["--output", os.path.join(dirn, x + ".npy")]
                  for x in ("dq", "dk", "dv")], []))
    art = os.path.join(dirn, "art")
    must(["ejkc", mlir, "-o", art] + (["--target", "vulkan"] if vulkan else []))
    manifest = os.path.join(art, "ring.json")
    layouts = ["contiguous"] + (["zigzag"] if "causal" in attrs else [])
    for n in sizes:
        for layout in layouts:
            out_o = os.path.join(dirn, "o%d%s.npy" % (n, layout))
            out_l = os.path.join(dirn, "l%d%s.npy" % (n, layout))
            p = must(["timeout", str(TIMEOUT), "mpirun", "-np", str(n),
                      "ejk-ring-run", manifest,
                      "--entry", "ring%d" % n, "--layout", layout,
                      "--q", files["q"], "--k", files["k"], "--v", files["v"],
                      "--out", out_o, "--lse", out_l,
                      "--device", "vulkan" if vulkan else "cpu"] + seg_flags +
                     # A second run reuses the ring's host buffers and slots.
                     (["--repeat", "2"] if case in REPEATED else []) +
                     (["--stats"] if transport else []))
            ok_o, err_o = close(np.load(out_o), np.load(ref_o), dtype)
            ok_l, err_l = close(np.load(out_l), np.load(ref_l))
            print("%s np=%d %s: output %s lse %s" % (
                case, n, layout, "ok" if ok_o else "MISMATCH %g" % err_o,
                "ok" if ok_l else "MISMATCH %g" % err_l))
            if transport:
                # Every rank's "rank R transport: ..." line, one if all agree.
                seen = sorted(set(re.findall(r"^rank \d+ transport: (.*)$",
                                             p.stdout, re.M)))
                print("%s np=%d %s transport: %s" % (case, n, layout,
                                                     " | ".join(seen)))
                # The "  step S:" lines of every rank's last run: one per
                # step it ran (a gathered ring runs fewer than n).
                steps = len(re.findall(r"^  step \d+:", p.stdout, re.M))
                print("%s np=%d %s steps listed: %d" % (case, n, layout,
                                                        steps))
            if not backward:
                continue
            grads = [os.path.join(dirn, "%s%d%s.npy" % (x, n, layout))
                     for x in ("dq", "dk", "dv")]
            must(["timeout", str(TIMEOUT), "mpirun", "-np", str(n),
                  "ejk-ring-run", manifest,
                  "--entry", "ring%d" % n, "--layout", layout,
                  "--q", files["q"], "--k", files["k"], "--v", files["v"],
                  "--backward", "--do", files["do"],
                  "--dq", grads[0], "--dk", grads[1], "--dv", grads[2],
                  "--device", "vulkan" if vulkan else "cpu"] + seg_flags +
                 (["--repeat", "2"] if case in REPEATED else []))
            words = []
            for x, path in zip(("dq", "dk", "dv"), grads):
                ok, err = close(np.load(path),
                                np.load(os.path.join(dirn, x + ".npy")), dtype)
                words.append("%s %s" % (x, "ok" if ok else "MISMATCH %g" % err))
            print("%s np=%d %s backward: %s" % (case, n, layout,
                                                " ".join(words)))


def compile_with_inputs(dirn, case):
    """Compiles `case`'s ring into dirn/art and writes f32 q/k/v .npy inputs
    of the whole sequence there (the error tests); returns the art dir."""
    os.makedirs(dirn, exist_ok=True)
    mlir = os.path.join(dirn, "ring.mlir")
    write_mlir(mlir, case)
    b, s, h, hk, d, dv, attrs, sizes = CASES[case]
    rng = np.random.default_rng(0)
    for name, shape in (("q", (b, s, h, d)), ("k", (b, s, hk, d)),
                        ("v", (b, s, hk, dv))):
        np.save(os.path.join(dirn, name + ".npy"),
                rng.standard_normal(shape, dtype=np.float32))
    art = os.path.join(dirn, "art")
    must(["ejkc", mlir, "-o", art])
    return art


def errors(work, which):
    case = "causal"
    dirn = os.path.join(work, "errors")
    art = compile_with_inputs(dirn, case)
    b, s, h, hk, d, dv, attrs, sizes = CASES[case]
    rng = np.random.default_rng(1)
    args = ["ejk-ring-run",
            os.path.join(art, "ring.json"),
            "--q", os.path.join(dirn, "q.npy"),
            "--k", os.path.join(dirn, "k.npy"),
            "--v", os.path.join(dirn, "v.npy")]
    if which == "--no-grad-blocks":
        # An artifact whose ring has no backward blocks (as ejk wrote them
        # before the backward existed): the manifest without them.
        manifest = os.path.join(art, "ring.json")
        with open(manifest) as f:
            data = json.load(f)
        data["entries"] = [e for e in data["entries"]
                           if "__grad_" not in e["name"]]
        with open(manifest, "w") as f:
            json.dump(data, f)
        np.save(os.path.join(dirn, "do.npy"),
                rng.standard_normal((b, s, h, dv), dtype=np.float32))
        p = run(["timeout", "60", "mpirun", "-np", "2"] + args +
                ["--entry", "ring2", "--backward", "--do",
                 os.path.join(dirn, "do.npy")])
    elif which == "--bad-do":
        # d_output of the wrong shape (head_dim_v + 1): every rank stops.
        np.save(os.path.join(dirn, "do-bad.npy"),
                rng.standard_normal((b, s, h, dv + 1), dtype=np.float32))
        p = run(["timeout", "60", "mpirun", "-np", "2"] + args +
                ["--entry", "ring2", "--backward", "--do",
                 os.path.join(dirn, "do-bad.npy")])
    elif which == "--mismatch":
        # ring4 is compiled for 4 ranks: 2 ranks must all fail, not hang.
        p = run(["timeout", "60", "mpirun", "-np", "2"] + args +
                ["--entry", "ring4"])
    else:
        p = run(["timeout", "60", "mpirun", "-np", "4"] + args +
                ["--entry", "ring4", "--exit-early-rank", "2"])
    print("exit status %s (timeout: %s)" % (
        "nonzero" if p.returncode else "zero", p.returncode == 124))
    for line in sorted(set((p.stdout + p.stderr).splitlines())):
        if "ejk-ring-run" in line or "exited" in line or "rank" in line:
            print(line.strip())


def segment_errors(work, which):
    """A ring compiled with segment ids (packed-causal's ring2) run with
    segment ids of the wrong shape or none; the plain causal ring given
    some."""
    case = "causal" if which == "--unwanted-segments" else "packed-causal"
    dirn = os.path.join(work, "segment-errors", case)
    art = compile_with_inputs(dirn, case)
    b, s = CASES[case][:2]
    segs = os.path.join(dirn, "segs.npy")
    np.save(segs, np.zeros((b, s), dtype=np.int32))
    args = ["timeout", "60", "mpirun", "-np", "2", "ejk-ring-run",
            os.path.join(art, "ring.json"), "--entry", "ring2",
            "--q", os.path.join(dirn, "q.npy"),
            "--k", os.path.join(dirn, "k.npy"),
            "--v", os.path.join(dirn, "v.npy")]
    if which == "--bad-segments":
        # kv segment ids one token short of the sequence.
        bad = os.path.join(dirn, "segs-bad.npy")
        np.save(bad, np.zeros((b, s - 1), dtype=np.int32))
        args += ["--q-segments", segs, "--kv-segments", bad]
    elif which == "--unwanted-segments":
        args += ["--q-segments", segs, "--kv-segments", segs]
    p = run(args)
    print("exit status %s (timeout: %s)" % (
        "nonzero" if p.returncode else "zero", p.returncode == 124))
    for line in sorted(set((p.stdout + p.stderr).splitlines())):
        if "ejk-ring-run" in line:
            print(line.strip())


def use_fake_cuda(lib):
    """The ring loads lib (tools/ejk-ring-run/fake-libcuda.c) as libcuda,
    told the Vulkan device's UUID, so that the ranks copy key/value "GPU
    to GPU" through it (on the host)."""
    uuid = must(["ejk-ring-run", "--print-device-uuid", "vulkan"])
    os.environ["EJK_RING_TEST_CUDA_LIBRARY"] = lib
    os.environ["EJK_FAKE_CUDA_UUID"] = uuid.stdout.strip()


def device_copy_ring(work, lib):
    """full-f16's ring of 2, compiled for Vulkan, with the device copies
    through the stand-in libcuda lib: the ejk-ring-run arguments."""
    case = "full-f16"
    dirn = os.path.join(work, "device-copy")
    os.makedirs(dirn, exist_ok=True)
    mlir = os.path.join(dirn, "ring.mlir")
    write_mlir(mlir, case)
    b, s, h, hk, d, dv, attrs, sizes = CASES[case]
    rng = np.random.default_rng(0)
    args = []
    for name, shape in (("q", (b, s, h, d)), ("k", (b, s, hk, d)),
                        ("v", (b, s, hk, dv))):
        path = os.path.join(dirn, name + ".npy")
        np.save(path, rng.standard_normal(shape).astype(np.float16))
        args += ["--" + name, path]
    art = os.path.join(dirn, "art")
    must(["ejkc", mlir, "-o", art, "--target", "vulkan"])
    use_fake_cuda(lib)
    return ["ejk-ring-run", os.path.join(art, "ring.json"), "--entry",
            "ring2", "--device", "vulkan", "--stats"] + args + \
        ["--out", os.path.join(dirn, "o.npy")]


def print_ranks(p):
    print("exit status %s (timeout: %s)" % (
        "nonzero" if p.returncode else "zero", p.returncode == 124))
    for line in sorted(set((p.stdout + p.stderr).splitlines())):
        if "ejk-ring-run" in line or "transport" in line:
            print(line.strip())


def device_copy_error(work, lib, spec):
    """The device-copy ring (device_copy_ring) with the stand-in's entry
    point ENTRY failing on rank RANK only (EJK_FAKE_CUDA_FAIL) after the
    copies were set up: every rank must stop with the run's error, none
    hang."""
    ring = device_copy_ring(work, lib)
    os.environ["EJK_FAKE_CUDA_FAIL"] = spec
    print_ranks(run(["timeout", "60", "mpirun", "-np", "2"] + ring))


def device_copy_off_on_one_rank(work, lib):
    """The device-copy ring with EJK_RING_DEVICE_COPY=0 on rank 0 only:
    no rank takes the copies, and each says why."""
    ring = device_copy_ring(work, lib)
    print_ranks(run(["timeout", "60", "mpirun", "-np", "1", "env",
                     "EJK_RING_DEVICE_COPY=0"] + ring +
                    [":", "-np", "1"] + ring))


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    if sys.argv[2] in ("--mismatch", "--exit-early", "--no-grad-blocks",
                       "--bad-do"):
        errors(work, sys.argv[2])
        return
    if sys.argv[2] in ("--bad-segments", "--no-segments",
                       "--unwanted-segments"):
        segment_errors(work, sys.argv[2])
        return
    if sys.argv[2] == "--device-copy-error":
        device_copy_error(work, sys.argv[3], sys.argv[4])
        return
    if sys.argv[2] == "--device-copy-off-on-rank-0":
        device_copy_off_on_one_rank(work, sys.argv[3])
        return
    args = sys.argv[2:]
    vulkan = "--vulkan" in args
    backward = "--backward" in args
    # --transport: also print how each forward moved its shards (every
    # rank's ejk_ring_transport, through ejk-ring-run --stats).
    transport = "--transport" in args
    # --fake-cuda LIB: the device copies through LIB (use_fake_cuda).
    if "--fake-cuda" in args:
        lib = args[args.index("--fake-cuda") + 1]
        args.remove(lib)
        use_fake_cuda(lib)
    for case in args:
        if not case.startswith("--"):
            check_case(work, case, vulkan, backward, transport)


if __name__ == "__main__":
    main()
