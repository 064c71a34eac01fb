#!/bin/bash
# Issue 19 MLA, session 23, call 2 (helper "mla"): prep23b.sh's artifacts.
# Pass A ejk alone: the tree (session 22's artifacts) first, the new kernel
# and the new kernel without the page ahead (-nop) between, the tree again
# last; pass B the tree and the new kernel with PyTorch and the copy rate in
# one process; then the chk cases of every changed config and of the -nop
# builds.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1
D=.b-mla/s23b; L=$OUT/run.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt 2>&1
echo "== pass A $SECONDS" >> $L
MLA_NAME=a MLA_PEER=0 MLA_ONLY='^mla-' timeout 110 python3 $D/mla.py run $D >> $L 2>&1
echo "== pass B $SECONDS" >> $L
MLA_NAME=b MLA_ONLY='^mla-deepseek-v3(-tree)?$' timeout 30 python3 $D/mla.py run $D >> $L 2>&1
echo "== chk $SECONDS" >> $L
MLA_NAME=chk MLA_ONLY='^chk' timeout $((250 - SECONDS)) python3 $D/mla.py run $D >> $L 2>&1
echo "== stats $SECONDS" >> $L
python3 -c "import sys,json; sys.path.insert(0,'$D'); import moe; print(json.dumps(moe.pipeline_stats('$D', ['mla-deepseek-v3-tree','mla-deepseek-v3','mla-deepseek-v3-nop','mla-deepseek-v3-pipe-tree','mla-deepseek-v3-pipe']), indent=1))" > $D/stats.json 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $OUT/smi.txt 2>&1
echo "== end $SECONDS" >> $L
cp $D/stats.json $L $OUT/ 2>/dev/null
