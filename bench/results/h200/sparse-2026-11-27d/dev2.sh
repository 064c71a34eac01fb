#!/bin/sh
# Prepared device call 2 (issue 19, helper "sparse"; not run: the session's
# device budget fell under its floor after call 1, whose sparse.py timing
# did not come back). Timing only (call 1 ran the checks of o1l): ejk
# dense, the tree's block-sparse kernel and its variants, FlexAttention, one
# process, 2 rounds. From the repository root with carry [".gl",
# ".b-sparse"]:
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; sh .b-sparse/dev2.sh
# Variants (compiled by .b-sparse/prep.sh): o1 = EJK_TMP_SPARSE_ORDER=128,1
# (the last 128 jobs longest list first), oall = 128,0 (every group of
# 128), o256 = 256,1, oid = 128,0,id (every group ranked, order unused: the
# ranking's cost), l = EJK_TMP_SPARSE_LIST=1 (the list in registers), o1l =
# both.
set -u
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $OUT/smi.txt
s=$(date +%s)
SPARSE_ROUNDS=2 SPARSE_F32=0 SPARSE_CASES='gsparse_(10|25|50|100)(@o1l)?|gsparse_25@(o1|l|oall|oid|o256)|gsparse_25_(bf16|causal)(@o1l)?' timeout 175 python3 .b-sparse/sp/sparse.py run .b-sparse/sp > $OUT/sparse.log 2>&1
echo "sparse rc $? $(( $(date +%s) - s ))s"
cp .b-sparse/sp/sparse.json $OUT/ 2>/dev/null
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
grep -E "^bar" $OUT/sparse.log | cut -c1-300
grep -E "^round" $OUT/sparse.log | cut -c1-2500
