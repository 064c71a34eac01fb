#!/usr/bin/env python3
"""Cold compile vs warm artifact-cache hit, process start to a loaded kernel.

For fa-d128 (WORKLOADS.md: B1 S2048 H16 D128, causal and not) runs
`ejk-run FILE --entry fa --load-only --verbose`:
  cold: with an empty EJK_CACHE_DIR: ejk-run's front misses and execs
        ejk-run-compile, which compiles, stores the artifact and records it
        in the source index;
  warm: again with the same cache: the front finds the artifact through the
        source index, verifies it and loads it, without loading MLIR;
  warm via compiler: `ejk-run-compile` itself on the same cache (loads
        libMLIR/libLLVM, parses, keys the IR after config selection, hits):
        what the warm run cost before the front.
Whole-process wall time is measured here around the process (the number the
5 % bar is about); the in-process time (main() to a loaded module; for the
cold run, main() of ejk-run-compile) and the cache line come from --verbose.
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
    ejk_run_compile = os.path.join(args.build, "bin", "ejk-run-compile")
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
            flags = [path, "--entry", "fa", "--load-only", "--verbose"]
            runs = (("cold", ejk_run, "miss"), ("warm", ejk_run, "hit"),
                    ("warm via compiler", ejk_run_compile, "hit"))
            rows = {kind: [] for kind, _, _ in runs}
            for i in range(args.runs):
                env = dict(os.environ,
                           EJK_CACHE_DIR=os.path.join(work, f"{name}-{i}"))
                for kind, tool, expected in runs:
                    wall, stderr = timed([tool] + flags, env)
                    ready, outcome, step, key = parse(stderr)
                    if outcome != expected:
                        raise SystemExit(f"{kind} run was a {outcome}")
                    if (kind == "warm") != ("through the source index"
                                            in stderr):
                        raise SystemExit(f"{kind} run: unexpected path:\n"
                                         f"{stderr}")
                    rows[kind].append((wall, ready, step, key))
            med = {kind: [statistics.median(r[j] for r in rows[kind])
                          for j in range(4)] for kind in rows}
            for kind in rows:
                m = med[kind]
                print(f"| {name} | {kind} | {m[0] * 1e3:.1f} | "
                      f"{m[1] * 1e3:.1f} | {m[2] * 1e3:.1f} | "
                      f"{m[3] * 1e3:.1f} |")
            cold = med["cold"]
            for kind in ("warm", "warm via compiler"):
                print(f"| {name} | {kind} / cold | "
                      f"**{100 * med[kind][0] / cold[0]:.1f} %** | "
                      f"{100 * med[kind][1] / cold[1]:.1f} % | | |")
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
