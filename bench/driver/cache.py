#!/usr/bin/env python3
"""Cold compile vs warm artifact-cache hit, process start to a loaded kernel.

For fa-d128 (WORKLOADS.md: B1 S2048 H16 D128, causal and not) runs
`ejk-run FILE --entry fa --load-only --verbose`:
  cold: with an empty EJK_CACHE_DIR (compiles and stores the artifact),
  warm: again with the same cache (the verified entry is loaded).
Whole-process wall time is measured here around the process; the in-process
time (main() to a loaded module) and the cache line come from --verbose.
`ejkc --cache-stats` on an empty cache is the floor: starting a process that
links libMLIR/libLLVM and doing nothing. The last column of each workload
is the same artifact (exported by `ejkc -o`) loaded by a program that links
only the runtime (`ejk-bench-run --load-only`): the deployed path, which
does not look the cache up (no IR, no key) and so is not a cache hit.

  /usr/bin/python3 bench/driver/cache.py --build build [--runs 10]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time


def attention_ir(causal):
    t_q = "tensor<1x2048x16x128xf32>"
    attrs = " {causal}" if causal else ""
    return (f"func.func @fa(%q: {t_q}, %k: {t_q}, %v: {t_q}) -> {t_q} {{\n"
            f"  %o = ejk.flash_attention %q, %k, %v{attrs} : {t_q}, {t_q}, "
            f"{t_q} -> {t_q}\n  return %o : {t_q}\n}}\n")


def timed(cmd, env):
    start = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return wall, done.stderr


def parse(stderr):
    ready = float(re.search(r"ready in ([0-9.]+) s", stderr).group(1))
    cache = re.search(r"cache (hit|miss) \S+ in ([0-9.]+) s \(key ([0-9.]+)",
                      stderr)
    return ready, cache.group(1), float(cache.group(2)), float(cache.group(3))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", default="build")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    ejk_run = os.path.join(args.build, "bin", "ejk-run")
    ejkc = os.path.join(args.build, "bin", "ejkc")
    runner = os.path.join(args.build, "bin", "ejk-bench-run")
    work = tempfile.mkdtemp(prefix="ejk-cache-bench-")
    try:
        empty = dict(os.environ, EJK_CACHE_DIR=os.path.join(work, "empty"))
        floor = [timed([ejkc, "--cache-stats"], empty)[0]
                 for _ in range(args.runs)]
        print(f"process floor (ejkc --cache-stats, empty cache): "
              f"median {statistics.median(floor) * 1e3:.1f} ms")
        print("| workload | run | whole process ms (median) | in-process ms "
              "(main to loaded) | cache step ms | of which key ms |")
        print("| --- | --- | --- | --- | --- | --- |")
        for causal in (False, True):
            name = "fa-d128" + ("-causal" if causal else "")
            path = os.path.join(work, name + ".mlir")
            with open(path, "w") as f:
                f.write(attention_ir(causal))
            cmd = [ejk_run, path, "--entry", "fa", "--load-only", "--verbose"]
            rows = {"cold": [], "warm": []}
            for i in range(args.runs):
                env = dict(os.environ,
                           EJK_CACHE_DIR=os.path.join(work, f"{name}-{i}"))
                for kind, expected in (("cold", "miss"), ("warm", "hit")):
                    wall, stderr = timed(cmd, env)
                    ready, outcome, step, key = parse(stderr)
                    if outcome != expected:
                        raise SystemExit(f"{kind} run was a {outcome}")
                    rows[kind].append((wall, ready, step, key))
            for kind in ("cold", "warm"):
                med = [statistics.median(r[j] for r in rows[kind]) * 1e3
                       for j in range(4)]
                print(f"| {name} | {kind} | {med[0]:.1f} | {med[1]:.1f} | "
                      f"{med[2]:.1f} | {med[3]:.1f} |")
            cold = [statistics.median(r[j] for r in rows["cold"])
                    for j in range(2)]
            warm = [statistics.median(r[j] for r in rows["warm"])
                    for j in range(2)]
            print(f"| {name} | warm/cold | {100 * warm[0] / cold[0]:.1f} % | "
                  f"{100 * warm[1] / cold[1]:.1f} % | | |")
            # The deployed path: the exported artifact, runtime only.
            out = os.path.join(work, name + "-artifact")
            timed([ejkc, path, "-o", out], env)
            manifest = os.path.join(out, name + ".json")
            loads = [timed([runner, manifest, "--load-only"], env)[0]
                     for _ in range(args.runs)]
            load = statistics.median(loads)
            print(f"| {name} | runtime-only load of the exported artifact | "
                  f"{load * 1e3:.1f} ({100 * load / cold[0]:.1f} % of cold) "
                  f"| | | |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
