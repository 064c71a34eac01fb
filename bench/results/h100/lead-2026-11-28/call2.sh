#!/bin/bash
# Lead, session 19, call 2 (H100): what call 1 lost — the block-sparse chk
# cases (chk_job_groups_256 among them; call 1's SPARSE_CASES='^chk_' is
# matched whole, so none ran) and MLA decode against the copy rate (its
# result file was over the 8 that come back). Same artifacts as call 1.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export PYTHONUNBUFFERED=1
D=.b-lead/fin; L=$OUT/all.log
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/smi.txt
SPARSE_ROUNDS=1 SPARSE_CASES='chk_.*' timeout 60 python3 $D/sp/sparse.py run $D/sp > $OUT/sparse-chk.log 2>&1
echo "sparse chk rc $? at $(el): lines $(grep -c '^chk' $OUT/sparse-chk.log), ok $(grep '^chk' $OUT/sparse-chk.log | grep -c '"ok": true')" >> $L
grep -E '^checks_ok' $OUT/sparse-chk.log >> $L
timeout 50 python3 $D/mla/mla.py run $D/mla > $OUT/mla.log 2>&1
echo "mla rc $? at $(el)" >> $L
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
cat $L; grep -E "deepseek|copy|GB/s" $OUT/mla.log | cut -c1-600 | head -12
