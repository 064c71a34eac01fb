"""Runs a scan in two halves, passing the state, and compares with one run.

usage: state_split.py EJK_RUN WORKDIR [EJK_RUN_FLAGS...]

For ejk.selective_scan and ejk.ssd (every optional part on): compiles and
runs the whole sequence once, then the first half from the given initial
state and the second half from the first half's final_state, with ejk-run
and .npy files, and checks that the halves' outputs concatenate to the
whole run's and that the final states agree. Prints one line per op.
"""
import os
import subprocess
import sys

import numpy as np


def t(shape, dtype="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + dtype + ">"


def scan_ir(l, b=1, d=48, n=16, g=2):
    x, a, bc, v, s = t([b, l, d]), t([d, n]), t([b, l, g, n]), t([d]), t([b, d, n])
    return (f"func.func @f(%u: {x}, %delta: {x}, %A: {a}, %B: {bc}, %C: {bc}, %D: {v}, "
            f"%z: {x}, %bias: {v}, %h0: {s}) -> ({x}, {s}) {{\n"
            f"  %y, %h = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : {v}) z(%z : {x}) "
            f"delta_bias(%bias : {v}) initial_state(%h0 : {s}) {{delta_softplus}}\n"
            f"      : {x}, {x}, {a}, {bc}, {bc} -> {x}, {s}\n"
            f"  return %y, %h : {x}, {s}\n}}\n")


def ssd_ir(l, b=1, h=4, p=24, n=16, g=2):
    x, dt, a, bc, s = t([b, l, h, p]), t([b, l, h]), t([h]), t([b, l, g, n]), t([b, h, p, n])
    return (f"func.func @f(%x: {x}, %dt: {dt}, %A: {a}, %B: {bc}, %C: {bc}, %D: {a}, "
            f"%z: {x}, %bias: {a}, %s0: {s}) -> ({x}, {s}) {{\n"
            f"  %y, %s = ejk.ssd %x, %dt, %A, %B, %C D(%D : {a}) z(%z : {x}) "
            f"dt_bias(%bias : {a}) initial_state(%s0 : {s}) {{dt_softplus, chunk_size = 16 : i64}}\n"
            f"      : {x}, {dt}, {a}, {bc}, {bc} -> {x}, {s}\n"
            f"  return %y, %s : {x}, {s}\n}}\n")


def inputs(rng, kind, l):
    """Whole-sequence inputs (Mamba ranges), in argument order; the first
    `seq` entries have the sequence as dim 1."""
    if kind == "selective_scan":
        b, d, n, g = 1, 48, 16, 2
        seq = [rng.standard_normal((b, l, d)), rng.normal(-1, 0.5, (b, l, d)),
               None, rng.standard_normal((b, l, g, n)),
               rng.standard_normal((b, l, g, n)), None,
               rng.standard_normal((b, l, d))]
        seq[2] = rng.uniform(-4, -0.25, (d, n))
        seq[5] = rng.standard_normal(d)
        rest = [rng.uniform(-1, 0.5, d), rng.standard_normal((b, d, n))]
    else:
        b, h, p, n, g = 1, 4, 24, 16, 2
        seq = [rng.standard_normal((b, l, h, p)), rng.normal(-1, 0.5, (b, l, h)),
               rng.uniform(-4, -0.25, h), rng.standard_normal((b, l, g, n)),
               rng.standard_normal((b, l, g, n)), rng.standard_normal(h),
               rng.standard_normal((b, l, h, p))]
        rest = [rng.uniform(-1, 0.5, h), rng.standard_normal((b, h, p, n))]
    return [a.astype(np.float32) for a in seq + rest]


# Arguments that are sliced along the sequence (the others are shared).
SEQ_ARGS = {"selective_scan": [0, 1, 3, 4, 6], "ssd": [0, 1, 3, 4, 6]}


def run(ejk_run, workdir, name, ir, args, flags=()):
    path = os.path.join(workdir, name + ".mlir")
    with open(path, "w") as f:
        f.write(ir)
    cmd = [ejk_run, path, "--entry", "f", *flags]
    for i, a in enumerate(args):
        p = os.path.join(workdir, f"{name}.in{i}.npy")
        np.save(p, np.ascontiguousarray(a))
        cmd += ["--input", p]
    outs = [os.path.join(workdir, f"{name}.out{i}.npy") for i in range(2)]
    for p in outs:
        cmd += ["--output", p]
    subprocess.run(cmd, check=True)
    return [np.load(p) for p in outs]


def main():
    ejk_run, workdir, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(workdir, exist_ok=True)
    rng = np.random.default_rng(7)
    status = 0
    for kind, make_ir in (("selective_scan", scan_ir), ("ssd", ssd_ir)):
        l, half = 70, 33
        whole = inputs(rng, kind, l)
        y, state = run(ejk_run, workdir, kind + "_whole", make_ir(l), whole, flags)
        first = [a[:, :half] if i in SEQ_ARGS[kind] else a for i, a in enumerate(whole)]
        y1, s1 = run(ejk_run, workdir, kind + "_first", make_ir(half), first, flags)
        second = [a[:, half:] if i in SEQ_ARGS[kind] else a for i, a in enumerate(whole)]
        second[-1] = s1
        y2, s2 = run(ejk_run, workdir, kind + "_second", make_ir(l - half), second,
                     flags)
        y_err = np.max(np.abs(np.concatenate([y1, y2], axis=1) - y))
        s_err = np.max(np.abs(s2 - state))
        ok = np.allclose(np.concatenate([y1, y2], axis=1), y, rtol=1e-4, atol=1e-5) and \
            np.allclose(s2, state, rtol=1e-4, atol=1e-5)
        print(f"{kind}: halves {'match' if ok else 'DIFFER'} "
              f"(max abs diff y {y_err:.2e}, final_state {s_err:.2e})")
        status |= 0 if ok else 1
    return status


if __name__ == "__main__":
    sys.exit(main())
