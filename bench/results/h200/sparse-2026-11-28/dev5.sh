#!/bin/sh
# Device call 2 (issue 19, helper "sparse", session 18): the timing first, in
# one process: ejk dense (HEAD d216695's, recompiled), the tree (@o1), the
# last group of 256 (@o256), whole-block K/V loads for lists (@o256w), the
# output through the stage for block-sparse too (@o1s, @o256ws),
# FlexAttention, 3 rounds; then the chk cases: chk_job_groups_256 (256
# threads, 256 jobs) @o1, @o256, @o256w, @o256ws, and every case @o256ws.
# From the repository root with carry [".gl", ".b-sparse/sp",
# ".b-sparse/dev5.sh"]:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; sh .b-sparse/dev5.sh
set -u
export PYTHONUNBUFFERED=1
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv > $OUT/smi.txt
SPARSE_ROUNDS=3 SPARSE_F32=0 SPARSE_CASES='gsparse_(10|25|50|100|25_bf16|25_causal)@o1|gsparse_(10|25|50|100|25_bf16)@o256|gsparse_(10|25|50|100|25_bf16)@o256w|gsparse_25@o1s|gsparse_(10|25|50|100|25_bf16|25_causal)@o256ws' timeout 165 python3 .b-sparse/sp/sparse.py run .b-sparse/sp > $OUT/sparse.log 2>&1
echo "sparse rc $? $(( $(date +%s) - t0 ))s"
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
grep -E "^bar" $OUT/sparse.log | cut -c1-400
grep -E "^round" $OUT/sparse.log | cut -c1-3000
left=$(( 228 - ($(date +%s) - t0) ))
echo "checks get ${left}s"
if [ $left -gt 20 ]; then
  mkdir -p $OUT/c
  OUT=$OUT/c SPARSE_ROUNDS=1 SPARSE_CASES='chk_job_groups_256@(o1|o256|o256w|o256ws)|chk_.*@o256ws' timeout $left python3 .b-sparse/sp/sparse.py run .b-sparse/sp > $OUT/chk.log 2>&1
  echo "chk rc $? $(( $(date +%s) - t0 ))s"
  echo "chk lines $(grep -c '^chk' $OUT/chk.log), ok $(grep '^chk' $OUT/chk.log | grep -c '"ok": true')"
  grep -E "^chk" $OUT/chk.log | grep -v '"ok": true' | cut -c1-200
  grep -E "checks_ok" $OUT/chk.log
fi
