#!/bin/bash
# Session 21, helper "mla": the one device call. Pipeline statistics; pass
# A ejk only (the heuristic = cooperative 2, the pipelined cooperative 3,
# the switch builds, the profile, f16 / dense / B4 beside their pipelined
# builds); pass B the heuristic and the new forms with PyTorch and the copy
# rate in the same process; then the chk cases of the new forms and the
# heuristic's. Partial results land in $OUT as it goes (about 150 s).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1
D=.b-mla/r; L=$OUT/run.log
echo "== stats $SECONDS" >> $L
python3 -c "import sys,json; sys.path.insert(0,'$D'); import moe; print(json.dumps(moe.pipeline_stats('$D', ['mla-deepseek-v3','mla-deepseek-v3-parts-page','mla-deepseek-v3-pipe','mla-deepseek-v3-f16-pipe','mla-deepseek-v3-pipe-noprod']), indent=1))" > $OUT/stats.json 2>&1
echo "== pass A $SECONDS" >> $L
MLA_NAME=a MLA_PEER=0 MLA_ONLY='^mla-(deepseek-v3(-pipe|-parts|-page|-parts-page|-pipe-nos|-pipe-nopv|-pipe-noprod|-pipe-pvfirst|-pipe-smfirst)?|deepseek-v3-f16(-pipe|-parts-page)?|dense-f16(-pipe|-parts)?|b4-f16(-pipe|-parts-page)?)$' timeout 110 python3 $D/mla.py run $D >> $L 2>&1
echo "== pass B $SECONDS" >> $L
MLA_NAME=b MLA_ONLY='^mla-deepseek-v3(-pipe|-parts-page)?$' timeout 40 python3 $D/mla.py run $D >> $L 2>&1
echo "== chk $SECONDS" >> $L
MLA_NAME=chk MLA_ONLY='^chk-(pipe|reg)' timeout 70 python3 $D/mla.py run $D >> $L 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt 2>&1
echo "== end $SECONDS" >> $L
