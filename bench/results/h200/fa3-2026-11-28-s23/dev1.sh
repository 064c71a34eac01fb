#!/bin/sh
# Session 23 (issue 21, helper fa3), device call 1 (H200): the runtime's
# fingerprint, registers (pipeline statistics), the sweep (ejk-bench-run,
# median of 12 after 200 ms; base = the tree, first and last; between: the
# temporary switches sg (each subgroup stages its own Q rows and writes its
# own output rows at a turn boundary: subgroup barriers for three workgroup
# barriers), vote (the lazy rescale's vote as one subgroup reduction), sgv
# (both), u1 / u4 (one / four key blocks an iteration), nd (no drain P V:
# profile only, wrong output), and configs through overlays), the harness
# (base over the six gfa workloads with FlashAttention-2 and cuDNN, variants
# sg / vote / sgv), then the device checks of the candidates whose SPIR-V a
# switch changes, the sweep's fastest of sg / vote / sgv first.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa3/dev/lib
D=.b-fa3/dev; V=$D/v
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
python3 $D/fp.py $D/lib > $OUT/fingerprint.txt 2>&1
grep -E "device_name|driver_info|sm_count" $OUT/fingerprint.txt
CFG="q128k64s8r4 q128k32s8r4 q128k32s8r2 q128k32s8r1 q128k16s8r8 q128k64s4r8 q64k64s2r8"
for a in base sg vote sgv u1 u4 nd $CFG; do
  timeout 4 $D/pipeline_stats attention_dispatch_0 4 $V/$a/gfa-d128/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|shared|spill" | sed "s#^.*/v/##" | cut -c1-150
done > $OUT/stats.txt 2>&1
grep -E "Register|pill" $OUT/stats.txt | grep -v "pill.*\s0$" | head -40
echo "stats at $(el)s"
B() { timeout 14 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
S() { w=$1; shift; for v in "$@"; do echo "$w $v: $(B $V/$v/$w)" | sed 's#bench: 12 runs, ##' | tee -a $OUT/sweep.log; done; }
S gfa-d128 base sg vote sgv u1 u4 nd base
S gfa-long base sg vote sgv base
echo "variants done at $(el)s" | tee -a $OUT/sweep.log
S gfa-d128 $CFG base
echo "sweep done at $(el)s" | tee -a $OUT/sweep.log
mkdir -p /tmp/h
timeout 115 python3 bench/gpu.py run --artifacts $V/base --runner $D/ejk-bench-run --workloads gfa-d128,gfa-long,gfa-d64,gfa-d128-causal,gfa-long-causal,gfa-d64-causal --variants sg=$V/sg,vote=$V/vote,sgv=$V/sgv --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir /tmp/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s" | tee -a $OUT/sweep.log
tar czf $OUT/h.tgz -C /tmp h
grep -A40 "^workload" $OUT/harness.txt | grep -v "^\s*$" | head -40
order=$(for v in sgv sg vote; do grep "^gfa-d128 $v:" $OUT/sweep.log | head -1 | sed "s/.*median \([0-9.]*\) ms.*/\1 $v/"; done | sort -n | awk '{print $2}' | tr '\n' ' ')
echo "check order: $order" | tee $OUT/checks.txt
for v in $order; do
  left=$(( 272 - $(el) )); [ $left -lt 12 ] && { echo "$v: no time left" >> $OUT/checks.txt; continue; }
  mkdir -p /tmp/c/$v; tar xzf $D/chk-$v.tgz -C /tmp/c/$v; tar xzf $D/chk-npy.tgz -C /tmp/c/$v
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
