#!/bin/sh
# Device call 3 (issues 19, 21): device checks of the final build (dense bf16
# unpipelined: check-nv-bf16; block-sparse peeled first block + Q first:
# check-sparse-nv, -bf16), pipeline statistics; the block-sparse bench with
# its variants (3 rounds) and the Q-first variant's chk cases; flash
# attention: ejk (ejk-bench-run median of 20 after 400 ms) and
# FlashAttention-2 (fa2.py) in the same call.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.sp19/sp2/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
s=$(date +%s)
for c in nb-s0 nb-s1 nb-s2 nb-s3 nb-s4 nb-s5 sn-s0 sn-s1 sn-s2 sb-s0 sb-s1 sb-s2; do
  timeout 80 .sp19/chk3/ejk-tune-runner .sp19/chk3/$c --runs 1 --force --out /tmp/$c.json > /tmp/chk-$c.log 2>&1 &
done
A=.sp19/sp2/art
timeout 80 python3 .sp19/stats.py .sp19/pipeline_stats .sp19/base .sp19/v2 $A/gsparse_25 $A/gsparse_25@nopipe $A/gsparse_25@pq $A/gsparse_25_bf16 $A/gsparse_25_bf16@nopipe $A/gsparse_25_bf16@pqnb > $OUT/stats.txt 2>&1 &
wait
echo "checks took $(( $(date +%s) - s ))s"
for c in nb sn sb; do
  cat /tmp/chk-$c-s*.log > /tmp/check-$c.log
  echo "$c: $(grep -c '^ejk\.' /tmp/check-$c.log) tables, $(grep -cE ': ok ' /tmp/check-$c.log) ok, $(grep -ciE 'wrong' /tmp/check-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/check-$c.log) failed, $(grep -c 'wrote ' /tmp/check-$c.log) shards done" | tee -a $OUT/checks.txt
done
grep -iE "wrong|failed|error" /tmp/check-*.log | grep -v "is not the device" | head -12 | tee -a $OUT/checks.txt
cat /tmp/check-*.log > $OUT/checks.log
grep -iE "register count|spill" $OUT/stats.txt | sed 's#.sp19/##; s#/artifact/# #' | cut -c1-160 | head -40
s=$(date +%s)
SPARSE_ROUNDS=3 SPARSE_F32=0 SPARSE_CASES='chk_.*@qfirst|gsparse_(10|25|100)(@(nopipe|pq|peel|qfirst))?|gsparse_25_bf16(@(nopipe|pqnb))?' timeout 100 python3 .sp19/sp2/sparse.py run .sp19/sp2 > $OUT/sparse.log 2>&1
echo "sparse rc $? took $(( $(date +%s) - s ))s"
grep -E "checks_ok|^bar" $OUT/sparse.log | cut -c1-300
grep -E "^chk" $OUT/sparse.log | grep -v '"ok": true' | cut -c1-200
grep "^round" $OUT/sparse.log
cp .sp19/sp2/sparse.json $OUT/ 2>/dev/null
B() { timeout 20 .sp19/ejk-bench-run $1 --entry attention --runs 20 --warmup 1 --warmup-ms 400 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
for m in $(find .sp19/base .sp19/v2 -name attention.json | sort); do
  echo "$m: $(B $m)"
done 2>&1 | sed 's#/artifact/attention.json##; s#bench: 20 runs, ##' | tee $OUT/sweep.log
timeout 40 python3 .sp19/fa2.py 2>&1 | tee $OUT/fa2.log
echo ".sp19/base/gfa-d128 again: $(B .sp19/base/gfa-d128/artifact/attention.json)" | tee -a $OUT/sweep.log
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
