#!/bin/bash
# Issue 19 MLA, session 23, call 1 (helper "mla"): the temporary switches of
# switches.patch against the tree (prep23.sh). Pipeline statistics; pass A
# ejk alone (the tree first and last, the switch builds and the profiles
# between); pass B the tree and the all-switch build with PyTorch and the
# copy rate in one process; then the chk cases of every switch build.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1
D=.b-mla/s23; L=$OUT/run.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt 2>&1
echo "== stats $SECONDS" >> $L
python3 -c "import sys,json; sys.path.insert(0,'$D'); import moe; print(json.dumps(moe.pipeline_stats('$D', ['mla-deepseek-v3','mla-deepseek-v3-nosel','mla-deepseek-v3-own','mla-deepseek-v3-early','mla-deepseek-v3-all','mla-deepseek-v3-prof-noload','mla-deepseek-v3-prof-nosm','mla-deepseek-v3-prof-nostage','mla-deepseek-v3-prof-nobar','mla-deepseek-v3-prof-noprod','mla-deepseek-v3-pipe','mla-deepseek-v3-pipe-all']), indent=1))" > $OUT/stats.json 2>&1
echo "== pass A $SECONDS" >> $L
MLA_NAME=a MLA_PEER=0 MLA_ONLY='^mla-deepseek-v3(-nosel|-own|-early|-all|-prof-.*|-tree2)?$|^mla-(deepseek-v3-f16|dense-f16|b4-f16|deepseek-v3-pipe)(-all)?$' timeout 95 python3 $D/mla.py run $D >> $L 2>&1
cp $D/a.json $OUT/ 2>/dev/null
echo "== pass B $SECONDS" >> $L
MLA_NAME=b MLA_ONLY='^mla-deepseek-v3(-all)?$' timeout 30 python3 $D/mla.py run $D >> $L 2>&1
cp $D/b.json $OUT/ 2>/dev/null
echo "== chk all $SECONDS" >> $L
MLA_NAME=chk MLA_ONLY='^chk-.*-all$' timeout 45 python3 $D/mla.py run $D >> $L 2>&1
cp $D/chk.json $OUT/chk-all.json 2>/dev/null
echo "== chk switches $SECONDS" >> $L
MLA_NAME=chk2 MLA_ONLY='^chk-.*-(nosel|own|early)$' timeout $((280 - SECONDS)) python3 $D/mla.py run $D >> $L 2>&1
cp $D/chk2.json $OUT/chk-switches.json 2>/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $OUT/smi.txt 2>&1
echo "== end $SECONDS" >> $L
