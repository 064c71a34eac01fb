#!/bin/sh
# Device call 1 (issue 21): device checks (bf16 and f16 register softmax,
# shared-memory softmax), then base vs new and explicit configs with
# ejk-bench-run (GPU timestamps, median of 20 after 600 ms).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.fa3/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/smi.txt
R=.fa3/ejk-tune-runner
for c in check-nv-bf16 check-nv check-stage; do
  s=$(date +%s)
  timeout 60 $R .fa3/chk/$c --runs 1 --force --out $OUT/$c.json > $OUT/$c.log 2>&1
  echo "$c rc $? $(( $(date +%s) - s ))s: $(grep -c '^ejk.flash' $OUT/$c.log) problems, $(grep -cE ': ok ' $OUT/$c.log) ok, $(grep -ci wrong $OUT/$c.log) wrong-lines, $(grep -ci nan $OUT/$c.log) nan-lines"
done
grep -i wrong $OUT/check-*.log | head -20
B() { timeout 20 .fa3/ejk-bench-run $1 --entry attention --runs 20 --warmup 1 --warmup-ms 600 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
for pass in 1 2; do
  for w in gfa-d128 gfa-d128-causal gfa-d64 gfa-d64-causal gfa-long gfa-long-causal; do
    for v in base new; do echo "p$pass $v $w: $(B .fa3/$v/$w/artifact/attention.json)"; done
  done
done 2>&1 | tee $OUT/sweep.log
for m in $(find .fa3/sweep -name attention.json | sort); do echo "$m: $(B $m)"; done 2>&1 | tee -a $OUT/sweep.log
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv | tee -a $OUT/smi.txt
