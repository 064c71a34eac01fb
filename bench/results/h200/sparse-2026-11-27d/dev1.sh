#!/bin/sh
# Device call 1 (issue 19, helper "sparse"): the tree's block-sparse kernel
# against the job-order (EJK_TMP_SPARSE_ORDER) and register-list
# (EJK_TMP_SPARSE_LIST) variants, one process, 2 rounds, with
# FlexAttention; the chk cases compiled with both (o1l); then the device
# checks check-sparse-nv(-bf16) compiled with both, 3 shards each.
set -u
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $OUT/smi.txt
s=$(date +%s)
SPARSE_ROUNDS=2 SPARSE_F32=0 SPARSE_CASES='chk_.*@o1l|gsparse_(10|25|50|100)(@(o1|l|o1l))?|gsparse_25@(oall|o2|o256|oid)|gsparse_25_(bf16|causal)(@o1l)?' timeout 150 python3 .b-sparse/sp/sparse.py run .b-sparse/sp > $OUT/sparse.log 2>&1
echo "sparse rc $? $(( $(date +%s) - s ))s"
cp .b-sparse/sp/sparse.json $OUT/ 2>/dev/null
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
s=$(date +%s)
export LD_LIBRARY_PATH=$PWD/.b-sparse/chk/lib
for c in sn-s0 sn-s1 sn-s2 sb-s0 sb-s1 sb-s2; do
  timeout 60 .b-sparse/chk/ejk-tune-runner .b-sparse/chk/$c --runs 1 --force --out /tmp/$c.json > /tmp/chk-$c.log 2>&1 &
done
wait
echo "checks took $(( $(date +%s) - s ))s"
for c in sn sb; do
  cat /tmp/chk-$c-s*.log > /tmp/check-$c.log
  echo "$c: $(grep -c '^ejk\.' /tmp/check-$c.log) tables, $(grep -cE ': ok ' /tmp/check-$c.log) ok, $(grep -ciE 'wrong' /tmp/check-$c.log) wrong-lines, $(grep -ciE ': failed' /tmp/check-$c.log) failed, $(grep -c 'wrote ' /tmp/check-$c.log) shards done" | tee -a $OUT/checks.txt
done
cat /tmp/check-*.log > $OUT/checks.log
grep -E "checks_ok|^bar" $OUT/sparse.log | cut -c1-300
grep -E "^chk" $OUT/sparse.log | grep -v '"ok": true' | cut -c1-200
grep -E "^round" $OUT/sparse.log | cut -c1-2500
