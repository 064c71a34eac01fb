#!/bin/sh
# Device call 2 (issues 19, 21): pipeline statistics; flash-attention sweep
# (ejk-bench-run median of 20 after 400 ms; base first and last); the
# block-sparse bench with its variants and the pq variant's chk cases.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.sp19/sp2/lib
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
s=$(date +%s)
timeout 40 python3 .sp19/stats.py .sp19/pipeline_stats .sp19/base .sp19/v2 .sp19/sp2/art > $OUT/stats.txt 2>&1
echo "stats took $(( $(date +%s) - s ))s"
grep -iE "regist|spill" $OUT/stats.txt | grep -v "chk_" | sed 's#.sp19/##; s#/artifact/# #; s#/kernel_main_dispatch_0.spv##' | awk -F'\t' '{print $1" | "$2" = "$3}' | grep -iE "register count|spill|local" | head -60
B() { timeout 20 .sp19/ejk-bench-run $1 --entry attention --runs 20 --warmup 1 --warmup-ms 400 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
s=$(date +%s)
for m in $(find .sp19/base -name attention.json | sort) $(find .sp19/v2 -name attention.json | sort) $(find .sp19/base -name attention.json | sort); do
  echo "$m: $(B $m)"
done 2>&1 | sed 's#/artifact/attention.json##; s#bench: 20 runs, ##' | tee $OUT/sweep.log
echo "sweep took $(( $(date +%s) - s ))s"
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
s=$(date +%s)
SPARSE_ROUNDS=2 timeout 140 python3 .sp19/sp2/sparse.py run .sp19/sp2 > $OUT/sparse.log 2>&1
echo "sparse rc $? took $(( $(date +%s) - s ))s"
grep -E "checks_ok|bar" $OUT/sparse.log | cut -c1-300
grep -E "^chk" $OUT/sparse.log | grep -v '"ok": true' | cut -c1-200
grep "^round" $OUT/sparse.log
cp .sp19/sp2/sparse.json $OUT/ 2>/dev/null
