#!/bin/sh
# Session 20 (issue 21, helper fa), device call 2 (H100): the harness (the
# committed build 3e7e957 = fin, the build before = prev; FA2
# and cuDNN in the same run, all six gfa workloads), a short sweep
# (ejk-bench-run: douter = Q K^T d-outer, noprobe = profile without the
# layout probe, nw = fin's inputs NonWritable, profiles nobar = no barriers
# in the key loop, nostage = no K/V loads or stores in it, nsb = neither;
# seq_k 512/1024/4096 at
# gfa-d128's grid for the fixed cost), then the device checks
# of the committed build's candidates that differ from the build before.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/s20/lib
D=.b-fa/s20; V=$D/v2; C=$D/chk2
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
mkdir -p $OUT/h
timeout 140 python3 bench/gpu.py run --artifacts $V/fin --runner $D/ejk-bench-run --workloads gfa-d128,gfa-long,gfa-d64,gfa-d128-causal,gfa-long-causal,gfa-d64-causal --variants prev=$V/base --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s"; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^==" | tail -40
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
S() { w=$1; shift; for v in "$@"; do echo "$w $v: $(B $V/$v/$w)" | sed 's#bench: 12 runs, ##' | tee -a $OUT/sweep.log; done; }
S gfa-d128 fin douter noprobe nw nobar nostage nsb base fin
for k in 512 1024 4096; do S gfa-d128-k$k sk; done
[ $(el) -lt 175 ] && S gfa-long fin douter nw nobar nostage fin
echo "sweep done at $(el)s" | tee -a $OUT/sweep.log
for c in fn-s0 fn-s1 fn-s2 rows; do
  timeout 40 $D/ejk-tune-runner $C/$c --runs 1 --force --out /tmp/$c.json > /tmp/chk-$c.log 2>&1 &
done
wait
echo "checks took until $(el)s" | tee $OUT/checks.txt
for c in fn rows; do
  cat /tmp/chk-$c*.log > /tmp/check-$c.log
  echo "$c: $(grep -cE ': ok ' /tmp/check-$c.log) ok, $(grep -ciE 'wrong' /tmp/check-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/check-$c.log) failed, $(grep -c 'wrote ' /tmp/check-$c.log) shards done" | tee -a $OUT/checks.txt
done
grep -iE "wrong|failed|error" /tmp/check-*.log | grep -v "is not the device" | head -12 | tee -a $OUT/checks.txt
cat /tmp/check-*.log > $OUT/checks.log
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
echo "done at $(el)s"
