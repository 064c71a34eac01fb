#!/usr/bin/env python3
"""The GPU half of the benchmark: ejk (precompiled, through the MLIR-free
runner) against PyTorch SDPA and JAX on CUDA.

Two steps, because the GPU machine (the H100) has no MLIR, and an optional third:

  1. here, with the compiler:
       bench/gpu.py prepare --out ARTIFACTS [--workloads ...] [--target vulkan]
                            [--fingerprint FILE | --fingerprint local]
     writes each workload's IR and compiles it with `ejkc --target vulkan
     --fingerprint FILE` (default bench/vulkan/h100.fingerprint: ahead of
     time for the H100; `local`: for this machine's Vulkan device, e.g.
     lavapipe) into ARTIFACTS/<workload>/; ARTIFACTS/artifacts.json records
     what compiled and, for what did not, ejkc's error.
  2. there, with the runtime only (bench/runner: ejk-bench-run):
       python3 bench/gpu.py run --artifacts ARTIFACTS --runner PATH/ejk-bench-run
     makes the same seeded inputs as the CPU harness (f16, BSHD), then, per
     workload, measures ejk (through the runner: GPU timestamps around its
     dispatches) and each peer (a worker process per peer, built once) in
     --rounds rounds, round-robin; each measurement first keeps the GPU busy
     for --warm-s seconds (an idle GPU drops its clocks) and is bracketed by
     nvidia-smi samples of the SM clock and throttle reasons
     (harness/gpu_clocks.py); one taken below the application clock is
     flagged. The table gives the median over rounds. It compares every
     output with ejk's (or, while ejk is pending, with the f32 PyTorch
     peer), measures fp16/f32 GEMM and copy rates with PyTorch, prints the
     table, writes bench/results/gpu-<date>.json and .png and refreshes the
     GPU section of docs/benchmarks.md.
  3. (optional) bench/gpu.py report RESULTS.json: the table, chart and docs
     section again from a run's JSON, e.g. one made from a copy of the tree.

Default workloads: gfa-d128 and gfa-d128-causal (B4 S2048 H16 D128, fp16).
`--device cpu` runs the same code on the CPU on a small shape (a test of the
harness itself, with `prepare --target cpu`, or `prepare --fingerprint local`
and `run --ejk-device vulkan` for ejk on lavapipe): CUDA-only peers then
report their error.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)

import numpy as np  # noqa: E402

from harness import gpu_clocks, gpu_peers, gpu_report, report, workloads  # noqa: E402
from harness.workloads import Workload  # noqa: E402
from harness.ejk import BENCH_RE  # noqa: E402
from harness.report import fmt_ms  # noqa: E402

WALL_RE = re.compile(r"wall median ([0-9.]+) ms, min ([0-9.]+) ms")
TIMED_RE = re.compile(r"timed: unix ([0-9.]+) to ([0-9.]+)")
SMOKE = [Workload("gsmoke", "attention", "f16", dict(B=1, Sq=256, Sk=256, Hq=4, Hkv=4, D=64)),
         Workload("gsmoke-causal", "attention", "f16",
                  dict(B=1, Sq=256, Sk=256, Hq=4, Hkv=4, D=64), True)]
ALL = {w.id: w for w in workloads.GPU_WORKLOADS + SMOKE}
DEFAULT = "gfa-d128,gfa-d128-causal"


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def pick(ids):
    bad = [i for i in ids.split(",") if i not in ALL]
    if bad:
        sys.exit(f"gpu: unknown workload(s) {', '.join(bad)}; known: {', '.join(ALL)}")
    return [ALL[i] for i in ids.split(",")]


def git_commit():
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


# --- prepare (on the machine with the compiler) ------------------------------

def prepare(args):
    ejkc = os.path.join(args.build, "bin", "ejkc")
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    fingerprint = None
    if args.target == "vulkan" and args.fingerprint != "local":
        fingerprint = os.path.abspath(args.fingerprint)
        if not os.path.exists(fingerprint):
            sys.exit(f"gpu: no fingerprint file {fingerprint} (--fingerprint local compiles "
                     f"for this machine's Vulkan device)")
    record = {"target": args.target, "commit": git_commit(),
              "fingerprint": (os.path.relpath(fingerprint, ROOT) if fingerprint else
                              "local" if args.target == "vulkan" else None),
              "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "workloads": {}}
    failures = 0
    for w in pick(args.workloads):
        d = os.path.join(out, w.id)
        os.makedirs(d, exist_ok=True)
        ir = os.path.join(d, w.entry() + ".mlir")
        with open(ir, "w") as f:
            f.write(w.ejk_ir())
        argv = [ejkc, f"--target={args.target}", ir, "-o", os.path.join(d, "artifact")]
        if fingerprint:
            argv += ["--fingerprint", fingerprint]
        r = subprocess.run(argv, capture_output=True, text=True)
        manifest = os.path.join(w.id, "artifact", w.entry() + ".json")
        if r.returncode == 0 and os.path.exists(os.path.join(out, manifest)):
            record["workloads"][w.id] = {"manifest": manifest, "entry": w.entry()}
            log(f"{w.id}: compiled ({manifest})")
        else:
            lines = [l for l in (r.stderr + r.stdout).splitlines() if "error" in l]
            msg = lines[0].strip() if lines else f"ejkc exited {r.returncode}"
            record["workloads"][w.id] = {"error": msg}
            failures += 1
            log(f"{w.id}: not compiled: {msg}")
    with open(os.path.join(out, "artifacts.json"), "w") as f:
        json.dump(record, f, indent=1)
    log(f"wrote {os.path.join(out, 'artifacts.json')}")
    return 1 if failures else 0


# --- worker (one peer, one workload, its own process) --------------------------

def worker(args):
    gpu_peers.limit(args.peer, args.device)
    if not (args.peak or args.probe):
        return serve(args)
    try:
        if args.peak:
            out = gpu_peers.torch_peak(args.device, args.warm_s,
                                       8192 if args.device == "cuda" else 512)
        else:
            out = {"version": gpu_peers.version(args.peer)}
    except Exception as e:  # a framework error is a result to report
        out = {"error": _error_text(e)}
    with open(args.out_json, "w") as f:
        json.dump(out, f)
    return 0


def serve(args):
    """Builds the peer once (the compiling call's output goes to --out-npy),
    says {"ready": ...}, then answers each "measure" line on stdin with one
    measurement; one JSON line each, on the original stdout (the frameworks'
    own prints go to stderr)."""
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)

    def say(obj):
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    try:
        w = ALL[args.workload]
        arrays = [np.load(os.path.join(args.inputs, n + ".npy")) for n in w.input_names()]
        run, sync, to_numpy = gpu_peers.build(args.peer, w, arrays, args.device)
        start = time.perf_counter()
        first = run()
        sync(first)
        compile_s = time.perf_counter() - start
        np.save(args.out_npy, to_numpy(first))
        say({"ready": True, "compile_s": compile_s})
        for line in sys.stdin:
            if line.strip() != "measure":
                break
            say(gpu_peers.measure(run, sync, args.runs, args.warm_s))
    except Exception as e:  # a framework error is a result to report
        say({"error": _error_text(e)})
    return 0


def _error_text(e):
    msg = " ".join(f"{type(e).__name__}: {e}".split()).split(" ----------")[0]
    return msg[:600]


def spawn(tmp, tag, extra, args):
    """Runs a one-shot worker (--probe, --peak); its JSON result or {"error": ...}."""
    out_json = os.path.join(tmp, tag + ".json")
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "worker", "--device",
                        args.device, "--warm-s", str(args.warm_s), "--out-json", out_json] +
                       extra, capture_output=True, text=True)
    if not os.path.exists(out_json):
        tail = (r.stderr.strip().splitlines() or [f"worker exited {r.returncode}"])[-1]
        return {"error": tail[:600]}
    with open(out_json) as f:
        return json.load(f)


class Peer:
    """A peer's worker process for one workload, kept across the rounds so
    that a round times the kernels, not an import and a compilation."""

    def __init__(self, name, w, tmp, args):
        self.out_npy = os.path.join(tmp, name + ".out.npy")
        self.err_path = os.path.join(tmp, name + ".err")
        with open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), "worker", "--peer", name,
                 "--device", args.device, "--workload", w.id, "--inputs", tmp, "--runs",
                 str(args.runs), "--warm-s", str(args.warm_s), "--out-npy", self.out_npy],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True)

    def _answer(self):
        line = self.proc.stdout.readline()
        if line:
            return json.loads(line)
        self.proc.wait()
        with open(self.err_path) as f:
            tail = (f.read().strip().splitlines() or
                    [f"worker exited {self.proc.returncode}"])[-1]
        return {"error": tail[:600]}

    def ready(self):
        """{"ready": ..., "compile_s"} once built, or {"error": ...}."""
        return self._answer()

    def measure(self):
        if self.proc.poll() is not None:
            return {"error": f"worker exited {self.proc.returncode}"}
        self.proc.stdin.write("measure\n")
        self.proc.stdin.flush()
        return self._answer()

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait()


# --- run (on the GPU machine) --------------------------------------------------

def run_ejk(w, art, inputs, args, out_npy, artifacts=None):
    """One measurement of ejk through the runner (a fresh process), warmed for
    --warm-s inside it: the runner's own start and input upload idle the GPU.
    `artifacts`: the directory of `art` (default --artifacts)."""
    if art is None:
        return {"pending": "no artifacts given (--artifacts DIR from `bench/gpu.py prepare`)"}
    entry = art["workloads"].get(w.id)
    if entry is None:
        return {"pending": "not in the artifacts (prepare it with --workloads)"}
    if "error" in entry:
        return {"pending": f"ejkc --target {art['target']} failed: {entry['error']}"}
    argv = [args.runner, os.path.join(artifacts or args.artifacts, entry["manifest"]), "--entry",
            entry["entry"], "--runs", str(args.runs), "--warmup", "1", "--warmup-ms",
            str(round(1e3 * args.warm_s))]
    if out_npy:
        argv += ["--output", out_npy]
    if args.ejk_device:
        argv += ["--device", args.ejk_device]
    for p in inputs:
        argv += ["--input", p]
    r = subprocess.run(argv, capture_output=True, text=True)
    text = r.stdout + r.stderr
    m, wall, timed = BENCH_RE.search(text), WALL_RE.search(text), TIMED_RE.search(text)
    if r.returncode != 0 or not m:
        return {"error": (text.strip().splitlines() or [f"exit {r.returncode}"])[-1][:600]}
    res = {"runs": int(m.group(1)), "median_ms": float(m.group(2)),
           "min_ms": float(m.group(3))}
    if wall:
        res.update(wall_median_ms=float(wall.group(1)), wall_min_ms=float(wall.group(2)))
    if timed:
        res["timed_unix"] = [float(timed.group(1)), float(timed.group(2))]
    return res


def with_clocks(m, clocks):
    """Replaces a measurement's timed window by the clock samples around it."""
    window = m.pop("timed_unix", None)
    if window and clocks.samples:
        m["clocks"] = clocks.window(*window)
    return m


def measure_workload(w, art, tmp, inputs, peer_names, info, clocks, args, variants=None):
    """(ejk, {peer: result}, {peer: output}, {variant: result}): every system
    warmed and timed once per round, round-robin, each round's clocks kept;
    the ejk output of the first round and each peer's first output. Each
    variant (another set of ejk artifacts, --variants) is timed right after
    ejk in every round and its first output compared with ejk's."""
    variants = variants or {}
    peers = {n: Peer(n, w, tmp, args) for n in peer_names if "error" not in info[n]}
    results = {n: {"status": "skipped", "message": info[n]["error"]}
               for n in peer_names if "error" in info[n]}
    try:
        for n, p in peers.items():  # they build in parallel; nothing is timed meanwhile
            results[n] = p.ready()
        rounds = {n: [] for n in ["ejk"] + ["ejk:" + v for v in variants] + list(peers)}
        ejk_out = os.path.join(tmp, "ejk.out.npy")
        for r in range(args.rounds):
            rounds["ejk"].append(with_clocks(
                run_ejk(w, art, inputs, args, ejk_out if r == 0 else None), clocks))
            for v, (vdir, vart) in variants.items():
                rounds["ejk:" + v].append(with_clocks(run_ejk(
                    w, vart, inputs, args,
                    os.path.join(tmp, f"variant-{v}.out.npy") if r == 0 else None, vdir),
                    clocks))
            for n, p in peers.items():
                if "error" not in results[n] and not any("error" in m for m in rounds[n]):
                    rounds[n].append(with_clocks(p.measure(), clocks))
            log(f"   round {r + 1}: " + ", ".join(
                f"{n} {fmt_ms(m[-1]['median_ms']) if 'median_ms' in m[-1] else 'failed'}"
                for n, m in rounds.items() if m))
    finally:
        for p in peers.values():
            p.close()
    ejk = gpu_report.combine_rounds(rounds.pop("ejk"))
    if "median_ms" in ejk:
        ejk["out_npy"] = ejk_out
    var = {}
    for v in variants:
        var[v] = gpu_report.combine_rounds(rounds.pop("ejk:" + v))
        out = os.path.join(tmp, f"variant-{v}.out.npy")
        if "median_ms" in var[v] and "median_ms" in ejk and os.path.exists(out):
            ok, err, msg = report.compare(np.load(out).astype(np.float32),
                                          np.load(ejk_out).astype(np.float32), "f16")
            var[v].update(status="ok" if ok else "mismatch", max_abs_err=err,
                          checked_against="ejk")
    outs = {}
    for n, p in peers.items():
        if "error" in results[n]:
            results[n]["status"] = "error"
            continue
        results[n] = dict(gpu_report.combine_rounds(rounds[n]),
                          compile_s=results[n]["compile_s"])
        results[n]["status"] = "error" if "error" in results[n] else "unchecked"
        if "error" not in results[n]:
            outs[n] = np.load(p.out_npy)
    return ejk, results, outs, var


def check_outputs(ejk, peers, outs):
    """Compares each peer's output with ejk's (or, while ejk is pending, with
    the f32 peer's) and ejk's with the f32 peer's; the reference's name."""
    ref_name = "ejk" if "out_npy" in ejk else ("torch-f32" if "torch-f32" in outs else None)
    ref = np.load(ejk.pop("out_npy")) if ref_name == "ejk" else outs.get(ref_name)
    for n, p in peers.items():
        if n in outs and ref is not None and n != ref_name:
            ok, err, msg = report.compare(outs[n], ref.astype(np.float32), "f16")
            p.update(status="ok" if ok else "mismatch", max_abs_err=err,
                     checked_against=ref_name)
            if msg:
                p["message"] = msg
        elif n == ref_name:
            p.update(status="ok", checked_against="itself (the reference)")
        elif n in outs:
            p["message"] = "no reference output (neither ejk nor torch-f32 ran)"
    if ref_name == "ejk" and "torch-f32" in outs:
        ok, err, msg = report.compare(ref.astype(np.float32), outs["torch-f32"], "f16")
        ejk.update(check="ok" if ok else "differs from the f32 reference: " + msg,
                   max_abs_err_vs_f32=err)
    return ref_name


def run(args):
    chosen = pick(args.workloads or (DEFAULT if args.device == "cuda" else "gsmoke,gsmoke-causal"))
    peer_names = [] if args.peers == "none" else args.peers.split(",")
    bad = [n for n in peer_names if n not in gpu_peers.PEERS]
    if bad:
        sys.exit(f"gpu: unknown peer(s) {', '.join(bad)}; known: {', '.join(gpu_peers.PEERS)}")
    art = None
    if args.artifacts:
        with open(os.path.join(args.artifacts, "artifacts.json")) as f:
            art = json.load(f)
        if not os.access(args.runner, os.X_OK):
            sys.exit(f"gpu: no runner at {args.runner} (build bench/runner, pass --runner)")
    variants = {}
    for item in (args.variants.split(",") if args.variants else []):
        name, _, vdir = item.partition("=")
        with open(os.path.join(vdir, "artifacts.json")) as f:
            variants[name] = (vdir, json.load(f))
    started = datetime.datetime.now(datetime.timezone.utc)
    with tempfile.TemporaryDirectory(prefix="ejk-gpu-bench-") as tmp, \
            gpu_clocks.ClockMonitor(args.smi_index) as clocks:
        if clocks.error:
            log(f"clocks: {clocks.error}")
        peak = with_clocks(spawn(tmp, "peak", ["--peer", "torch-flash", "--peak"], args), clocks)
        log(f"peak (PyTorch): {peak}")
        info = {n: spawn(tmp, "probe-" + n, ["--peer", n, "--probe"], args) for n in peer_names}
        for n, i in info.items():
            log(f"peer {n}: {i.get('version') or 'skipped: ' + i.get('error', '')}")
        rows = []
        for w in chosen:
            log(f"== {w.id}")
            inputs = []
            for name, arr in zip(w.input_names(), w.make_inputs(seed=args.seed)):
                inputs.append(os.path.join(tmp, name + ".npy"))
                np.save(inputs[-1], arr)
            ejk, peers, outs, var = measure_workload(w, art, tmp, inputs, peer_names, info,
                                                     clocks, args, variants)
            ref_name = check_outputs(ejk, peers, outs)
            rows.append(gpu_report.finish_row(w, ejk, peers, peak, ref_name))
            if var:
                rows[-1]["variants"] = var
        device_clocks = clocks.device()
    summary = ("through bench/runner/ejk-bench-run on device " + (args.ejk_device or "from the "
               "manifest") + f", artifacts of commit {art['commit']} ({art['target']}, "
               f"fingerprint {art.get('fingerprint')})" if art else "pending, no artifacts")
    result = {"date": started.isoformat(timespec="seconds"),
              "machine": {"peak": peak, "host_cpu": _host_cpu(), "clocks": device_clocks},
              "settings": {"device": args.device, "runs": args.runs, "rounds": args.rounds,
                           "warm_s": args.warm_s, "seed": args.seed,
                           "command": " ".join(sys.argv[1:])},
              "ejk": {"artifacts": art, "summary": summary},
              "peers": info, "results": rows}
    os.makedirs(args.out_dir, exist_ok=True)
    stem = f"gpu-{started.date().isoformat()}" + ("" if args.device == "cuda" else "-selftest")
    json_path = os.path.join(args.out_dir, stem + ".json")
    with open(json_path, "w") as f:
        json.dump(result, f, indent=1)
    publish(result, json_path, args.docs if args.device == "cuda" and not args.no_docs else None)
    print_variants(rows)
    return 1 if any("error" in r["ejk"] for r in rows) else 0


def print_variants(rows):
    """Each --variants set's time per workload beside ejk's and the peers'."""
    names = sorted({v for r in rows for v in r.get("variants", {})})
    if not names:
        return
    print("variants (median over rounds, ms; xR = variant speed / peer speed; "
          "output checked against ejk's):")
    for r in rows:
        peers = {n: p["median_ms"] for n, p in r["peers"].items() if "median_ms" in p}
        base = r["ejk"].get("median_ms")
        print(f"  {r['workload']}: ejk {fmt_ms(base) if base else 'failed'}")
        for v in names:
            m = r.get("variants", {}).get(v, {})
            if "median_ms" not in m:
                print(f"    {v:10s} {m.get('error') or m.get('pending') or 'not run'}")
                continue
            ratios = " ".join(f"x{t / m['median_ms']:.2f} {n}" for n, t in peers.items())
            print(f"    {v:10s} {fmt_ms(m['median_ms'])} (min {fmt_ms(m['min_ms'])}) {ratios} "
                  f"{m.get('status', 'unchecked')} {m.get('max_abs_err', '')}")


def publish(result, json_path, docs):
    """Prints the table, writes the chart beside the JSON and, given a docs
    file, refreshes its GPU section."""
    print(gpu_report.text_table(result))
    png = json_path[:-5] + ".png"
    why = gpu_report.write_chart(result, png)
    log(f"wrote {json_path}" + (f"; no chart: {why}" if why else f" and {png}"))
    if docs:
        gpu_report.refresh(docs, result, os.path.relpath(
            png, os.path.dirname(os.path.abspath(docs))) if os.path.exists(png) else None)
        log(f"refreshed {docs}")


def report_cmd(args):
    """Publishes a results JSON of an earlier run (e.g. one made on the GPU
    machine from a copy of the tree)."""
    with open(args.json) as f:
        result = json.load(f)
    publish(result, args.json, None if args.no_docs else args.docs)
    return 0


def _host_cpu():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    pp = sub.add_parser("prepare", help="compile the GPU workloads (needs ejkc)")
    pp.add_argument("--out", required=True)
    pp.add_argument("--workloads", default=DEFAULT, help="known: " + ", ".join(ALL))
    pp.add_argument("--target", default="vulkan", choices=["vulkan", "cpu"])
    pp.add_argument("--fingerprint", default=os.path.join(BENCH, "vulkan", "h100.fingerprint"),
                    help="the Vulkan device to compile for (default: %(default)s); 'local': "
                         "this machine's Vulkan device")
    pp.add_argument("--build", default=os.path.join(ROOT, "build"))
    pr = sub.add_parser("run", help="time ejk and the peers (on the GPU machine)")
    pr.add_argument("--artifacts", help="the directory `prepare` wrote")
    pr.add_argument("--runner", default=os.path.join(ROOT, "build-runner", "bin",
                                                      "ejk-bench-run"))
    pr.add_argument("--ejk-device", help="runtime device spec (default: the manifest's target)")
    pr.add_argument("--variants", help="NAME=DIR,...: more ejk artifact sets (`prepare`), "
                    "timed after ejk in every round, their outputs compared with ejk's")
    pr.add_argument("--workloads", help=f"default {DEFAULT} (--device cpu: gsmoke,gsmoke-causal)")
    pr.add_argument("--peers", default="torch-flash,torch-cudnn,torch-f32,jax-cudnn,jax-xla")
    pr.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    pr.add_argument("--runs", type=int, default=20, help="samples per measurement")
    pr.add_argument("--rounds", type=int, default=3,
                    help="measurements of each system, round-robin; the table gives the "
                         "median over rounds (default %(default)s)")
    pr.add_argument("--warm-s", type=float, default=2.0,
                    help="seconds of back-to-back work before each measurement "
                         "(default %(default)s)")
    pr.add_argument("--smi-index", type=int, default=0,
                    help="nvidia-smi's index of the GPU whose clocks are sampled")
    pr.add_argument("--seed", type=int, default=0)
    pr.add_argument("--out-dir", default=os.path.join(BENCH, "results"))
    pr.add_argument("--docs", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    pr.add_argument("--no-docs", action="store_true")
    pj = sub.add_parser("report", help="print and publish an earlier run's results JSON")
    pj.add_argument("json")
    pj.add_argument("--docs", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    pj.add_argument("--no-docs", action="store_true")
    pw = sub.add_parser("worker")
    pw.add_argument("--peer", required=True)
    pw.add_argument("--device", default="cuda")
    pw.add_argument("--probe", action="store_true")
    pw.add_argument("--peak", action="store_true")
    pw.add_argument("--workload")
    pw.add_argument("--inputs")
    pw.add_argument("--runs", type=int, default=20)
    pw.add_argument("--warm-s", type=float, default=2.0)
    pw.add_argument("--out-json")
    pw.add_argument("--out-npy")
    args = p.parse_args()
    if args.cmd == "run" and (args.runs < 1 or args.rounds < 1 or args.warm_s < 0):
        sys.exit("gpu: --runs and --rounds must be at least 1, --warm-s at least 0")
    return {"prepare": prepare, "run": run, "report": report_cmd,
            "worker": worker}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
