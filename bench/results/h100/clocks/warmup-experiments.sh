#!/bin/bash
# Issue 21 experiments: the old fixed-count warm-up against the time-based one,
# gfa-long-causal and gdecode, with the SM clock sampled every ~0.15 s.
# Ran on the lent H100 (2026-11-25) from the repository root, with .gpu-harness/
# holding a copy of bench/, the artifacts of `bench/gpu.py prepare` (art/),
# ejk-bench-run + libejk_runtime.so.1 (runner/) and lcg_npy.py; output in
# warmup-experiments.log and warmup-experiments-smi.log (unix time, SM clock,
# reasons). docs/performance-vulkan.md, "The GPU harness", reads them.
H=.gpu-harness; R=$H/runner/ejk-bench-run; A=$H/art
ML=$A/gfa-long-causal/artifact/attention.json; MD=$A/gdecode/artifact/attention.json
(while :; do echo "$(date +%s.%N) $(nvidia-smi --query-gpu=clocks.sm,clocks_event_reasons.active --format=csv,noheader)"; sleep 0.05; done) > $OUT/smi1.log 2>&1 & SP=$!
python3 - <<'PY'
import sys, os, numpy as np
sys.path.insert(0, ".gpu-harness/bench")
from harness.workloads import Workload
from harness import workloads
w = {x.id: x for x in workloads.GPU_WORKLOADS}["gfa-long-causal"]
os.makedirs("/tmp/in", exist_ok=True)
for n, a in zip(w.input_names(), w.make_inputs(seed=0)):
    np.save(f"/tmp/in/{n}.npy", a)
PY
IN="--input /tmp/in/q.npy --input /tmp/in/k.npy --input /tmp/in/v.npy"
t() { echo "== $1 (start $(date +%s.%N))"; shift; "$@" | grep -v "^ejk-bench-run:"; }
sleep 6; t "gfa-long-causal, old harness settings: --warmup 3 --warmup-ms 0, after 6 s idle" $R $ML $IN --runs 20 --warmup 3 --warmup-ms 0
sleep 6; t "gfa-long-causal, --warmup 3, default time-based warm-up (1000 ms), after 6 s idle" $R $ML $IN --runs 20 --warmup 3
sleep 6; t "gfa-long-causal, --warmup 1 --warmup-ms 2000 (the harness now), after 6 s idle" $R $ML $IN --runs 20 --warmup 1 --warmup-ms 2000
t "gdecode, LCG inputs, --warmup-ms 0 (the old default)" $R $MD --warmup-ms 0
t "gdecode, LCG inputs, default (1000 ms)" $R $MD
python3 $H/lcg_npy.py $MD /tmp/lcg > /dev/null
LIN="--input /tmp/lcg/in0.npy --input /tmp/lcg/in1.npy --input /tmp/lcg/in2.npy"
t "gdecode, the same LCG values from .npy, --warmup-ms 0" $R $MD $LIN --warmup-ms 0
t "gdecode, LCG inputs, --warmup-ms 0 --warmup 2000 (a fixed count of 2000 runs)" $R $MD --warmup-ms 0 --warmup 2000
kill $SP
