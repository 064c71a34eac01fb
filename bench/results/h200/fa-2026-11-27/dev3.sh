#!/bin/sh
# Device call 3 (issue 21): the device checks whole (8 shards in parallel),
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
for w in gfa-d128 gfa-d128-causal gfa-d64 gfa-d64-causal gfa-long gfa-long-causal; do for v in base new; do echo "$v $w: $(B .fa3/$v/$w/artifact/attention.json)"; done; done 2>&1 | tee $OUT/sweep.log
for m in .fa3/sweep/*/*; do
  echo "$m: $(B $m/artifact/attention.json)"
done 2>&1 | tee -a $OUT/sweep.log
mkdir -p $OUT/h
timeout 120 python3 bench/gpu.py run --artifacts .fa3/new --runner .fa3/ejk-bench-run --workloads gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 1.0 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $?"; cat $OUT/harness.txt | grep -v "^\s*$" | tail -25
