#!/bin/bash
# Lead, session 22: MLA on the H200 with the committed kernel (row addresses
# from one base a step, c5fe00b): every workload and every chk case.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1
D=.b-lead/mla; L=$OUT/run.log
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt 2>&1
echo "== chk $SECONDS" >> $L
MLA_NAME=chk MLA_ONLY='^chk' timeout 90 python3 $D/mla.py run $D >> $L 2>&1
echo "== pass A $SECONDS" >> $L
MLA_NAME=a MLA_PEER=0 MLA_ONLY='^mla-' timeout 80 python3 $D/mla.py run $D >> $L 2>&1
echo "== pass B $SECONDS" >> $L
MLA_NAME=b MLA_ONLY='^mla-deepseek-v3(-f16)?$' timeout 50 python3 $D/mla.py run $D >> $L 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> $OUT/smi.txt 2>&1
cp $D/chk.json $D/a.json $D/b.json $OUT/ 2>/dev/null
echo "== end $SECONDS" >> $L
