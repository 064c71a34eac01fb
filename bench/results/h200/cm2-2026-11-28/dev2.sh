#!/bin/sh
# Device call 2 (issue 21, cm2): prototype variants on six workloads
# (standalone cm2_bench + FA2 before/after + f32 check, one process per
# workload), then ejk's KHR artifacts and three cm2 kernels spliced into ejk
# artifacts (bench/vulkan/cm2_artifact.py) through libejk_runtime, and one
# runtime-path output compared with the standalone output of the same kernel.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-cm2/dev2/lib
D=.b-cm2/dev2
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/smi.txt
for w in "d128 4,2048,16,128" "d128c 4,2048,16,128 --causal" "d64 4,2048,32,64" "d64c 4,2048,32,64 --causal" "long 1,8192,16,128" "longc 1,8192,16,128 --causal"; do
  set -- $w
  echo "== $1 ($2 $3)"
  timeout 70 python3 bench/vulkan/cm2_run.py --bench $D/cm2_bench --kernels $D/$1 --shape $2 ${3:-} --tmp /tmp/cm2-$1 --out /tmp/cm2-$1.json 2>&1 | grep -v "^  flexible"
done 2>&1 | tee $OUT/cm2-call2.log
python3 -c "import json,sys; json.dump({w: json.load(open(f'/tmp/cm2-{w}.json')) for w in ['d128','d128c','d64','d64c','long','longc'] if __import__('os').path.exists(f'/tmp/cm2-{w}.json')}, open('$OUT/cm2-call2.json','w'), indent=1)"
for a in $D/art/*; do
  echo "$(basename $a): $(timeout 30 $D/ejk-bench-run $a/*.json --runs 30 --warmup 2 --warmup-ms 500 2>&1 | grep -E 'bench:|rror' | head -2 | tr '\n' ' ')"
done 2>&1 | tee $OUT/ejk-runtime.log
python3 - <<'PY' 2>&1 | tee -a $OUT/ejk-runtime.log
import numpy as np, subprocess, os
t = "/tmp/cm2-d128"
for n in "qkv":
    np.save(f"{t}/{n}.npy", np.fromfile(f"{t}/{n}.bin", dtype=np.float16).reshape(4, 2048, 16, 128))
r = subprocess.run([".b-cm2/dev2/ejk-bench-run", ".b-cm2/dev2/art/cm2-d128-base/d128.json", "--runs", "1", "--warmup", "0",
                    "--input", f"{t}/q.npy", "--input", f"{t}/k.npy", "--input", f"{t}/v.npy", "--output", f"{t}/o_rt.npy"],
                   capture_output=True, text=True)
print("runtime run rc", r.returncode, r.stderr.strip()[-300:])
o = np.load(f"{t}/o_rt.npy").astype(np.float32)
s = np.fromfile(f"{t}/o_base-128x64.bin", dtype=np.float16).reshape(o.shape).astype(np.float32)
print("runtime-path output vs standalone output of the same kernel: max |diff|", float(np.abs(o - s).max()), "identical" if np.array_equal(o, s) else "differs")
PY
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv | tee -a $OUT/smi.txt
