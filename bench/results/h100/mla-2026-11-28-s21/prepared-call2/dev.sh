#!/bin/bash
# Prepared follow-up call (helper "mla", session 21; NOT run by the helper).
# On an H100 with carry [".gl", ".b-mla/r2"]: bash .b-mla/r2/dev.sh
# (about 130 s). Pass A ejk only: the committed kernel (page lookup once a
# step) beside the kernel before it (-nopage) for bf16, f16, B4 and 16
# heads, and the switches; pass B the main ones with PyTorch and the copy
# rate; then the chk cases (the committed kernel's chk-reg-* and the
# switch builds' on pages of 64).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1
D=.b-mla/r2; L=$OUT/run.log
echo "== stats $SECONDS" >> $L
python3 -c "import sys,json; sys.path.insert(0,'$D'); import moe; print(json.dumps(moe.pipeline_stats('$D', ['mla-deepseek-v3','mla-deepseek-v3-nopage','mla-deepseek-v3-rowaddr','mla-deepseek-v3-acc3','mla-deepseek-v3-late','mla-deepseek-v3-all']), indent=1))" > $OUT/stats.json 2>&1
echo "== pass A $SECONDS" >> $L
MLA_NAME=a MLA_PEER=0 MLA_ONLY='^mla-(deepseek-v3(-nopage|-rowaddr|-acc3|-late|-all)?|deepseek-v3-f16(-nopage)?|b4-f16(-nopage)?|16h-f16(-nopage)?)$' timeout 75 python3 $D/mla.py run $D >> $L 2>&1
echo "== pass B $SECONDS" >> $L
MLA_NAME=b MLA_ONLY='^mla-deepseek-v3(-nopage|-rowaddr|-all)?$' timeout 45 python3 $D/mla.py run $D >> $L 2>&1
echo "== chk $SECONDS" >> $L
MLA_NAME=chk MLA_ONLY='^chk-reg' timeout 55 python3 $D/mla.py run $D >> $L 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt 2>&1
echo "== end $SECONDS" >> $L
