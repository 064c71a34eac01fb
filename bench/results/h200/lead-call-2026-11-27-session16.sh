#!/bin/sh
# Lead's call (session 16): mamba1 variants (.ssm21: the helper's prepared
# set with its phase-drop profile; .ssmL16: the committed lane_batch /
# double_buffer kernels) and the block-sparse pipelined-lists timing.
set -u
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $OUT/smi.txt
s=$(date +%s)
timeout 150 python3 .ssm21/ssm.py run .ssm21 > $OUT/ssm21.log 2>&1; echo "ssm21 rc $? $(( $(date +%s) - s ))s"
cp .ssm21/ssm.json $OUT/ssm21.json 2>/dev/null
s=$(date +%s)
SSM_ONLY='^(mamba1|mamba1_tl16s[12]_lb[1248](_db)?|mamba1_tl16s2_db|chk_scan_lb_.*)$' timeout 90 python3 .ssmL16/ssm.py run .ssmL16 > $OUT/ssmL16.log 2>&1; echo "ssmL16 rc $? $(( $(date +%s) - s ))s"
cp .ssmL16/ssm.json $OUT/ssmL16.json 2>/dev/null
s=$(date +%s)
SPARSE_ROUNDS=3 SPARSE_F32=0 SPARSE_CASES='gsparse_(10|25|100)@(nopipe|pq)|gsparse_25|gsparse_25_bf16@(nopipe|pqnb)' timeout 200 python3 .spL16/sp2/sparse.py run .spL16/sp2 > $OUT/sparse.log 2>&1; echo "sparse rc $? $(( $(date +%s) - s ))s"
cp .spL16/sp2/sparse.json $OUT/ 2>/dev/null
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
grep -E "% of copy|copy GB" $OUT/ssm21.log $OUT/ssmL16.log | cut -c1-200
grep -iE "wrong|fail|error" $OUT/ssm21.log $OUT/ssmL16.log | grep -v "_p_" | head -10
grep -E "^round|^bar|gsparse.*median|flex" $OUT/sparse.log | cut -c1-300 | head -30
