#!/usr/bin/env python3
"""Times one peer on one workload, in its own process.

  worker.py --peer NAME --probe
      prints {"version": ...} or {"error": ...}
  worker.py --peer NAME --workload ID --inputs DIR --threads T --runs N
            --warmup W --max-seconds S --out-json F --out-npy O

The process pins itself to the first T CPUs and bounds the framework's threads
before importing it, runs W warm-up calls (the first one compiles; one only when it took over 5 s), then N
timed calls (fewer when they would exceed S seconds, at least 3), and writes
the times and the output. Any failure is written as {"error": ...}, never
raised past main, so the harness reports it and goes on.
"""
import argparse
import importlib
import json
import os
import statistics
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from harness import workloads  # noqa: E402
from harness.peers import PEERS  # noqa: E402


def pin(threads):
    cpus = sorted(os.sched_getaffinity(0))
    if threads < len(cpus):
        os.sched_setaffinity(0, cpus[:threads])


def measure(args, peer):
    import numpy as np
    w = workloads.ALL[args.workload]
    arrays = [np.load(os.path.join(args.inputs, n + ".npy")) for n in w.input_names()]
    start = time.perf_counter()
    run, to_numpy = peer.build(w, arrays, args.threads)
    build_s = time.perf_counter() - start
    start = time.perf_counter()
    result = run()
    first_s = time.perf_counter() - start
    # A call slower than 5 s is warm after the first one: more warm-up would
    # only make the run longer.
    for _ in range(max(0, args.warmup - 1) if first_s < 5 else 0):
        result = run()
    np.save(args.out_npy, to_numpy(result))
    del result
    times = []
    budget_end = time.perf_counter() + args.max_seconds
    for i in range(args.runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
        if i + 1 >= 3 and time.perf_counter() > budget_end:
            break
    return {"median_ms": 1e3 * statistics.median(times), "min_ms": 1e3 * min(times),
            "runs": len(times), "times_ms": [1e3 * t for t in times],
            "compile_s": build_s + first_s}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--peer", required=True, choices=sorted(PEERS))
    p.add_argument("--probe", action="store_true")
    p.add_argument("--workload")
    p.add_argument("--inputs")
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--max-seconds", type=float, default=60.0)
    p.add_argument("--out-json")
    p.add_argument("--out-npy")
    args = p.parse_args()

    pin(args.threads)
    peer = importlib.import_module("harness.peers." + PEERS[args.peer])
    peer.limit_threads(args.threads)
    try:
        out = {"version": peer.version()} if args.probe else measure(args, peer)
    except Exception as e:  # any framework error is a result to report
        lines = traceback.format_exception_only(type(e), e)
        # JAX appends a long note on its filtered traceback: keep the message.
        msg = " ".join(l.strip() for l in lines).split(" --------------------")[0]
        out = {"error": msg[:600]}
    text = json.dumps(out)
    if args.out_json:
        with open(args.out_json, "w") as f:
            f.write(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
