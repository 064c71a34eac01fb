#!/usr/bin/env python3
"""int8 against f32 weights for ejk.grouped_matmul on the CPU, same process.

The CPU bar shape of issue 20 (m = 4096 tokens sorted by expert, E = 16
experts of 256 tokens, k = 1024, n = 512, f32 lhs and result): one entry
with f32 weights, one with i8 weights and per-channel scales
(`rhs_scales [E, n]`). Both are compiled once, then timed alternately with
`ejk-run --bench` (`--rounds` times each, so that a shared machine's load
falls on both), and the FMA peak (`ejk-cpu-peak THREADS`) is measured
before and after. Prints one line per variant and writes JSON with --out.

  python3 bench/moe_int8.py [--build build] [--threads 2] [--runs 5]
                            [--rounds 3] [--out FILE]
"""
import argparse, json, os, re, subprocess, sys, tempfile

import numpy as np

M, E, K, N = 4096, 16, 1024, 512


def ir(int8):
    rhs = f"tensor<{E}x{K}x{N}x{'i8' if int8 else 'f32'}>"
    scales = f", %scales: tensor<{E}x{N}xf32>" if int8 else ""
    extra = f" rhs_scales(%scales : tensor<{E}x{N}xf32>)" if int8 else ""
    return (f"func.func @moe(%lhs: tensor<{M}x{K}xf32>, %rhs: {rhs}, "
            f"%sizes: tensor<{E}xi32>{scales}) -> tensor<{M}x{N}xf32> {{\n"
            f"  %o = ejk.grouped_matmul %lhs, %rhs, %sizes{extra}\n"
            f"      : tensor<{M}x{K}xf32>, {rhs}, tensor<{E}xi32> -> "
            f"tensor<{M}x{N}xf32>\n"
            f"  return %o : tensor<{M}x{N}xf32>\n}}\n")


def bench(build, path, inputs, runs, threads):
    cmd = [os.path.join(build, "bin", "ejk-run"), path, "--entry", "moe",
           "--bench", str(runs)]
    for i in inputs:
        cmd += ["--input", i]
    env = dict(os.environ, EJK_NUM_THREADS=str(threads))
    text = subprocess.run(cmd, env=env, capture_output=True, text=True,
                          check=True).stdout
    m = re.search(r"median ([\d.]+) ms, min ([\d.]+) ms", text)
    if not m:
        sys.exit(f"no timing in the output of {' '.join(cmd)}:\n{text}")
    return float(m.group(1)), float(m.group(2))


def peak(build, threads):
    text = subprocess.run([os.path.join(build, "bin", "ejk-cpu-peak"),
                           str(threads)], capture_output=True, text=True,
                          check=True).stdout
    return float(json.loads(text.strip().splitlines()[-1])["fma_gflops"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    flops = 2 * M * K * N
    with tempfile.TemporaryDirectory() as d:
        def save(name, a):
            p = os.path.join(d, name)
            np.save(p, a)
            return p
        lhs = save("lhs.npy", rng.standard_normal((M, K), dtype=np.float32))
        sizes = save("sizes.npy", np.full((E,), M // E, np.int32))
        w8 = rng.integers(-128, 128, (E, K, N)).astype(np.int8)
        scales = rng.uniform(0.01, 0.04, (E, N)).astype(np.float32)
        variants = {
            "f32 weights": ([lhs, save("w.npy", (w8 * scales[:, None, :])
                                       .astype(np.float32)), sizes], False),
            "int8 weights": ([lhs, save("w8.npy", w8), sizes,
                              save("s.npy", scales)], True)}
        paths = {}
        for name, (_, int8) in variants.items():
            paths[name] = os.path.join(d, ("int8" if int8 else "f32") + ".mlir")
            with open(paths[name], "w") as f:
                f.write(ir(int8))
        peaks = [peak(args.build, args.threads)]
        times = {name: [] for name in variants}
        for _ in range(args.rounds):
            for name, (inputs, _) in variants.items():
                times[name].append(bench(args.build, paths[name], inputs,
                                         args.runs, args.threads))
        peaks.append(peak(args.build, args.threads))
    result = {"shape": dict(m=M, E=E, k=K, n=N), "threads": args.threads,
              "peak_gflops": peaks, "variants": {}}
    for name, t in times.items():
        best = min(m for _, m in t)
        median = sorted(md for md, _ in t)[len(t) // 2]
        gf = flops / best / 1e6
        result["variants"][name] = dict(min_ms=best, median_ms=median,
                                        gflops_min=gf, rounds=t)
        print(f"{name:13s} min {best:7.2f} ms  median {median:7.2f} ms  "
              f"{gf:6.1f} GFLOP/s  {100 * gf / max(peaks):5.1f} % of peak "
              f"{max(peaks):.1f}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
