#!/usr/bin/env python3
"""ejkc's heuristic mamba1 artifact (and the runtime, ssm.py, ejk_runtime.py)
for the H200, into ejk/ (the anchor of the prototype timings)."""
import os, sys
ROOT = "/work/main"
sys.path.insert(0, os.path.join(ROOT, "bench", "vulkan"))
import ejk_runtime, ssm
v = {k: s for k, s in ssm.variants().items() if k in ("mamba1",)}
ejk_runtime.prepare(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ejk"),
                    os.path.join(ROOT, "bench/results/h200/device.fingerprint"), v, ssm.ir,
                    os.path.join(ROOT, "bench/vulkan/ssm.py"))
