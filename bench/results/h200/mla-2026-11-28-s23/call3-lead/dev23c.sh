#!/bin/bash
# PREPARED (not run) third call of the mla helper, session 23: prep23c.sh's
# artifacts. Pass A ejk alone (the committed kernel first and last, the
# switch builds and the FIXROW profile between); pass B the committed and
# the NT build with PyTorch; then the chk cases of every switch build.
# About 180 s.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1
D=.b-mla/s23c; L=$OUT/run.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt 2>&1
echo "== pass A $SECONDS" >> $L
MLA_NAME=a MLA_PEER=0 MLA_ONLY='^mla-' timeout 70 python3 $D/mla.py run $D >> $L 2>&1
echo "== pass B $SECONDS" >> $L
MLA_NAME=b MLA_ONLY='^mla-deepseek-v3(-nt)?$' timeout 30 python3 $D/mla.py run $D >> $L 2>&1
echo "== chk $SECONDS" >> $L
MLA_NAME=chk MLA_ONLY='^chk' timeout $((250 - SECONDS)) python3 $D/mla.py run $D >> $L 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $OUT/smi.txt 2>&1
echo "== end $SECONDS" >> $L
