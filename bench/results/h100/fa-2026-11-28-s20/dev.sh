#!/bin/sh
# Session 20 (issue 21, helper fa), the device call (H100): registers, the
# sweep (ejk-bench-run, median of 12 after 200 ms; the tree first, middle and
# last), the harness (the tree and the best d128 variant with
# FlashAttention-2 and cuDNN in the same run, all six gfa workloads), then
# the device checks (A: ROWLAZY + TREE on every dense candidate of
# check-coop f16/bf16 and the row problems; B: + PVFIRST + VLATE=3 where it
# differs).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/s20/lib
D=.b-fa/s20; V=$D/v; C=$D/chk
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for a in base rowlazy tree rt pvf rtp vl1 vl2 vl3 rtv1 rtv3 ftz nosm; do
  timeout 4 $D/pipeline_stats attention_dispatch_0 4 $V/$a/gfa-d128/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|shared|spill" | sed "s#^#$a #" | cut -c1-150
done > $OUT/stats.txt 2>&1
timeout 4 $D/pipeline_stats attention_dispatch_0 4 $V/cfg/gfa-d128/128-32-8/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|shared|spill" | sed "s#^#cfg #" | cut -c1-150 >> $OUT/stats.txt
echo "stats at $(el)s"; cat $OUT/stats.txt | head -40
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
S() { # workload variant...
  w=$1; shift
  for v in "$@"; do
    case $v in cfg*) a=$V/$v/$w/128-32-8 ;; *) a=$V/$v/$w ;; esac
    echo "$w $v: $(B $a)" | sed 's#bench: 12 runs, ##' | tee -a $OUT/sweep.log
  done
}
S gfa-d128 base rowlazy tree rt pvf rtp vl1 vl2 vl3 rtv1 rtv3 base noexp nosm ftz ftzrt cfg cfgrt rt rtp base
best=$(grep -E "^gfa-d128 (rowlazy|tree|rt|pvf|rtp|vl1|vl2|vl3|rtv1|rtv3):" $OUT/sweep.log | sed 's/^gfa-d128 \([a-z0-9]*\): median \([0-9.]*\) ms.*/\2 \1/' | sort -n | head -1 | cut -d' ' -f2)
[ -z "$best" ] && best=rt
echo "best d128 variant: $best at $(el)s" | tee -a $OUT/sweep.log
S gfa-long base rt rtp rtv1 rtv3 $best ftz cfg base
S gfa-d64 base rowlazy tree rt pvf rtp $best ftz base
S gfa-d128-causal base tree rt $best base
S gfa-d64-causal base tree pvf rtp $best base
S gfa-long-causal base rt $best base
echo "sweep done at $(el)s" | tee -a $OUT/sweep.log
# the harness: the tree and the best variant (and rt) against FA2 / cuDNN
vars="best=$V/$best"; [ "$best" != rt ] && vars="$vars,rt=$V/rt"
mkdir -p $OUT/h
timeout $(( 168 - $(el) )) python3 bench/gpu.py run --artifacts $V/base --runner $D/ejk-bench-run --workloads gfa-d128,gfa-long,gfa-d64,gfa-d128-causal,gfa-long-causal,gfa-d64-causal --variants $vars --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s"; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^==" | tail -32
# device checks
for c in an-s0 an-s1 an-s2 an-s3 ab-s0 ab-s1 ab-s2 ab-s3 a-rows a-rows-bf b-nv b-rows; do
  timeout 45 $D/ejk-tune-runner $C/$c --runs 1 --force --out /tmp/$c.json > /tmp/chk-$c.log 2>&1 &
done
wait
echo "checks took until $(el)s" | tee $OUT/checks.txt
for c in an ab a-rows a-rows-bf b-nv b-rows; do
  cat /tmp/chk-$c*.log > /tmp/check-$c.log
  echo "$c: $(grep -cE ': ok ' /tmp/check-$c.log) ok, $(grep -ciE 'wrong' /tmp/check-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/check-$c.log) failed, $(grep -c 'wrote ' /tmp/check-$c.log) shards done" | tee -a $OUT/checks.txt
done
grep -iE "wrong|failed|error" /tmp/check-*.log | grep -v "is not the device" | head -12 | tee -a $OUT/checks.txt
cat /tmp/check-*.log > $OUT/checks.log
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
echo "done at $(el)s"
