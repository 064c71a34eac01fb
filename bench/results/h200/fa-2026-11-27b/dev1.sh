#!/bin/sh
# Device call 1 (issue 21): sweep (base heuristic, profile variants, candidate
# variants, explicit configs; ejk-bench-run median of 20 after 400 ms),
# device checks of the candidate build (10 runners), pipeline statistics.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.fa4/chk/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/smi.txt
B() { timeout 20 .fa4/ejk-bench-run $1 --entry attention --runs 20 --warmup 1 --warmup-ms 400 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
s=$(date +%s)
for m in $(find .fa4/base -name attention.json | sort) $(find .fa4/prof .fa4/var .fa4/cfg .fa4/kv2 .fa4/ts .fa4/ilkv2 -name attention.json | sort) $(find .fa4/base -name attention.json | sort); do
  echo "$m: $(B $m)"
done 2>&1 | sed 's#/artifact/attention.json##; s#bench: 20 runs, ##' | tee $OUT/sweep.log
echo "sweep took $(( $(date +%s) - s ))s"
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv | tee -a $OUT/smi.txt
s=$(date +%s)
for c in check-nv check-nv-bf16 check-stage check-sparse-nv check-sparse-nv-bf16; do for i in 0 1; do
  timeout 90 .fa4/chk/ejk-tune-runner .fa4/chk/$c-s$i --runs 1 --force --out /tmp/$c-s$i.json > /tmp/$c-s$i.log 2>&1 &
done; done
wait
echo "checks took $(( $(date +%s) - s ))s"
for c in check-nv check-nv-bf16 check-stage check-sparse-nv check-sparse-nv-bf16; do
  cat /tmp/$c-s0.log /tmp/$c-s1.log > $OUT/$c.log
  echo "$c: $(grep -c '^ejk\.' $OUT/$c.log) tables, $(grep -cE ': ok ' $OUT/$c.log) ok, $(grep -ciE 'wrong' $OUT/$c.log) wrong-lines, $(grep -ciE ': failed' $OUT/$c.log) failed, $(grep -c 'wrote ' $OUT/$c.log) shards done"
done
grep -iE "wrong|failed|error" $OUT/check-*.log | grep -v "is not the device" | head -20
timeout 60 python3 - <<'PY' > $OUT/stats.txt 2>&1
import json, os, subprocess
args, names = [".fa4/pipeline_stats"], {}
for root, _, files in sorted(os.walk(".fa4")):
    if "attention.json" in files and root.endswith("artifact") and "/chk" not in root:
        m = json.load(open(os.path.join(root, "attention.json")))
        d = m["entries"][0]["dispatches"][0]
        spv = os.path.join(root, d["spirv"])
        args += [d["entry_point"], str(len(d["bindings"])), spv]
r = subprocess.run(args, capture_output=True, text=True)
for line in r.stdout.splitlines():
    f = line.split("\t")
    if len(f) == 4 and any(k in f[2].lower() for k in ("register", "shared", "spill", "local", "stack", "binary")):
        print(f[0].replace(".fa4/", "").replace("/artifact/", " ").split(" ")[0], f[2], f[3], sep="\t")
print(r.stderr[-2000:])
PY
grep -i regist $OUT/stats.txt | head -80
