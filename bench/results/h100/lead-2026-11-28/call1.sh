#!/bin/bash
# Lead, session 19: issue 18's and 19's bars with the committed build (main
# at 6d7cbbc; artifacts compiled for bench/vulkan/h100.fingerprint) in one
# call. While fla's kernels compile in the background (simple gla in 8
# shards, the delta rule): the device checks (block-sparse chk cases with
# chk_job_groups_256, simple gla chk_split_*, delta chk_coop2_*). Then, in
# turn: block-sparse 25 % against ejk dense and FlexAttention (3 rounds),
# MLA decode against the copy rate, simple gla bf16 with fla (3 rounds),
# the delta rule bf16 with fla (3 rounds).
# From the repository root with carry [".gl", ".whl", ".b-lead/fin"].
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
export PYTHONUNBUFFERED=1
D=.b-lead/fin; L=$OUT/all.log
T0=$(date +%s); el() { echo $(( $(date +%s) - T0 )); }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv > $OUT/smi.txt
(python3 bench/vulkan/fla_warm.py --shards 8 simple delta > $OUT/warm.log 2>&1; echo "warm done $(el) s" >> $OUT/warm.log) &
W=$!
echo "== checks $(el)" >> $L
mkdir -p /tmp/c1 /tmp/c2 /tmp/c3
OUT=/tmp/c1 SPARSE_ROUNDS=1 SPARSE_CASES='^chk_' timeout 80 python3 $D/sp/sparse.py run $D/sp > /tmp/c1/sp-chk.log 2>&1
echo "sparse chk rc $? at $(el): lines $(grep -c '^chk' /tmp/c1/sp-chk.log), ok $(grep '^chk' /tmp/c1/sp-chk.log | grep -c '"ok": true')" >> $L
grep -E '^chk' /tmp/c1/sp-chk.log | grep -v '"ok": true' | cut -c1-300 >> $L
BENCH_PEER=0 LINEAR_ONLY='^chk_split' timeout 60 python3 $D/lin/linear.py run $D/lin > /tmp/c2/lin-chk.log 2>&1
echo "linear chk rc $? at $(el)" >> $L; cp $D/lin/linear.json $OUT/lin-chk.json
DELTA_ONLY='^chk_' BENCH_PEER=0 timeout 50 python3 $D/dl/delta.py run $D/dl > /tmp/c3/dl-chk.log 2>&1
echo "delta chk rc $? at $(el)" >> $L; cp $D/dl/delta.json $OUT/dl-chk.json
cat /tmp/c1/sp-chk.log /tmp/c2/lin-chk.log /tmp/c3/dl-chk.log > $OUT/checks.log
wait $W
echo "== warm waited $(el)" >> $L
SPARSE_ROUNDS=3 SPARSE_F32=0 SPARSE_CASES='^gsparse_25(_bf16)?$' timeout 70 python3 $D/sp/sparse.py run $D/sp > $OUT/sparse.log 2>&1
echo "sparse rc $? at $(el)" >> $L
grep -E "^bar|^round" $OUT/sparse.log | cut -c1-1500 >> $L
timeout 40 python3 $D/mla/mla.py run $D/mla > $OUT/mla.log 2>&1
echo "mla rc $? at $(el)" >> $L
LINEAR_GROUPS=1 LINEAR_ROUNDS=3 LINEAR_ONLY='^gsimple_bf16$' timeout $(( 220 - $(el) )) python3 $D/lin/linear.py run $D/lin > $OUT/linear.log 2>&1
echo "linear rc $? at $(el)" >> $L
DELTA_ONLY='^gdn_bf16$' timeout $(( 268 - $(el) )) python3 $D/dl/delta.py run $D/dl > $OUT/delta.log 2>&1
echo "delta rc $? at $(el)" >> $L
nvidia-smi --query-gpu=clocks.sm,clocks_throttle_reasons.active --format=csv >> $OUT/smi.txt
tail -n 25 $L
