#!/bin/sh
# Session 23 (issue 21, helper fa3), device call 2 (H200): od = the previous
# turn's drain in each turn's first key block (its K stored with the previous
# turn's last V, that block's P V added to the previous turn's O beside the
# new S and softmax; the previous turn's output after that block; the next
# turn's Q loads issued in the last block once its S is done): registers, the
# sweep (ejk-bench-run, median of 12 after 200 ms, base and od alternating),
# the device checks of the 15 candidates od changes, then the harness (base
# over the six gfa workloads with FlashAttention-2 and cuDNN, variant od).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa3/dev/lib
D=.b-fa3/dev; V=$D/v
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for a in base od; do for w in gfa-d128 gfa-long; do
  timeout 4 $D/pipeline_stats attention_dispatch_0 4 $V/$a/$w/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|shared|spill" | sed "s#^.*/v/##" | cut -c1-150
done; done > $OUT/stats.txt 2>&1
grep -E "Register|pill" $OUT/stats.txt
B() { timeout 14 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
S() { w=$1; shift; for v in "$@"; do echo "$w $v: $(B $V/$v/$w)" | sed 's#bench: 12 runs, ##' | tee -a $OUT/sweep.log; done; }
S gfa-d128 base od base od base
S gfa-long base od base od
echo "sweep done at $(el)s" | tee -a $OUT/sweep.log
mkdir -p /tmp/c/od; tar xzf $D/chk-od.tgz -C /tmp/c/od
: > /tmp/chk-rc.txt
for s in nv rows; do
  python3 $D/split.py /tmp/c/od/$s 3 > /dev/null
  for k in 0 1 2; do
    ( timeout 60 $D/ejk-tune-runner /tmp/c/od/$s.$k --runs 1 --force --out /tmp/c/od-$s-$k.json > /tmp/c/chk-$s-$k.log 2>&1; echo "$s.$k rc $?" >> /tmp/chk-rc.txt ) &
  done
done
wait
cat /tmp/c/chk-*.log > /tmp/c/all.log
echo "od: $(grep -cE ': ok ' /tmp/c/all.log) ok, $(grep -ciE 'wrong' /tmp/c/all.log) wrong-lines, $(grep -ciE ': failed' /tmp/c/all.log) failed; until $(el)s; rc: $(sort /tmp/chk-rc.txt | tr '\n' ' ')" | tee $OUT/checks.txt
grep -iE "wrong|failed|error" /tmp/c/all.log | grep -v "is not the device" | head -6 >> $OUT/checks.txt

mkdir -p /tmp/h
timeout 150 python3 bench/gpu.py run --artifacts $V/base --runner $D/ejk-bench-run --workloads gfa-d128,gfa-long,gfa-d64,gfa-d128-causal,gfa-long-causal,gfa-d64-causal --variants od=$V/od --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir /tmp/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s" | tee -a $OUT/sweep.log
tar czf $OUT/h.tgz -C /tmp h c/all.log
grep -A40 "^workload" $OUT/harness.txt | grep -v "^\s*$" | grep -v "below the app" | head -30
if [ $(el) -lt 200 ]; then
  mkdir -p /tmp/h2
  timeout $(( 265 - $(el) )) python3 bench/gpu.py run --artifacts $V/base --runner $D/ejk-bench-run --workloads gfa-d128,gfa-long --variants od=$V/od --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir /tmp/h2 > $OUT/harness2.txt 2>&1
  echo "harness2 rc $? at $(el)s" | tee -a $OUT/sweep.log
  tar czf $OUT/h2.tgz -C /tmp h2
  grep -A40 "^workload" $OUT/harness2.txt | grep -v "^\s*$" | grep -v "below the app" | head -12
fi
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
echo "done at $(el)s"
