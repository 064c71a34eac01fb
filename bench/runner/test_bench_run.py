#!/usr/bin/env python3
"""ctest bench-runner: ejk-bench-run on small CPU artifacts compiled here.

For an f32 and an f16 causal GQA attention (ejkc, target cpu):
  - ejk-bench-run with .npy inputs writes the same output as ejk-run on the
    same inputs (same kernel, same runtime: within 1e-6, or one f16 ulp);
  - its bench line parses with the harness's own parser (bench/harness/ejk.py)
    and gives positive times, for random inputs (no --input) as well, and
    with a time-based warm-up (--warmup-ms) its timed window (bench/gpu.py);
  - on a Vulkan device (lavapipe here; skipped without one), an f16 artifact
    of `ejkc --target vulkan` runs on the device its manifest names and
    agrees with the CPU kernel;
  - it links libejk_runtime and neither MLIR nor LLVM;
  - an input of the wrong shape or dtype, a wrong input count and a bad
    option are refused with exit status 2 and a message naming the problem.
Exit status 0 when every check passed.
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, BENCH)
from harness.ejk import BENCH_RE  # noqa: E402
from gpu import TIMED_RE  # noqa: E402
from harness.workloads import Workload  # noqa: E402

FAILURES = []


def check(cond, what):
    print(("ok: " if cond else "FAILED: ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def run(argv):
    r = subprocess.run(argv, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def case(bindir, work, dtype):
    w = Workload(f"runner-{dtype}", "attention", dtype,
                 dict(B=1, Sq=48, Sk=48, Hq=4, Hkv=2, D=32), True)
    d = os.path.join(work, w.id)
    os.makedirs(d, exist_ok=True)
    ir = os.path.join(d, "attention.mlir")
    with open(ir, "w") as f:
        f.write(w.ejk_ir())
    inputs = []
    for name, arr in zip(w.input_names(), w.make_inputs(seed=3)):
        inputs.append(os.path.join(d, name + ".npy"))
        np.save(inputs[-1], arr)
    art = os.path.join(d, "artifact")
    rc, out = run([os.path.join(bindir, "ejkc"), ir, "-o", art])
    check(rc == 0, f"{dtype}: ejkc compiles the attention ({out.strip()[-200:]})")
    manifest = os.path.join(art, "attention.json")
    if rc != 0 or not os.path.exists(manifest):
        return

    runner = os.path.join(bindir, "ejk-bench-run")
    ins = sum((["--input", p] for p in inputs), [])
    ours = os.path.join(d, "runner.out.npy")
    rc, out = run([runner, manifest, "--runs", "3", "--warmup", "1", "--output", ours] + ins)
    m = BENCH_RE.search(out)
    check(rc == 0 and m is not None and int(m.group(1)) == 3 and float(m.group(3)) > 0,
          f"{dtype}: ejk-bench-run times 3 runs and prints the bench line ({out.strip()})")
    check("wall median" in out, f"{dtype}: the wall time is printed too")
    rc, out = run([runner, manifest, "--runs", "2", "--warmup-ms", "200"] + ins)
    m = TIMED_RE.search(out)
    check(rc == 0 and m is not None and float(m.group(1)) <= float(m.group(2)),
          f"{dtype}: --warmup-ms runs and the timed window is printed ({out.strip()})")
    rc, out = run([runner, manifest, "--runs", "3", "--dispatch-times"] + ins)
    m = re.search(r"dispatches: (\d+), median ms:((?: [0-9.]+)+)", out)
    total = BENCH_RE.search(out)
    check(rc == 0 and m is not None and total is not None and
          int(m.group(1)) == len(m.group(2).split()) >= 1 and
          sum(float(t) for t in m.group(2).split()) <= 1.05 * float(total.group(2)) + 0.01,
          f"{dtype}: --dispatch-times prints one median per dispatch, "
          f"together within the invoke's ({out.strip()})")

    theirs = os.path.join(d, "ejk-run.out.npy")
    rc2, out2 = run([os.path.join(bindir, "ejk-run"), ir, "--entry", "attention",
                     "--output", theirs] + ins)
    check(rc2 == 0, f"{dtype}: ejk-run runs the same IR ({out2.strip()[-200:]})")
    if rc == 0 and rc2 == 0:
        a, b = np.load(ours), np.load(theirs)
        tol = 1e-6 if dtype == "f32" else 1e-3
        check(a.dtype == b.dtype and a.shape == b.shape and
              np.allclose(a.astype(np.float64), b.astype(np.float64), atol=tol, rtol=tol),
              f"{dtype}: ejk-bench-run's output is ejk-run's ({a.dtype}{a.shape} vs "
              f"{b.dtype}{b.shape})")

    rc, out = run([runner, manifest, "--runs", "2", "--device", "cpu"])
    check(rc == 0 and BENCH_RE.search(out) is not None and "random" in out,
          f"{dtype}: without --input the inputs are generated ({out.strip()})")

    rc, out = run([runner, manifest, "--load-only"])
    check(rc == 0 and out.strip() == "loaded" and BENCH_RE.search(out) is None,
          f"{dtype}: --load-only loads and runs nothing ({out.strip()})")
    rc, out = run([runner, os.path.join(d, "missing.json"), "--load-only"])
    check(rc == 1 and "does not exist" in out,
          f"{dtype}: --load-only of a missing manifest fails ({out.strip()})")

    bad = os.path.join(d, "bad.npy")
    q = np.load(inputs[0])
    np.save(bad, q[:, :-1])
    rc, out = run([runner, manifest, "--input", bad] + ins[2:])
    check(rc == 2 and "shape" in out, f"{dtype}: a wrong shape is refused ({out.strip()})")
    np.save(bad, q.astype(np.float64))
    rc, out = run([runner, manifest, "--input", bad] + ins[2:])
    check(rc == 2 and "dtype" in out, f"{dtype}: a wrong dtype is refused ({out.strip()})")
    rc, out = run([runner, manifest] + ins[:2])
    check(rc == 2 and "takes 3 inputs" in out,
          f"{dtype}: a wrong input count is refused ({out.strip()})")


def vulkan_case(bindir, work):
    """ejk-bench-run on a Vulkan artifact (lavapipe here) when a device exists."""
    rc, out = run([os.path.join(bindir, "ejk-run"), "--target", "vulkan", "--print-fingerprint"])
    if rc != 0:
        print(f"skipped: no Vulkan device ({out.strip()[:160]})")
        return
    ir = os.path.join(work, "runner-f16", "attention.mlir")
    cpu_out = os.path.join(work, "runner-f16", "ejk-run.out.npy")
    if not os.path.exists(cpu_out):
        return
    art = os.path.join(work, "vulkan-f16")
    rc, out = run([os.path.join(bindir, "ejkc"), "--target", "vulkan", ir, "-o", art])
    check(rc == 0, f"vulkan: ejkc compiles the f16 attention ({out.strip()[-200:]})")
    if rc != 0:
        return
    ins = sum((["--input", os.path.join(work, "runner-f16", n + ".npy")]
               for n in ("q", "k", "v")), [])
    ours = os.path.join(art, "out.npy")
    rc, out = run([os.path.join(bindir, "ejk-bench-run"), os.path.join(art, "attention.json"),
                   "--runs", "2", "--warmup", "1", "--output", ours] + ins)
    check(rc == 0 and "device vulkan" in out and BENCH_RE.search(out) is not None,
          f"vulkan: the manifest's target picks the device and the run is timed ({out.strip()})")
    if rc == 0:
        a = np.load(ours).astype(np.float64)
        b = np.load(cpu_out).astype(np.float64)
        check(a.shape == b.shape and np.allclose(a, b, atol=1e-2, rtol=1e-2),
              f"vulkan: the output agrees with the CPU kernel's (max abs difference "
              f"{np.abs(a - b).max():.3g})")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", required=True)
    p.add_argument("--work-dir", required=True)
    args = p.parse_args()
    bindir = os.path.join(args.build, "bin")
    os.makedirs(args.work_dir, exist_ok=True)
    os.environ.setdefault("EJK_NUM_THREADS", "2")
    for dtype in ("f32", "f16"):
        case(bindir, args.work_dir, dtype)
    vulkan_case(bindir, args.work_dir)
    runner = os.path.join(bindir, "ejk-bench-run")
    rc, out = run(["ldd", runner])
    check(rc == 0 and "libejk_runtime" in out and "MLIR" not in out and "LLVM" not in out,
          "ejk-bench-run links libejk_runtime and neither MLIR nor LLVM")
    rc, out = run([runner, "--runs", "0", "x.json"])
    check(rc == 2 and "--runs" in out, f"a bad option is refused ({out.strip()[:120]})")
    rc, out = run([runner, "--warmup-ms", "-1", "x.json"])
    check(rc == 2 and "--warmup-ms" in out,
          f"a negative warm-up time is refused ({out.strip()[:120]})")
    rc, out = run([runner, os.path.join(args.work_dir, "missing.json")])
    check(rc == 1 and "load" in out, f"a missing manifest is a runtime error ({out.strip()})")
    print(f"{len(FAILURES)} failure(s)" if FAILURES else "all ok")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
