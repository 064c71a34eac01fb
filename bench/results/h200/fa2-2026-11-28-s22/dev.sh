#!/bin/sh
# Session 22 (issue 21, helper fa2), device call 1 (H200): the runtime's own
# fingerprint (sm_count), registers, the sweep (ejk-bench-run, median of 12
# after 200 ms; rb8 = the committed heuristic with sm_count=132, row_blocks
# 8; base = row_blocks 2 (fingerprint without sm_count), first and last;
# the temporary switches qm / skip / qs between), the harness (rb8 over the
# six gfa workloads with FlashAttention-2 and cuDNN; variants r2 = row_blocks
# 2, qm, skip, qs on gfa-d128 / gfa-long), then the device checks of every
# candidate whose SPIR-V a switch changes: the sweep's fastest switch first.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa2/dev/lib
D=.b-fa2/dev; V=$D/v
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
python3 $D/fp.py $D/lib > $OUT/fingerprint.txt 2>&1
grep -E "device_name|driver_info|sm_count" $OUT/fingerprint.txt
for a in base rb8 qm skip qs; do for w in gfa-d128 gfa-long; do
  timeout 4 $D/pipeline_stats attention_dispatch_0 4 $V/$a/$w/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|shared|spill" | sed "s#^.*/v/##" | cut -c1-150
done; done > $OUT/stats.txt 2>&1
grep Register $OUT/stats.txt
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
S() { w=$1; shift; for v in "$@"; do echo "$w $v: $(B $V/$v/$w)" | sed 's#bench: 12 runs, ##' | tee -a $OUT/sweep.log; done; }
S gfa-d128 base rb8 qm skip qs rb8 base
S gfa-long base rb8 qm skip qs rb8 base
echo "sweep done at $(el)s" | tee -a $OUT/sweep.log
mkdir -p /tmp/h
timeout 120 python3 bench/gpu.py run --artifacts $V/rb8 --runner $D/ejk-bench-run --workloads gfa-d128,gfa-long,gfa-d64,gfa-d128-causal,gfa-long-causal,gfa-d64-causal --variants r2=$V/r2,qm=$V/qm,skip=$V/skip,qs=$V/qs --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir /tmp/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s" | tee -a $OUT/sweep.log
tar czf $OUT/h.tgz -C /tmp h
grep -A40 "^workload" $OUT/harness.txt | grep -v "^\s*$" | head -40
# The fastest switch on gfa-d128 in the sweep, checked first.
order=$(for v in qm skip qs; do grep "^gfa-d128 $v:" $OUT/sweep.log | head -1 | sed "s/.*median \([0-9.]*\) ms.*/\1 $v/"; done | sort -n | awk '{print $2}' | tr '\n' ' ')
echo "check order: $order" | tee $OUT/checks.txt
mkdir -p /tmp/c; tar xzf $D/chk-qs.tgz -C /tmp/c; tar xzf $D/chk-qm.tgz -C /tmp/c; tar xzf $D/chk-skip.tgz -C /tmp/c
(cd /tmp/c/qs && find . -name "*.npy") | while read f; do cp /tmp/c/qs/$f /tmp/c/qm/$f; cp /tmp/c/qs/$f /tmp/c/skip/$f; done
for v in $order; do
  left=$(( 280 - $(el) )); [ $left -lt 15 ] && { echo "$v: no time left" >> $OUT/checks.txt; continue; }
  : > /tmp/chk-rc-$v.txt
  for s in nv nb rows rows-bf; do
    python3 $D/split.py /tmp/c/$v/$s 3 > /dev/null
    for k in 0 1 2; do
      ( timeout $left $D/ejk-tune-runner /tmp/c/$v/$s.$k --runs 1 --force --out /tmp/c/$v-$s-$k.json > /tmp/c/chk-$v-$s-$k.log 2>&1; echo "$s.$k rc $?" >> /tmp/chk-rc-$v.txt ) &
    done
  done
  wait
  cat /tmp/c/chk-$v-*.log > /tmp/c/all-$v.log
  echo "$v: $(grep -cE ': ok ' /tmp/c/all-$v.log) ok, $(grep -ciE 'wrong' /tmp/c/all-$v.log) wrong-lines, $(grep -ciE ': failed' /tmp/c/all-$v.log) failed; until $(el)s; rc: $(sort /tmp/chk-rc-$v.txt | tr '\n' ' ')" | tee -a $OUT/checks.txt
  grep -iE "wrong|failed|error" /tmp/c/all-$v.log | grep -v "is not the device" | head -6 >> $OUT/checks.txt
done
cat /tmp/c/all-*.log 2>/dev/null | gzip > $OUT/checks.log.gz
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
echo "done at $(el)s"
