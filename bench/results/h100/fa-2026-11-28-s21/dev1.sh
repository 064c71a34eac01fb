#!/bin/sh
# Session 21 (issue 21, helper fa), device call 1 (H100): registers, the
# sweep (ejk-bench-run, median of 12 after 200 ms; the tree first and last
# per workload), the harness (the tree and the best variant with
# FlashAttention-2 and cuDNN in the same run, all six gfa workloads), the
# device checks of the variants' candidates that differ from the tree
# (the best variant's first), then gsparse 25 % (sparse.py, one round).
# Variants (prep.sh): mid, mid2, qg, mq = mid + qg, m2q = mid2 + qg, nt,
# u2 (unroll), mqn = mq + nt, mqu = mq + u2.
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/s21/dev/lib
D=.b-fa/s21/dev; V=$D/v; C=$D/chk
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for a in base mid mid2 qg mq m2q nt u2 mqn mqu; do
  for w in gfa-d128; do
    timeout 4 $D/pipeline_stats attention_dispatch_0 4 $V/$a/$w/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|shared|spill" | sed "s#^#$a $w #" | cut -c1-150
  done
done > $OUT/stats.txt 2>&1
echo "stats at $(el)s"; head -30 $OUT/stats.txt
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
S() { w=$1; shift; for v in "$@"; do echo "$w $v: $(B $V/$v/$w)" | sed 's#bench: 12 runs, ##' | tee -a $OUT/sweep.log; done; }
S gfa-d128 base mid mid2 qg mq m2q nt u2 mqn mqu base
S gfa-long base mid mid2 qg mq m2q nt u2 mqn mqu base
# best: the lowest sum of gfa-d128 and gfa-long medians relative to base's
best=$(python3 - $OUT/sweep.log <<'PY'
import re, sys, collections
t = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) (\S+): median ([0-9.]+) ms", line)
    if m: t[m.group(1)].setdefault(m.group(2), []).append(float(m.group(3)))
score = {}
for v in t["gfa-d128"]:
    if v == "base" or v not in t["gfa-long"]: continue
    score[v] = sum(min(t[w][v]) / (sum(t[w]["base"]) / len(t[w]["base"])) for w in ("gfa-d128", "gfa-long"))
print(min(score, key=score.get) if score else "mq")
PY
)
echo "best variant: $best at $(el)s" | tee -a $OUT/sweep.log
mkdir -p $OUT/h
timeout 105 python3 bench/gpu.py run --artifacts $V/base --runner $D/ejk-bench-run --workloads gfa-d128,gfa-long,gfa-d64,gfa-d128-causal,gfa-long-causal,gfa-d64-causal --variants $best=$V/$best --peers torch-flash,torch-cudnn --rounds 1 --runs 10 --warm-s 0.6 --no-docs --out-dir $OUT/h > $OUT/harness.txt 2>&1
echo "harness rc $? at $(el)s" | tee -a $OUT/sweep.log; grep -v "^\s*$" $OUT/harness.txt | grep -vE "^==" | tail -30
# checks: every shard at once (the best variant's first)
left=$(( 180 - $(el) )); [ $left -lt 25 ] && left=25
first=$(cd $C && ls -d x-$best-* 2>/dev/null); rest=$(cd $C && ls -d x-* | grep -v "^x-$best-")
run_chk() { timeout $1 $D/ejk-tune-runner $C/$2 --runs 1 --force --out /tmp/$2.json > /tmp/chk-$2.log 2>&1; echo "$2 rc $?" >> /tmp/chk-rc.txt; }
for c in $first $rest; do run_chk $left $c & done
wait
echo "checks took until $(el)s" | tee $OUT/checks.txt
cat /tmp/chk-rc.txt >> $OUT/checks.txt
for c in $(cd $C && ls -d x-*); do
  [ -f /tmp/chk-$c.log ] || { echo "$c: not run" >> $OUT/checks.txt; continue; }
  echo "$c: $(grep -cE ': ok ' /tmp/chk-$c.log) ok, $(grep -ciE 'wrong' /tmp/chk-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/chk-$c.log) failed" >> $OUT/checks.txt
done
grep -iE "wrong|failed|error" /tmp/chk-*.log | grep -v "is not the device" | head -12 >> $OUT/checks.txt
cat $OUT/checks.txt
cat /tmp/chk-*.log > $OUT/checks.log
if [ $(el) -lt 200 ]; then
  S gfa-d64 base mid qg mq nt u2 $best base
  S gfa-d128-causal base qg nt u2 $best base
  S gfa-d64-causal base qg nt $best base
  S gfa-long-causal base qg nt $best base
  echo "sweep 2 done at $(el)s" | tee -a $OUT/sweep.log
fi
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
left=$(( 228 - $(el) ))
if [ $left -gt 15 ]; then
  SPARSE_ROUNDS=1 SPARSE_F32=0 SPARSE_WARM=0.6,0.3 SPARSE_FLEX=none SPARSE_CASES='gsparse_25' timeout $left python3 $D/spt/sparse.py run $D/spt > $OUT/sparse.log 2>&1
  echo "sparse rc $? at $(el)s"; grep -E "^bar|gsparse_25|dense" $OUT/sparse.log | cut -c1-300 | tail -8
fi
echo "done at $(el)s"
