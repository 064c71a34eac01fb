#!/bin/sh
# Session 22 (issue 21, helper fa), device call 2 (H200): registers, the
# sweep (ejk-bench-run, median of 12 after 200 ms, the tree first and last:
# new = the heuristic with row_blocks 2 on gfa-d128 / gfa-long, rb4 / rb8 =
# 4 / 8 query blocks a workgroup), the harness (the tree, new and rb8 with
# FlashAttention-2 and cuDNN, all six gfa workloads), then the device checks
# of every row_blocks candidate (check-coop f16 / bf16 and the row problems
# f16 / bf16, small space; the row problems' 128-row candidates of the full
# space).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/s22/dev2/lib
D=.b-fa/s22/dev2; V=$D/v; C=$D/chk
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for a in base new rb8; do for w in gfa-d128 gfa-long; do
  timeout 4 $D/pipeline_stats attention_dispatch_0 4 $V/$a/$w/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|shared|spill" | sed "s#^.*/v/##" | cut -c1-150
done; done > $OUT/stats.txt 2>&1
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
S() { w=$1; shift; for v in "$@"; do echo "$w $v: $(B $V/$v/$w)" | sed 's#bench: 12 runs, ##' | tee -a $OUT/sweep.log; done; }
S gfa-d128 base new rb4 rb8 new base
S gfa-long base new rb4 rb8 new base
echo "sweep done at $(el)s" | tee -a $OUT/sweep.log
mkdir -p $OUT/h
timeout 125 python3 bench/gpu.py run --artifacts $V/base --runner $D/ejk-bench-run --workloads gfa-d128,gfa-long,gfa-d64,gfa-d128-causal,gfa-long-causal,gfa-d64-causal --variants new=$V/new,rb8=$V/rb8 --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s" | tee -a $OUT/sweep.log; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^==" | tail -30
left=$(( 255 - $(el) )); [ $left -lt 30 ] && left=30
run_chk() { timeout $1 $D/ejk-tune-runner $C/$2 --runs 1 --force --out /tmp/$2.json > /tmp/chk-$2.log 2>&1; echo "$2 rc $?" >> /tmp/chk-rc.txt; }
for c in nv nb rows rows-bf; do run_chk $left $c & done
wait
echo "checks took until $(el)s" | tee $OUT/checks.txt
cat /tmp/chk-rc.txt >> $OUT/checks.txt
for c in nv nb rows rows-bf; do
  echo "$c: $(grep -cE ': ok ' /tmp/chk-$c.log) ok, $(grep -ciE 'wrong' /tmp/chk-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/chk-$c.log) failed" >> $OUT/checks.txt
done
grep -iE "wrong|failed|error" /tmp/chk-*.log | grep -v "is not the device" | head -12 >> $OUT/checks.txt
cat $OUT/checks.txt
cat /tmp/chk-*.log | gzip > $OUT/checks.log.gz
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
echo "done at $(el)s"
