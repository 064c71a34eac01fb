#!/bin/bash
# Issue 19 MLA, session 20, call 2 (helper "mla"): the temporary switches
# of call2-switches.patch against the committed kernel. Pipeline
# statistics; pass A ejk only (committed, the switch build with every
# switch off, each switch, all four); pass B the committed kernel and the
# all-switch builds with PyTorch and the copy rate in the same process;
# then the switch builds' chk cases.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1
D=.b-mla/q; L=$OUT/run.log
echo "== stats $SECONDS" >> $L
python3 -c "import sys,json; sys.path.insert(0,'$D'); import moe; print(json.dumps(moe.pipeline_stats('$D', ['mla-deepseek-v3-committed','mla-deepseek-v3','mla-deepseek-v3-late','mla-deepseek-v3-acc3','mla-deepseek-v3-masklast','mla-deepseek-v3-lazy','mla-deepseek-v3-all']), indent=1))" > $OUT/stats.json 2>&1
echo "== pass A $SECONDS" >> $L
MLA_NAME=a MLA_PEER=0 MLA_ONLY='^mla-deepseek-v3(-committed|-late|-acc3|-masklast|-lazy|-all|-prof-nos|-prof-nopv|-prof-noprod)?$' timeout 70 python3 $D/mla.py run $D >> $L 2>&1
echo "== pass B $SECONDS" >> $L
MLA_NAME=b MLA_ONLY='^mla-(deepseek-v3-committed|deepseek-v3-all|deepseek-v3-f16-all|dense-f16-all)$' timeout 60 python3 $D/mla.py run $D >> $L 2>&1
echo "== chk $SECONDS" >> $L
MLA_NAME=chk MLA_ONLY='^chk-.*-(late|acc3|masklast|lazy|all)$' timeout 45 python3 $D/mla.py run $D >> $L 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt 2>&1
echo "== end $SECONDS" >> $L
