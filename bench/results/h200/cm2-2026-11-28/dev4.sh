#!/bin/sh
# Device call 4 (prepared, NOT run) (issue 21, cm2): prototype variants on six workloads
# (standalone cm2_bench + FA2 before/after + f32 check, one process per
# workload), then ejk's KHR artifacts and cm2 kernels spliced into ejk
# artifacts (bench/vulkan/cm2_artifact.py) through libejk_runtime, and the
# runtime path on the standalone's inputs: output compared, and timed.
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-cm2/dev4/lib
D=.b-cm2/dev4
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/smi.txt
for w in "d128 4,2048,16,128" "d128c 4,2048,16,128 --causal" "d64 4,2048,32,64" "d64c 4,2048,32,64 --causal" "long 1,8192,16,128" "longc 1,8192,16,128 --causal"; do
  set -- $w
  echo "== $w"
  timeout 80 python3 bench/vulkan/cm2_run.py --bench $D/cm2_bench --kernels $D/$1 --shape $2 $3 --tmp /tmp/cm2-$1 --out /tmp/cm2-$1.json 2>&1 | grep -v "^  flexible"
done 2>&1 | tee $OUT/cm2-call4.log
python3 -c "import json,os; json.dump({w: json.load(open(f'/tmp/cm2-{w}.json')) for w in ['d128','d128c','d64','d64c','long','longc'] if os.path.exists(f'/tmp/cm2-{w}.json')}, open('$OUT/cm2-call4.json','w'), indent=1)"
for a in $D/art/*; do
  echo "$(basename $a): $(timeout 20 $D/ejk-bench-run $a/*.json --runs 30 --warmup 2 --warmup-ms 500 2>&1 | grep -E 'bench:|rror' | head -2 | tr '\n' ' ')"
done 2>&1 | tee $OUT/ejk-runtime.log
timeout 40 python3 - <<'PY' 2>&1 | tee -a $OUT/ejk-runtime.log
import numpy as np, subprocess
t = "/tmp/cm2-d128"
for n in "qkv":
    np.save(f"{t}/{n}.npy", np.fromfile(f"{t}/{n}.bin", dtype=np.float16).reshape(4, 2048, 16, 128))
ins = ["--input", f"{t}/q.npy", "--input", f"{t}/k.npy", "--input", f"{t}/v.npy"]
for art, o in (("cm2-d128-late-s32-qs", "o_late-s32-qs"),):
    r = subprocess.run([".b-cm2/dev4/ejk-bench-run", f".b-cm2/dev4/art/{art}/d128.json", "--runs", "30", "--warmup", "2",
                        "--warmup-ms", "500"] + ins + ["--output", f"{t}/rt.npy"], capture_output=True, text=True)
    print(art, "on the standalone's inputs: rc", r.returncode, " ".join(l for l in r.stdout.splitlines() if "bench:" in l), r.stderr.strip()[-200:])
    a = np.load(f"{t}/rt.npy").astype(np.float32)
    s = np.fromfile(f"{t}/{o}.bin", dtype=np.float16).reshape(a.shape).astype(np.float32)
    print(f"  runtime-path output vs standalone output of the same kernel: max |diff| {float(np.abs(a - s).max())}",
          "identical" if np.array_equal(a, s) else "differs")
PY
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv | tee -a $OUT/smi.txt
