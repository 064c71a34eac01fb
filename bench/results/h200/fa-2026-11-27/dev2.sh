#!/bin/sh
# Device call 2 (issue 21): the device checks whole (8 shards in parallel),
# a sweep, then the harness against FlashAttention-2 and cuDNN.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.fa3/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/smi.txt
s=$(date +%s)
for sh in nv-s0 nv-s1 nv-s2 nv-s3 bf-s0 bf-s1 bf-s2 bf-s3; do
  timeout 110 .fa3/ejk-tune-runner .fa3/chk/$sh --runs 1 --force --out /tmp/$sh.json > /tmp/$sh.log 2>&1 &
done
wait
cat /tmp/nv-s*.log > $OUT/check-nv.log; cat /tmp/bf-s*.log > $OUT/check-nv-bf16.log
echo "checks took $(( $(date +%s) - s ))s"
for c in check-nv check-nv-bf16; do
  echo "$c: $(grep -c '^ejk.flash' $OUT/$c.log) problem tables, $(grep -cE ': ok ' $OUT/$c.log) ok, $(grep -ciE 'wrong' $OUT/$c.log) wrong-lines, $(grep -ciE ': failed' $OUT/$c.log) failed, $(grep -c 'wrote ' $OUT/$c.log) shards done"
done
grep -iE "wrong|failed|error" $OUT/check-*.log | grep -v "is not the device" | head -20
B() { timeout 20 .fa3/ejk-bench-run $1 --entry attention --runs 20 --warmup 1 --warmup-ms 600 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
for m in .fa3/base/gfa-d64-causal .fa3/new/gfa-d64-causal .fa3/exp/nowhole/gfa-d64-causal .fa3/sweep/gfa-d64-causal/256-64-8 .fa3/sweep/gfa-d64-causal/128-64-8 .fa3/sweep/gfa-d64-causal/128-64-4 .fa3/new/gfa-d128-causal .fa3/exp/nowhole/gfa-d128-causal .fa3/new/gfa-d64 .fa3/exp/nowhole/gfa-d64 .fa3/sweep/gfa-long/128-32-8 .fa3/sweep/gfa-long-causal/128-32-8; do
  echo "$m: $(B $m/artifact/attention.json)"
done 2>&1 | tee $OUT/sweep.log
mkdir -p $OUT/h
timeout 140 python3 bench/gpu.py run --artifacts .fa3/new --runner .fa3/ejk-bench-run --workloads gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal --peers torch-flash,torch-cudnn --rounds 2 --runs 10 --warm-s 1.0 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $?"; cat $OUT/harness.txt | grep -v "^\s*$" | tail -25
