#!/usr/bin/env python3
"""Artifacts of the VK_NV_cooperative_matrix2 attention kernel for bench/gpu.py
(issue 21): takes a directory `bench/gpu.py prepare` wrote (the KHR kernels,
the heuristic's configs) and writes another in the same form whose
flash_attention ops carry a cm2 config, compiled by ejkc with the same
fingerprint. `bench/gpu.py run --variants NAME=OUT` then times them beside
the base set and FlashAttention-2 and checks their outputs.

  cm2_prepare.py BASE OUT --cm2 N [--blocks 128,64,8] [--workloads a,b]
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def with_config(ir, config):
    """`ir` with `config` in its flash_attention op's attribute dictionary."""
    m = re.search(r"(ejk\.flash_attention %\w+, %\w+, %\w+)\s*(\{([^}]*)\})?\s*:", ir)
    if not m:
        sys.exit("cm2_prepare: no flash_attention op in the IR")
    attrs = [a for a in [m.group(3) or ""] if a.strip()]
    attrs.append(f"config = #ejk.config<{config}>")
    return ir[:m.start()] + m.group(1) + " {" + ", ".join(attrs) + "} :" + ir[m.end():]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("base")
    ap.add_argument("out")
    ap.add_argument("--cm2", type=int, required=True)
    ap.add_argument("--blocks", default="128,64,8", help="block_q,block_k,num_subgroups")
    ap.add_argument("--workloads", help="default: every workload of BASE")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    a = ap.parse_args()
    base = json.load(open(os.path.join(a.base, "artifacts.json")))
    fingerprint = os.path.join(ROOT, base["fingerprint"])
    bq, bk, sg = (int(x) for x in a.blocks.split(","))
    config = f"block_q = {bq}, block_k = {bk}, num_subgroups = {sg}, cm2 = {a.cm2}"
    record = dict(base, workloads={})
    chosen = a.workloads.split(",") if a.workloads else list(base["workloads"])
    for w in chosen:
        entry = base["workloads"][w]
        d = os.path.join(a.out, w)
        os.makedirs(d, exist_ok=True)
        ir = open(os.path.join(a.base, w, entry["entry"] + ".mlir")).read()
        path = os.path.join(d, entry["entry"] + ".mlir")
        with open(path, "w") as f:
            f.write(with_config(ir, config))
        r = subprocess.run([os.path.join(a.build, "bin", "ejkc"), "--target=vulkan", path,
                            "-o", os.path.join(d, "artifact"), "--fingerprint", fingerprint],
                           capture_output=True, text=True)
        if r.returncode:
            lines = [l for l in (r.stderr + r.stdout).splitlines() if "error" in l]
            record["workloads"][w] = {"error": lines[0] if lines else f"exit {r.returncode}"}
            print(f"{w}: not compiled: {record['workloads'][w]['error']}", file=sys.stderr)
        else:
            record["workloads"][w] = entry
            print(f"{w}: compiled with {config}", file=sys.stderr)
    record["config"] = config
    with open(os.path.join(a.out, "artifacts.json"), "w") as f:
        json.dump(record, f, indent=1)


if __name__ == "__main__":
    main()
