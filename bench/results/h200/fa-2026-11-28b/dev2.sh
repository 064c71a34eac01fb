#!/bin/sh
# Session 19 (issue 21, helper fa), device call 2: device checks of
# EJK_TMP_NOPF (every candidate of check-coop f16/bf16 and the row problems
# it changes), registers, the sweep (ejk-bench-run: the committed
# heuristic's cm2 artifacts of gfa-d128 / gfa-long, the KHR kernel with the
# lazy rescale at 128 x 64 x 8 / 128 x 32 x 8, and NOPF at 64 x 64 x 4,
# 64 x 32 x 4, 128 x 64 x 8), then the harness (the committed artifacts,
# variants khr and pf, FlashAttention-2 and cuDNN in the same run).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/s19/lib
D=.b-fa/s19; V=$D/v2; C=$V/chk
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for c in pn-s0 pn-s1 pn-s2 pn-s3 pb-s0 pb-s1 pb-s2 pb-s3 rows rows-bf; do
  timeout 50 $C/ejk-tune-runner $C/$c --runs 1 --force --out /tmp/$c.json > /tmp/chk-$c.log 2>&1 &
done
wait
echo "checks took $(el)s" | tee $OUT/checks.txt
for c in pn pb rows.log rows-bf.log; do
  n=${c%.log}; cat /tmp/chk-$n*.log 2>/dev/null > /tmp/check-$n.txt
  [ $c = rows.log ] && cat /tmp/chk-rows.log > /tmp/check-rows.txt
  echo "$n: $(grep -cE '^  block_k=.*: ok ' /tmp/check-$n.txt) ok, $(grep -cE '^  block_k=.*: wrong' /tmp/check-$n.txt) wrong, $(grep -ciE ': failed' /tmp/check-$n.txt) failed, $(grep -c 'wrote ' /tmp/check-$n.txt) shards done" | tee -a $OUT/checks.txt
done
grep -iE "wrong|failed|error" /tmp/chk-*.log | grep -v "is not the device" | head -8 | tee -a $OUT/checks.txt
cat /tmp/chk-*.log > $OUT/checks.log
for a in pf/gfa-d128/64-64-4 pf/gfa-d128/64-32-4 pf/gfa-d128/128-64-8 x/gfa-d128/128-32-8 pfo/gfa-d128/64-64-4; do
  timeout 4 $D/pipeline_stats attention_dispatch_0 4 $V/$a/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|shared" | sed "s#^#$a #" | cut -c1-150
done > $OUT/stats.txt 2>&1
cat $OUT/stats.txt
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
{
for v in fin/gfa-d128 x/gfa-d128/128-64-8 pf/gfa-d128/64-64-4 pf/gfa-d128/64-32-4 pf/gfa-d128/128-64-8 x/gfa-d128/128-32-8 pfo/gfa-d128/64-64-4 fin/gfa-d128 x/gfa-d128/128-64-8 pf/gfa-d128/64-64-4 \
         fin/gfa-long x/gfa-long/128-64-8 pf/gfa-long/64-64-4 pf/gfa-long/64-32-4 x/gfa-long/128-32-8 fin/gfa-long x/gfa-long/128-64-8 pf/gfa-long/64-64-4 \
         fin/gfa-d128-causal pf/gfa-d128-causal/64-64-4; do
  [ $(el) -gt 100 ] && break
  echo "$v: $(B $V/$v)"
done
} 2>&1 | sed 's#bench: 12 runs, ##' | tee $OUT/sweep.log
echo "sweep done at $(el)s" | tee -a $OUT/sweep.log
mkdir -p $OUT/h
timeout $(( 230 - $(el) )) python3 bench/gpu.py run --artifacts $V/fin --runner $D/ejk-bench-run --workloads gfa-d128,gfa-long,gfa-d64,gfa-d128-causal,gfa-long-causal,gfa-d64-causal --variants khr=$V/khr,pf=$V/pfv --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s"; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^==" | tail -40
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
