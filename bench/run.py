#!/usr/bin/env python3
"""ejk against its peers on the standard workloads, in one run.

  bench/run.sh [--workloads fa-d128,...] [--peers ejkernel,torch,jax,iree]
               [--runs N] [--threads T] [--smoke] [--no-docs]

For every workload (WORKLOADS.md; bench/harness/workloads.py) it writes one set
of inputs as .npy files, compiles and times ejk on them (ejkc, ejk-run --input
--bench), then times each installed peer on the same files in its own process
(same dtype, shapes, thread count) and compares its output with ejk's. The
machine's FMA peak and read bandwidth are measured before and after the
workloads. Prints a table, writes bench/results/cpu-<date>.json and .png,
and refreshes the generated part of docs/benchmarks.md.

--smoke: the test suite's run: a tiny shape, ejk only (with --check against
the reference evaluator), a small bandwidth buffer; writes to --out-dir and
fails (exit 1) unless every step produced a sane result.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

from harness import workloads, report, chart, markdown  # noqa: E402
from harness.ejk import Ejk  # noqa: E402
from harness.peers import PEERS  # noqa: E402
import importlib  # noqa: E402

WORKER = os.path.join(BENCH, "harness", "worker.py")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def probe_peers(names):
    """{name: {label, description, version | error}}, each probed in its own process."""
    out = {}
    for name in names:
        mod = importlib.import_module("harness.peers." + PEERS[name])
        r = subprocess.run([sys.executable, WORKER, "--peer", name, "--probe"],
                           capture_output=True, text=True)
        try:
            info = json.loads(r.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            info = {"error": (r.stderr.strip().splitlines() or ["probe failed"])[-1]}
        info.update(label=mod.LABEL, description=mod.DESCRIPTION, ops=sorted(mod.OPS))
        if "error" in info:
            log(f"peer {name}: skipped: {info['error']} (run bench/setup.sh to install it)")
        else:
            log(f"peer {name}: {info['version']}")
        out[name] = info
    return out


def run_peer(name, w, tmp, ejk_out, args):
    out_json = os.path.join(tmp, name + ".json")
    out_npy = os.path.join(tmp, name + ".out.npy")
    r = subprocess.run([sys.executable, WORKER, "--peer", name, "--workload", w.id,
                        "--inputs", tmp, "--threads", str(args.threads), "--runs",
                        str(args.runs), "--warmup", str(args.warmup), "--max-seconds",
                        str(args.max_seconds), "--out-json", out_json, "--out-npy", out_npy],
                       capture_output=True, text=True)
    if not os.path.exists(out_json):
        tail = (r.stderr.strip().splitlines() or [f"worker exited {r.returncode}"])[-1]
        return {"status": "error", "message": tail[:600]}
    with open(out_json) as f:
        res = json.load(f)
    if "error" in res:
        return {"status": "error", "message": res["error"]}
    if ejk_out is None:
        res.update(status="unchecked", message="no ejk output to compare with")
        return res
    ok, max_err, msg = report.compare(np.load(out_npy), ejk_out, w.dtype)
    res.update(status="ok" if ok else "mismatch", max_abs_err=max_err)
    if msg:
        res["message"] = msg
    return res


def run_workload(w, ejk, peer_info, args):
    load = os.getloadavg()[0]
    log(f"== {w.id} (load average {load:.2f})")
    with tempfile.TemporaryDirectory(prefix="ejk-bench-") as tmp:
        inputs = w.make_inputs(seed=args.seed)
        paths = []
        for name, arr in zip(w.input_names(), inputs):
            paths.append(os.path.join(tmp, name + ".npy"))
            np.save(paths[-1], arr)
        ir = os.path.join(tmp, w.id + ".mlir")
        with open(ir, "w") as f:
            f.write(w.ejk_ir())

        compile_s, err = ejk.compile(ir, os.path.join(tmp, "artifact"))
        ejk_out = None
        if err:
            res = {"skipped": f"ejk cannot compile {w.op} yet: {err}"}
            log(f"   ejk: skipped: {err}")
        else:
            out_npy = os.path.join(tmp, "ejk.out.npy")
            res = ejk.run(w, ir, paths, out_npy, args.runs, check=args.smoke)
            res["compile_s"] = compile_s
            if "error" in res:
                log(f"   ejk: error: {res['error']}")
            else:
                ejk_out = np.load(out_npy)
                log(f"   ejk: median {res['median_ms']:.3f} ms")

        peers = {}
        for name, info in peer_info.items():
            if "error" in info:
                peers[name] = {"status": "skipped", "message": info["error"]}
            elif w.op not in info["ops"]:
                peers[name] = {"status": "n/a", "message": f"no {w.op} entry point"}
            else:
                peers[name] = run_peer(name, w, tmp, ejk_out, args)
                p = peers[name]
                log(f"   {name}: {p['status']}" +
                    (f", median {p['median_ms']:.3f} ms" if "median_ms" in p else "") +
                    (f": {p['message']}" if p.get("message") else ""))
    res["loadavg_before"] = load
    return res, peers


def keep_best(old, new):
    """Of two measurements of one system, the one with the lower median (an
    error or skip only when neither timed); every median is kept in the record."""
    medians = old.get("medians_ms", []) + ([new["median_ms"]] if "median_ms" in new else [])
    best = old
    if "median_ms" in new and ("median_ms" not in old or new["median_ms"] < old["median_ms"]):
        best = new
    best["medians_ms"] = medians
    return best


def smoke_check(result):
    """The smoke run's assertions: a failure here fails the test suite."""
    problems = []
    m = result["machine"]["peak"]
    if not (m["fma_gflops"] > 0 and m["read_gbps"] > 0):
        problems.append(f"peak not measured: {m}")
    for row in result["results"]:
        e = row["ejk"]
        if not e.get("median_ms", 0) > 0 or not e.get("throughput", 0) > 0:
            problems.append(f"{row['workload']}: no ejk time: {e}")
        elif not e.get("check") or not all(c.endswith(": ok") for c in e["check"]):
            problems.append(f"{row['workload']}: ejk output not checked ok: {e.get('check')}")
        elif len(e["check"]) != len(workloads.ALL[row["workload"]].output_shapes()):
            problems.append(f"{row['workload']}: not every result checked: {e['check']}")
    return problems


