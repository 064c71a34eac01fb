#!/usr/bin/env python3
"""Tuned vs heuristic configs on the CPU workloads, and the time to tune.

For each workload (WORKLOADS.md ids), tunes the shape with
`ejk-tune --space small` into a fresh cache (timing the tuning), then runs
`ejk-run --bench` alternately with the heuristic config (an empty cache) and
the tuned one, several times, so that the shared machine's load drifts hit
both alike. Prints a table (and JSON with --json FILE). Usage:

  python3 bench/cpu/tuning.py [--build build] [--runs 5] [--rounds 3]
                              [--only fa-d64,fa-d128]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

WORKLOADS = [
    # id, S, H, D, causal
    ("fa-d128", 2048, 16, 128, False),
    ("fa-d128-causal", 2048, 16, 128, True),
    ("fa-d64", 1024, 16, 64, False),
    ("fa-d64-causal", 1024, 16, 64, True),
]


def attention_ir(s, h, d, causal):
    t = f"tensor<1x{s}x{h}x{d}xf32>"
    attrs = " {causal}" if causal else ""
    return (f"func.func @attention(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
            f"  %o = ejk.flash_attention %q, %k, %v{attrs} : {t}, {t}, {t} -> {t}\n"
            f"  return %o : {t}\n}}\n")


def run(cmd, env):
    result = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{result.stdout}{result.stderr}")
    return result.stdout + result.stderr


def bench(bindir, path, cache, runs):
    env = dict(os.environ, EJK_CACHE_DIR=cache)
    out = run([os.path.join(bindir, "ejk-run"), path, "--entry", "attention",
               "--random-inputs", "1", "--bench", str(runs),
               "--ejk-explain-configs"], env)
    median = float(re.search(r"median ([0-9.]+) ms", out).group(1))
    gflops = float(re.search(r"([0-9.]+) GFLOP/s \(median\)", out).group(1))
    config = re.search(r"config (#ejk.config<[^>]*>) from the (\w+) tier",
                       out)
    return median, gflops, config.group(1), config.group(2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only")
    parser.add_argument("--json")
    args = parser.parse_args()
    bindir = os.path.join(args.build, "bin")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        empty = os.path.join(tmp, "empty")
        for wid, s, h, d, causal in WORKLOADS:
            if args.only and wid not in args.only.split(","):
                continue
            path = os.path.join(tmp, wid + ".mlir")
            with open(path, "w") as f:
                f.write(attention_ir(s, h, d, causal))
            cache = os.path.join(tmp, "cache-" + wid)
            start = time.time()
            run([os.path.join(bindir, "ejk-tune"), path, "--space", "small"],
                dict(os.environ, EJK_CACHE_DIR=cache))
            tune_s = time.time() - start
            heur, tuned = [], []
            for _ in range(args.rounds):
                heur.append(bench(bindir, path, empty, args.runs))
                tuned.append(bench(bindir, path, cache, args.runs))
            h_ms = statistics.median(x[0] for x in heur)
            t_ms = statistics.median(x[0] for x in tuned)
            rows.append({
                "id": wid, "tune_seconds": round(tune_s, 1),
                "heuristic_config": heur[0][2], "heuristic_ms": h_ms,
                "heuristic_gflops": statistics.median(x[1] for x in heur),
                "tuned_config": tuned[0][2], "tuned_tier": tuned[0][3],
                "tuned_ms": t_ms,
                "tuned_gflops": statistics.median(x[1] for x in tuned),
                "speedup": round(h_ms / t_ms, 3)})
            r = rows[-1]
            print(f"{wid:16} tune {r['tune_seconds']:5.1f} s | heuristic "
                  f"{r['heuristic_config']:32} {h_ms:8.2f} ms | tuned "
                  f"{r['tuned_config']:32} {t_ms:8.2f} ms | x{r['speedup']}",
                  flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
