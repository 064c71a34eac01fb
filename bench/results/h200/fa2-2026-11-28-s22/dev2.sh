#!/bin/sh
# Session 22 (issue 21, helper fa2), device call 2 (H200): configs through an
# overlay with the committed compiler (no kernel change): c8 = 128x64x8
# row_blocks 8 (the committed heuristic with sm_count=132, first and last),
# a4 / a8 / a16 = 64x64x4 (128 threads: two workgroups an SM by registers)
# row_blocks 4 / 8 / 16, b8 = 64x32x4 R8, d8 = 128x32x8 R8: registers, the
# sweep (median of 12 after 200 ms), the harness on gfa-d128 / gfa-long
# (c8 as ejk, the others as variants, FlashAttention-2 and cuDNN), then the
# device checks of the row problems' full-space candidates of block_q 64
# with row_blocks > 1 (f16, bf16).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa2/dev2/lib
D=.b-fa2/dev2; V=$D/v
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for a in c8 a4 a8 a16 b8 d8; do for w in gfa-d128; do
  timeout 4 $D/pipeline_stats attention_dispatch_0 4 $V/$a/$w/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|shared|spill" | sed "s#^.*/v/##" | cut -c1-150
done; done > $OUT/stats.txt 2>&1
grep Register $OUT/stats.txt
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
S() { w=$1; shift; for v in "$@"; do echo "$w $v: $(B $V/$v/$w)" | sed 's#bench: 12 runs, ##' | tee -a $OUT/sweep.log; done; }
S gfa-d128 c8 a4 a8 a16 b8 d8 c8
S gfa-long c8 a4 a8 a16 b8 d8 c8
echo "sweep done at $(el)s" | tee -a $OUT/sweep.log
mkdir -p /tmp/h
timeout 90 python3 bench/gpu.py run --artifacts $V/c8 --runner $D/ejk-bench-run --workloads gfa-d128,gfa-long --variants a4=$V/a4,a8=$V/a8,a16=$V/a16,b8=$V/b8,d8=$V/d8 --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir /tmp/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s" | tee -a $OUT/sweep.log
tar czf $OUT/h.tgz -C /tmp h
grep -A30 "^workload" $OUT/harness.txt | grep -v "^\s*$" | grep -v "below the app" | head -24
mkdir -p /tmp/c; tar xzf $D/chk2.tgz -C /tmp/c
left=$(( 225 - $(el) )); [ $left -lt 20 ] && left=20
: > /tmp/chk-rc.txt
for s in rowsf rowsf-bf; do
  python3 $D/split.py /tmp/c/$s 6 > /dev/null
  for k in 0 1 2 3 4 5; do
    ( timeout $left $D/ejk-tune-runner /tmp/c/$s.$k --runs 1 --force --out /tmp/c/$s-$k.json > /tmp/c/chk-$s-$k.log 2>&1; echo "$s.$k rc $?" >> /tmp/chk-rc.txt ) &
  done
done
wait
cat /tmp/c/chk-*.log > /tmp/c/all.log
echo "block_q 64 row_blocks candidates: $(grep -cE ': ok ' /tmp/c/all.log) ok, $(grep -ciE 'wrong' /tmp/c/all.log) wrong-lines, $(grep -ciE ': failed' /tmp/c/all.log) failed; until $(el)s; rc: $(sort /tmp/chk-rc.txt | tr '\n' ' ')" | tee $OUT/checks.txt
grep -iE "wrong|failed|error" /tmp/c/all.log | grep -v "is not the device" | head -6 >> $OUT/checks.txt
gzip -c /tmp/c/all.log > $OUT/checks.log.gz
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
echo "done at $(el)s"