def publish(result, json_path, full, args):
    """Chart next to the JSON, and the docs for a full run."""
    png_path = json_path[:-len(".json")] + ".png"
    why = chart.write_chart(result, png_path)
    log(f"chart not written: {why}" if why else f"wrote {png_path}")
    if full and not args.no_docs:
        rel = os.path.relpath(png_path, os.path.dirname(os.path.abspath(args.docs)))
        markdown.refresh(args.docs, result, rel)
        log(f"refreshed {args.docs}")
    elif not args.smoke and not args.no_docs:
        log("docs not refreshed: only a run of every workload with every peer does that")


def replot(args):
    with open(args.replot) as f:
        result = json.load(f)
    print(report.text_table(result))
    publish(result, os.path.abspath(args.replot),
            not os.path.basename(args.replot).endswith("-subset.json"), args)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--workloads", help="comma-separated ids (default: every CPU workload): " +
                   ", ".join(w.id for w in workloads.CPU_WORKLOADS))
    p.add_argument("--peers", default=",".join(PEERS),
                   help="comma-separated peers, or 'none' (default: %(default)s)")
    p.add_argument("--runs", type=int, default=10, help="timed runs after warm-up")
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument("--max-seconds", type=float, default=60.0,
                   help="a peer's timed runs stop after this long (at least 3 runs)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=1,
                   help="run every workload R times (round robin) and keep, for each "
                        "system, the repeat with the lowest median: the same rule for all, "
                        "against bursts of load on a shared machine")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--out-dir", default=os.path.join(BENCH, "results"))
    p.add_argument("--docs", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    p.add_argument("--no-docs", action="store_true", help="do not refresh --docs")
    p.add_argument("--target", default="cpu", choices=["cpu", "vulkan"])
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--replot", metavar="JSON",
                   help="no run: print the table, redraw the chart and refresh the docs "
                        "from a results file")
    args = p.parse_args()

    if args.replot:
        return replot(args)

    if args.target != "cpu":
        log("bench: the GPU run is bench/gpu.py (prepare here, run on the GPU machine; "
            "docs/benchmarks.md, 'GPU')")
        return 2
    if args.smoke:
        chosen, peer_names, args.runs = workloads.SMOKE_WORKLOADS, [], min(args.runs, 3)
    else:
        ids = args.workloads.split(",") if args.workloads else [
            w.id for w in workloads.CPU_WORKLOADS]
        unknown = [i for i in ids if i not in workloads.ALL]
        if unknown:
            log(f"bench: unknown workload(s) {', '.join(unknown)}; known: "
                f"{', '.join(workloads.ALL)}")
            return 2
        chosen = [workloads.ALL[i] for i in ids]
        peer_names = [] if args.peers == "none" else args.peers.split(",")
        bad = [n for n in peer_names if n not in PEERS]
        if bad:
            log(f"bench: unknown peer(s) {', '.join(bad)}; known: {', '.join(PEERS)}")
            return 2
    if args.threads < 1 or args.runs < 1 or args.repeat < 1:
        log("bench: --threads, --runs and --repeat must be at least 1")
        return 2

    try:
        ejk = Ejk(args.build, args.threads)
    except FileNotFoundError as e:
        log(f"bench: {e}")
        return 2
    read_mib = 64 if args.smoke else None
    loadavg_start = os.getloadavg()
    try:
        peak_start = ejk.peak(read_mib)
    except (subprocess.CalledProcessError, ValueError) as e:
        log(f"bench: ejk-cpu-peak failed: {e}")
        return 2
    log(f"peak: {peak_start}; load average {loadavg_start}")
    peer_info = probe_peers(peer_names)

    started = datetime.datetime.now(datetime.timezone.utc)
    best = {}
    for rep in range(args.repeat):
        if args.repeat > 1:
            log(f"-- repeat {rep + 1} of {args.repeat}")
        for w in chosen:
            res, peers = run_workload(w, ejk, peer_info, args)
            if "median_ms" in res:
                res["medians_ms"] = [res["median_ms"]]
            for p_ in peers.values():
                if "median_ms" in p_:
                    p_["medians_ms"] = [p_["median_ms"]]
            if w.id in best:
                old_res, old_peers = best[w.id]
                res = keep_best(old_res, res)
                peers = {n: keep_best(old_peers[n], peers[n]) for n in peers}
            best[w.id] = (res, peers)
    rows = [(w, *best[w.id]) for w in chosen]
    peak_end = ejk.peak(read_mib)
    peak = {k: max(peak_start[k], peak_end[k]) for k in ("fma_gflops", "read_gbps")}

    result = {
        "date": started.isoformat(timespec="seconds"),
        "duration_s": round((datetime.datetime.now(datetime.timezone.utc) - started)
                            .total_seconds(), 1),
        "machine": {"cpu": cpu_model(), "cores": os.cpu_count(), "isa": peak_start["isa"],
                    "peak": peak, "peak_start": peak_start, "peak_end": peak_end,
                    "loadavg_start": loadavg_start, "loadavg_end": os.getloadavg()},
        "settings": {"threads": args.threads, "runs": args.runs, "warmup": args.warmup,
                     "seed": args.seed, "max_seconds": args.max_seconds,
                     "repeat": args.repeat,
                     "command": " ".join(sys.argv[1:])},
        "peers": peer_info,
        "results": [report.finish_row(w, res, peers, peak) for w, res, peers in rows],
    }
    print(report.text_table(result))

    full = (not args.smoke and {w.id for w in chosen} ==
            {w.id for w in workloads.CPU_WORKLOADS} and set(peer_names) == set(PEERS))
    stem = "smoke" if args.smoke else f"cpu-{started.date().isoformat()}" + (
        "" if full else "-subset")
    os.makedirs(args.out_dir, exist_ok=True)
    json_path = os.path.join(args.out_dir, stem + ".json")
    with open(json_path + ".tmp", "w") as f:
        json.dump(result, f, indent=1)
    os.replace(json_path + ".tmp", json_path)
    log(f"wrote {json_path}")
    publish(result, json_path, full, args)

    if args.smoke:
        with open(json_path) as f:
            problems = smoke_check(json.load(f))
        for msg in problems:
            log(f"smoke: FAILED: {msg}")
        if problems:
            return 1
        log("smoke: ok")
    errors = [r for r in result["results"] if "error" in r["ejk"]]
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
