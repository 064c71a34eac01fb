#!/bin/bash
# Lead, session 19, call 3 (H100): block-sparse lists with the lazy rescale
# (temporary compile switch EJK_TMP_SPARSE_LAZY: @l1 = the lazy softmax, O
# still multiplied by alpha (exactly 1 when the max is kept); @l2 = O's
# rescale in a subgroup-uniform branch as the pipelined dense kernel does),
# against the tree and ejk dense: every chk case of the three builds first,
# then gsparse 25 % f16/bf16, 3 rounds, FlexAttention in turn.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1
D=.b-lead/fin; L=$OUT/all.log
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $OUT/smi.txt
SPARSE_ROUNDS=1 SPARSE_CASES='chk_.*' timeout 70 python3 $D/sp/sparse.py run $D/sp > $OUT/chk.log 2>&1
echo "chk rc $? at $(el): lines $(grep -c '^chk' $OUT/chk.log), ok $(grep '^chk' $OUT/chk.log | grep -c '"ok": true')" >> $L
grep -E '^chk' $OUT/chk.log | grep -v '"ok": true' | cut -c1-300 >> $L
SPARSE_ROUNDS=3 SPARSE_F32=0 SPARSE_CASES='gsparse_25(_bf16)?(@l[12])?' timeout $(( 150 - $(el) )) python3 $D/sp/sparse.py run $D/sp > $OUT/sparse.log 2>&1
echo "sparse rc $? at $(el)" >> $L
grep -E "^bar|^round" $OUT/sparse.log | cut -c1-1500 >> $L
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
cat $L
