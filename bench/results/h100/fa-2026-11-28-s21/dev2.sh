#!/bin/sh
# Session 21 (issue 21, helper fa), device call 2 (H100): registers, a
# sweep (ejk-bench-run, median of 12 after 200 ms; base first and last per
# workload) of prep2.sh's variants (u1 = the key loop two blocks an
# iteration where a subgroup owns one row tile; u1q = u1 + Q's A matrices
# from the buffer where not pipelined; q2 = the latter alone; early = the
# next block's loads before this block's stores; u1e = u1 + early), the
# device checks of u1q's candidates that differ from the tree and of u1's
# that differ from u1q's, gsparse 25 % (sparse.py, one round), then the
# harness (FA2, cuDNN) on the workloads the best variant changes.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/s21/dev2/lib
D=.b-fa/s21/dev2; V=$D/v; C=$D/chk
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for a in base u1 u1q early u1e; do
  for w in gfa-d128 gfa-d128-causal gfa-d128-bf16; do
    [ -d $V/$a/$w ] || continue
    timeout 4 $D/pipeline_stats attention_dispatch_0 4 $V/$a/$w/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|shared|spill" | sed "s#^.*\tCS\t#$a $w #" | cut -c1-120
  done
done > $OUT/stats.txt 2>&1
echo "stats at $(el)s"; cat $OUT/stats.txt | grep -i register
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
S() { w=$1; shift; for v in "$@"; do echo "$w $v: $(B $V/$v/$w)" | sed 's#bench: 12 runs, ##; s#; wall.*##' | tee -a $OUT/sweep.log; done; }
S gfa-d128 base u1q early u1e base
S gfa-d128-causal base u1 u1q q2 base
S gfa-long-causal base u1 u1q q2 base
S gfa-long base u1q u1e base
S gfa-d128-bf16 base u1 u1q base
echo "sweep done at $(el)s" | tee -a $OUT/sweep.log
run_chk() { timeout $1 $D/ejk-tune-runner $C/$2 --runs 1 --force --out /tmp/$2.json > /tmp/chk-$2.log 2>&1; echo "$2 rc $?" >> /tmp/chk-rc.txt; }
for c in $(cd $C && ls -d x-*); do run_chk 60 $c & done
wait
echo "checks took until $(el)s" | tee $OUT/checks.txt
for c in $(cd $C && ls -d x-*); do
  echo "$c: $(grep -cE ': ok ' /tmp/chk-$c.log) ok of $(python3 -c "import json;print(sum(len(p['candidates']) for p in json.load(open('$C/$c/plan.json'))['problems']))"), $(grep -ciE 'wrong' /tmp/chk-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/chk-$c.log) failed" >> $OUT/checks.txt
done
cat /tmp/chk-rc.txt >> $OUT/checks.txt
grep -iE "wrong|failed|error" /tmp/chk-*.log | grep -v "is not the device" | head -12 >> $OUT/checks.txt
cat $OUT/checks.txt | head -24
cat /tmp/chk-*.log > $OUT/checks.log
SPARSE_ROUNDS=1 SPARSE_F32=0 SPARSE_WARM=0.6,0.3 SPARSE_FLEX=none SPARSE_CASES='gsparse_25' timeout 40 python3 $D/spt/sparse.py run $D/spt > $OUT/sparse.log 2>&1
echo "sparse rc $? at $(el)s"; grep -vE "^\s*$" $OUT/sparse.log | grep -iE "gsparse_25|gfa_d128_dense|bar" | cut -c1-300 | tail -6
left=$(( 228 - $(el) ))
if [ $left -gt 30 ]; then
  mkdir -p $OUT/h
  timeout $left python3 bench/gpu.py run --artifacts $V/base --runner $D/ejk-bench-run --workloads gfa-d128-causal,gfa-d128,gfa-long-causal,gfa-long --variants u1q=$V/u1q,u1=$V/u1 --peers torch-flash --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
  echo "harness rc $? at $(el)s"; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^==" | tail -22
fi
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
echo "done at $(el)s"
