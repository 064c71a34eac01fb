#!/bin/sh
# Session 22 (issue 21, helper fa), device call 1 (H200): registers, the
# profile sweep (ejk-bench-run, median of 12 after 200 ms, the tree first
# and last): phase removals (temporary switches, outputs wrong), seq_k
# 64..4096 at gfa-d128's grid, and the row-blocks prototype rbR (R query
# blocks a workgroup in turn); then the prototype's outputs against the
# tree's (ejk-bench-run --output on the same inputs).
set -u
export PYTHONUNBUFFERED=1 LD_LIBRARY_PATH=$PWD/.b-fa/s22/dev1/lib
D=.b-fa/s22/dev1; V=$D/v
t0=$(date +%s)
el() { echo $(( $(date +%s) - t0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
for a in base rb2 rb4 rb8 empty; do
  timeout 4 $D/pipeline_stats attention_dispatch_0 4 $V/$a/gfa-d128/artifact/attention_attention_dispatch_0.spv 2>&1 | grep -iE "register|shared|spill" | sed "s#^#$a gfa-d128 #" | cut -c1-150
done > $OUT/stats.txt 2>&1
echo "stats at $(el)s"; cat $OUT/stats.txt | head -20
B() { timeout 12 $D/ejk-bench-run $1/artifact/attention.json --entry attention --runs 12 --warmup 1 --warmup-ms 200 2>&1 | grep -E "median|error" | head -2 | tr '\n' ' '; }
S() { w=$1; shift; for v in "$@"; do echo "$w $v: $(B $V/$v/$w)" | sed 's#bench: 12 runs, ##' | tee -a $OUT/sweep.log; done; }
S gfa-d128 base rb2 rb4 rb8 rb3 empty noq noout nofirst nolast eq eo ef eqo eqof qo qof rb2 base
echo "d128 at $(el)s" | tee -a $OUT/sweep.log
for k in 64 128 256 512 1024 4096; do echo "gfa-d128-k$k: $(B $V/sk/gfa-d128-k$k)" | sed 's#bench: 12 runs, ##' | tee -a $OUT/sweep.log; done
S gfa-long base rb2 rb4 rb8 rb16 empty noq noout nofirst qo base
S gfa-d64 base rb2 rb4 rb8 base
S gfa-d128-causal base rb2 rb4 base
echo "sweep done at $(el)s" | tee -a $OUT/sweep.log
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
# The prototype's outputs against the tree's (same LCG inputs).
O=/tmp/o; mkdir -p $O
C() { w=$1; shift; timeout 20 $D/ejk-bench-run $V/base/$w/artifact/attention.json --entry attention --runs 1 --warmup 0 --output $O/base.npy > /dev/null 2>&1
  for v in "$@"; do timeout 20 $D/ejk-bench-run $V/$v/$w/artifact/attention.json --entry attention --runs 1 --warmup 0 --output $O/$v.npy > /dev/null 2>&1
    python3 -c "
import numpy as np, sys
a = np.load('$O/base.npy').astype(np.float32); b = np.load('$O/$v.npy').astype(np.float32)
print('$w $v vs base: max|diff| %g, nan %d, max|base| %g' % (np.nanmax(np.abs(a - b)), np.isnan(b).sum(), np.abs(a).max()))
" 2>&1 | tail -1 | tee -a $OUT/outputs.txt; done; }
C gfa-d128 rb2 rb3 rb4 rb8
C gfa-d64 rb3 rb8
C gfa-d128-causal rb2 rb3
C gfa-long rb4 rb16
echo "done at $(el)s" | tee -a $OUT/outputs.txt
