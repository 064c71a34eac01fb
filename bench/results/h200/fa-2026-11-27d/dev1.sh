#!/bin/sh
# Device call 1 (issue 21, helper fa): device checks of the spnb build
# (check-nv, check-nv-bf16, 4 shards each) beside the pipeline statistics
# of every artifact; then the sweep (ejk-bench-run median of 20 after 400
# ms; per workload base, nb, sp, spnb, pc, base again), configs, bf16; then
# FlashAttention-2 and cuDNN on the six shapes (fa2.py).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/lib
D=.b-fa
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
s=$(date +%s)
for c in nv-s0 nv-s1 nv-s2 nv-s3 nb-s0 nb-s1 nb-s2 nb-s3; do
  timeout 60 $D/chk/ejk-tune-runner $D/chk/$c --runs 1 --force --out /tmp/$c.json > /tmp/chk-$c.log 2>&1 &
done
timeout 60 python3 $D/stats.py $D/pipeline_stats $D/base $D/nb $D/sp $D/spnb $D/pc $D/cfgnb $D/cfgspnb $D/bf16 > /tmp/stats.txt 2>&1 &
wait
echo "checks took $(( $(date +%s) - s ))s"
for c in nv nb; do
  cat /tmp/chk-$c-s*.log > /tmp/check-$c.log
  echo "$c: $(grep -c '^ejk\.' /tmp/check-$c.log) tables, $(grep -cE ': ok ' /tmp/check-$c.log) ok, $(grep -ciE 'wrong' /tmp/check-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/check-$c.log) failed, $(grep -c 'wrote ' /tmp/check-$c.log) shards done" | tee -a $OUT/checks.txt
done
grep -iE "wrong|failed|error" /tmp/check-*.log | grep -v "is not the device" | head -12 | tee -a $OUT/checks.txt
cat /tmp/check-*.log > $OUT/checks.log
grep -iE "register count|spill|shared" /tmp/stats.txt | sed 's#.b-fa/##; s#/artifact/[^\t]*##' | cut -c1-120 > $OUT/stats.txt
tail -3 /tmp/stats.txt >> $OUT/stats.txt
grep -i "register count" $OUT/stats.txt | head -40
B() { timeout 20 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 15 --warmup 1 --warmup-ms 300 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
s=$(date +%s)
for w in gfa-d128 gfa-d128-causal gfa-d64 gfa-d64-causal gfa-long gfa-long-causal; do
  for v in base nb sp spnb pc base; do
    [ $v = sp ] && case $w in *causal|gfa-long) continue;; esac
    [ -d $D/$v/$w/artifact ] && echo "$v/$w: $(B $D/$v/$w)"
  done
done 2>&1 | sed 's#bench: 15 runs, ##' | tee $OUT/sweep.log
for m in $(find $D/cfgnb $D/cfgspnb $D/bf16 -name artifact | sort); do
  echo "${m#$D/}: $(B ${m%/artifact})"
done 2>&1 | sed 's#bench: 15 runs, ##' | tee -a $OUT/sweep.log
echo "sweep took $(( $(date +%s) - s ))s"
timeout 60 python3 $D/fa2.py fa2 cudnn 2>&1 | tee $OUT/fa2.log
echo "base/gfa-d128 again: $(B $D/base/gfa-d128)" | tee -a $OUT/sweep.log
echo "spnb/gfa-d128 again: $(B $D/spnb/gfa-d128)" | tee -a $OUT/sweep.log
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
