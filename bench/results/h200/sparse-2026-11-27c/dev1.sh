#!/bin/sh
# Device call 1 (issues 19, 21): device checks (block-sparse f16 + bf16, every
# candidate; dense check-nv), pipeline statistics, the block-sparse bench
# (sparse.py: dense, sparse, FlexAttention in one process), a flash-attention
# sweep (ejk-bench-run median of 20 after 400 ms).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.sp19/chk/lib
L=/tmp/logs; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee $L/smi.txt
s=$(date +%s)
for c in sn-s0 sn-s1 sn-s2 sb-s0 sb-s1 sb-s2 nv-s0 nv-s1 nv-s2 nv-s3; do
  timeout 100 .sp19/chk/ejk-tune-runner .sp19/chk/$c --runs 1 --force --out /tmp/$c.json > $L/chk-$c.log 2>&1 &
done
timeout 100 python3 .sp19/stats.py .sp19/pipeline_stats .sp19/base .sp19/cfg .sp19/pipecausal .sp19/sp/art > $L/stats.txt 2>&1 &
wait
echo "checks took $(( $(date +%s) - s ))s"
for c in sn sb nv; do
  cat $L/chk-$c-s*.log > $L/check-$c.log
  echo "$c: $(grep -c '^ejk\.' $L/check-$c.log) tables, $(grep -cE ': ok ' $L/check-$c.log) ok, $(grep -ciE 'wrong' $L/check-$c.log) wrong-lines, $(grep -ciE ': failed' $L/check-$c.log) failed, $(grep -c 'wrote ' $L/check-$c.log) shards done" | tee -a $L/checks.txt
done
grep -iE "wrong|failed|error" $L/check-*.log | grep -v "is not the device" | head -12
s=$(date +%s)
SPARSE_ROUNDS=2 timeout 125 python3 .sp19/sp/sparse.py run .sp19/sp > $L/sparse.log 2>&1
echo "sparse rc $? took $(( $(date +%s) - s ))s"
grep -E "^chk|checks_ok|round" $L/sparse.log | cut -c1-220
cp .sp19/sp/sparse.json $L/ 2>/dev/null
B() { timeout 20 .sp19/ejk-bench-run $1 --entry attention --runs 20 --warmup 1 --warmup-ms 400 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
s=$(date +%s)
for m in $(find .sp19/base .sp19/cfg .sp19/pipecausal .sp19/base -name attention.json | sort) $(find .sp19/base -name attention.json | sort); do
  echo "$m: $(B $m)"
done 2>&1 | sed 's#/artifact/attention.json##; s#bench: 20 runs, ##' | tee $L/sweep.log
echo "sweep took $(( $(date +%s) - s ))s"
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv | tee -a $L/smi.txt
grep -iE "regist|spill" $L/stats.txt | grep -v chk_ | head -60
tar czf $OUT/call1.tgz -C /tmp logs
