#!/usr/bin/env python3
"""CPU flash-attention benchmark: the standard workloads against the machine.

Runs ejk-run --bench on the CPU workloads of WORKLOADS.md (fa-d128, fa-d64,
causal and not, fp32, and a decode shape), measures the machine's FMA peak
and read bandwidth with ejk-cpu-peak in the same run, and prints a table
(and JSON with --json FILE). Usage:

  python3 bench/cpu/attention.py [--build build] [--runs 10] [--json out.json]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

WORKLOADS = [
    # id, B, Sq, Sk, Hq, Hkv, D, causal, ggml GFLOP/s (WORKLOADS.md)
    ("fa-d128", 1, 2048, 2048, 16, 16, 128, False, 141.0),
    ("fa-d128-causal", 1, 2048, 2048, 16, 16, 128, True, None),
    ("fa-d64", 1, 1024, 1024, 16, 16, 64, False, 123.0),
    ("fa-d64-causal", 1, 1024, 1024, 16, 16, 64, True, None),
    ("decode-gqa-f32", 1, 1, 4096, 32, 8, 128, False, None),
]


def attention_ir(b, sq, sk, hq, hkv, d, causal):
    q = f"tensor<{b}x{sq}x{hq}x{d}xf32>"
    k = f"tensor<{b}x{sk}x{hkv}x{d}xf32>"
    attrs = " {causal}" if causal else ""
    return (f"func.func @attention(%q: {q}, %k: {k}, %v: {k}) -> {q} {{\n"
            f"  %o = ejk.flash_attention %q, %k, %v{attrs} : {q}, {k}, {k} -> {q}\n"
            f"  return %o : {q}\n}}\n")


def run(cmd):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stdout}{result.stderr}")
    return result.stdout + result.stderr


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--json")
    parser.add_argument("--only", help="comma-separated workload ids")
    args = parser.parse_args()
    bindir = os.path.join(args.build, "bin")
    threads = os.environ.get("EJK_NUM_THREADS", str(os.cpu_count()))

    peak = json.loads(run([os.path.join(bindir, "ejk-cpu-peak"), threads]))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for wid, b, sq, sk, hq, hkv, d, causal, ggml in WORKLOADS:
            if args.only and wid not in args.only.split(","):
                continue
            path = os.path.join(tmp, wid + ".mlir")
            with open(path, "w") as f:
                f.write(attention_ir(b, sq, sk, hq, hkv, d, causal))
            # Cold compile: IR file to artifact on disk (ejkc).
            start = time.perf_counter()
            compile_log = run([os.path.join(bindir, "ejkc"), path, "-o", tmp])
            compile_s = time.perf_counter() - start
            out = run([os.path.join(bindir, "ejk-run"), path, "--entry", "attention",
                       "--random-inputs", "1", "--bench", str(args.runs)])
            m = re.search(r"median ([0-9.]+) ms, min ([0-9.]+) ms, ([0-9.]+) GFLOP/s \(median\)", out)
            median_ms, min_ms, gflops = float(m.group(1)), float(m.group(2)), float(m.group(3))
            rows.append({
                "workload": wid, "median_ms": median_ms, "min_ms": min_ms,
                "gflops": gflops, "pct_peak": 100.0 * gflops / peak["fma_gflops"],
                "vs_ggml": gflops / ggml if ggml else None,
                "cold_compile_s": compile_s,
            })

    print(f"machine: {peak['isa']}, {peak['threads']} threads, FMA peak "
          f"{peak['fma_gflops']:.1f} GFLOP/s, read {peak['read_gbps']:.1f} GB/s")
    print(f"{'workload':<16}{'median ms':>11}{'min ms':>9}{'GFLOP/s':>9}{'% peak':>8}"
          f"{'x ggml':>8}{'compile s':>11}")
    for r in rows:
        ratio = f"{r['vs_ggml']:.2f}" if r["vs_ggml"] else "-"
        print(f"{r['workload']:<16}{r['median_ms']:>11.2f}{r['min_ms']:>9.2f}{r['gflops']:>9.1f}"
              f"{r['pct_peak']:>8.1f}{ratio:>8}{r['cold_compile_s']:>11.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"peak": peak, "results": rows}, f, indent=2)


if __name__ == "__main__":
    main()
