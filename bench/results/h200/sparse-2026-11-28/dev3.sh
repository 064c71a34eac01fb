#!/bin/sh
# Device call (issue 19, helper "sparse", session 18): the timing first, in
# one process: ejk dense flash attention, the tree's block-sparse kernel and
# its variants (prep3.sh: o1 = the grid's last group of 128 jobs longest list
# first, l = the list in registers, o1l = both, oall = every group of 128
# sorted, o256 = the last group of 256, oid = every group ranked but the
# order unused), FlexAttention, 3 rounds; then the chk cases compiled with
# o1 alone and l alone (o1l's passed in session 17, byte-identical
# artifacts). From the repository root with carry [".gl", ".b-sparse"]:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; sh .b-sparse/dev3.sh
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv > $OUT/smi.txt
SPARSE_ROUNDS=3 SPARSE_F32=0 SPARSE_CASES='gsparse_(10|25|50|100)(@(o1|l|o1l))?|gsparse_25@(oall|o256|oid)|gsparse_25_causal(@l)?|gsparse_25_bf16(@(o1|l|o1l))?' timeout 165 python3 .b-sparse/sp/sparse.py run .b-sparse/sp > $OUT/sparse.log 2>&1
echo "sparse rc $? $(( $(date +%s) - t0 ))s"
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
grep -E "^bar" $OUT/sparse.log | cut -c1-400
grep -E "^round" $OUT/sparse.log | cut -c1-3000
left=$(( 222 - ($(date +%s) - t0) ))
echo "checks get ${left}s"
if [ $left -gt 20 ]; then
  mkdir -p $OUT/c
  OUT=$OUT/c SPARSE_ROUNDS=1 SPARSE_CASES='chk_.*@(o1|l)' timeout $left python3 .b-sparse/sp/sparse.py run .b-sparse/sp > $OUT/chk.log 2>&1
  echo "chk rc $? $(( $(date +%s) - t0 ))s"
  echo "chk lines $(grep -c '^chk' $OUT/chk.log), ok $(grep '^chk' $OUT/chk.log | grep -c '"ok": true')"
  grep -E "^chk" $OUT/chk.log | grep -v '"ok": true' | cut -c1-200
  grep -E "checks_ok" $OUT/chk.log
fi
