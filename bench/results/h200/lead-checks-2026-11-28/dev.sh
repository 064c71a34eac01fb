#!/bin/sh
# Lead, session 18: device checks of the committed attention build
# (dense f16/bf16/stage/rows candidates prepared by helper fa from the
# committed dense kernels; block-sparse f16/bf16 candidates compiled by
# the lead from eace135), then the harness if time is left.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-lead/chk/lib
C=.b-fa/chkf; L=.b-lead/chk; R=$L/ejk-tune-runner
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for c in $C/fn-s0 $C/fn-s1 $C/fn-s2 $C/fn-s3 $C/fb-s0 $C/fb-s1 $C/fb-s2 $C/fb-s3 $C/rows $C/rows-bf $L/sn-s0 $L/sn-s1 $L/sn-s2 $L/sb-s0 $L/sb-s1 $L/sb-s2; do
  n=$(basename $c)
  timeout 100 $R $c --runs 1 --force --out /tmp/$n.json > /tmp/chk-$n.log 2>&1 &
done
wait
echo "checks took $(el)s" | tee $OUT/checks.txt
for c in fn fb rows rows-bf sn sb; do
  cat /tmp/chk-$c-s*.log /tmp/chk-$c.log 2>/dev/null > /tmp/check-$c.log
  echo "$c: $(grep -cE ': ok ' /tmp/check-$c.log) ok, $(grep -ciE 'wrong' /tmp/check-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/check-$c.log) failed, $(grep -c 'wrote ' /tmp/check-$c.log) shards done" | tee -a $OUT/checks.txt
done
grep -iE "wrong|failed|error" /tmp/check-*.log | grep -v "is not the device" | head -12 | tee -a $OUT/checks.txt
cat /tmp/check-*.log > $OUT/checks.log
left=$(( 225 - $(el) ))
if [ $left -gt 60 ]; then
  mkdir -p $OUT/h
  timeout $left python3 bench/gpu.py run --artifacts .b-fa/final --runner .b-fa/ejk-bench-run --workloads gfa-d128,gfa-d128-causal,gfa-long,gfa-long-causal,gfa-d64,gfa-d64-causal --peers torch-flash --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
  echo "harness rc $? at $(el)s"; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^==" | tail -30
fi
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
