#!/bin/sh
# Device call 2 (issue 21): device checks of the new build (chk2: register
# softmax f16 + bf16, shared-memory softmax; chk3: the same build without the
# pipelined P V, f16), a sweep (old heuristic = base, new build at its
# heuristic and explicit configs, without pipelining), then the harness
# against FlashAttention-2 with the fastest checked artifact per workload.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.fa4/chk2/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $OUT/smi.txt
s=$(date +%s)
R=.fa4/chk2/ejk-tune-runner
for c in chk2/check-nv chk2/check-nv-bf16 chk2/check-stage chk3/check-nv; do for i in 0 1; do
  n=$(echo $c | tr / _)
  timeout 80 $R .fa4/$c-s$i --runs 1 --force --out /tmp/$n-s$i.json > /tmp/$n-s$i.log 2>&1 &
done; done
timeout 80 python3 .fa4/stats.py > $OUT/stats.txt 2>&1 &
wait
echo "checks took $(( $(date +%s) - s ))s"
for c in chk2_check-nv chk2_check-nv-bf16 chk2_check-stage chk3_check-nv; do
  cat /tmp/$c-s0.log /tmp/$c-s1.log > $OUT/$c.log
  echo "$c: $(grep -c '^ejk\.' $OUT/$c.log) tables, $(grep -cE ': ok ' $OUT/$c.log) ok, $(grep -ciE 'wrong' $OUT/$c.log) wrong-lines, $(grep -ciE ': failed' $OUT/$c.log) failed, $(grep -c 'wrote ' $OUT/$c.log) shards done" | tee -a $OUT/checks.txt
done
grep -iE "wrong|failed|error" $OUT/chk*.log | grep -v "is not the device" | head -12
B() { timeout 20 .fa4/ejk-bench-run $1 --entry attention --runs 15 --warmup 1 --warmup-ms 300 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
s=$(date +%s)
for m in $(find .fa4/base .fa4/new .fa4/newcfg .fa4/nopipe -name attention.json | sort); do
  echo "$m: $(B $m)"
done 2>&1 | sed 's#/artifact/attention.json##; s#bench: 15 runs, ##' | tee $OUT/sweep.log
echo "sweep took $(( $(date +%s) - s ))s"
python3 .fa4/pick.py $OUT/sweep.log $OUT/checks.txt .fa4/best | tee $OUT/pick.txt
mkdir -p $OUT/h
timeout 110 python3 bench/gpu.py run --artifacts .fa4/best --runner .fa4/ejk-bench-run --workloads gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal --peers torch-flash --rounds 1 --runs 10 --warm-s 0.8 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $?"; grep -v "^\s*$" $OUT/harness.txt | tail -14
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv | tee -a $OUT/smi.txt
