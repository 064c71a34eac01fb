#!/bin/bash
# Issue 18 call 1 (nvidia-h200): chk cases || fla warm-up, then timings.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
export PYTHONUNBUFFERED=1
D=.lin18/lin
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv >> $OUT/run.log
T0=$(date +%s)
(python3 .lin18/fla_warm.py simple gla > $OUT/warm.log 2>&1; echo "warm done $(( $(date +%s) - T0 )) s" >> $OUT/warm.log) &
WP=$!
BENCH_PEER=0 LINEAR_ONLY='^chk_inorder' python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/chk.json
echo "chk done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
wait $WP
LINEAR_ROUNDS=4 LINEAR_ONLY='^gsimple_bf16_inorder2?_c32_v32(_park)?$|^gsimple_f16_inorder2?_c32_v32$' python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/simple.json
echo "simple done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
BENCH_PEER=0 LINEAR_ROUNDS=2 LINEAR_ONLY='^gsimple_bf16_inorder2_c(16_v32|16_v64|32_v16)$|^gsimple_f16_inorder_c32_v32_park$' python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/extra.json
echo "extra done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
LINEAR_ROUNDS=5 LINEAR_ONLY='^ggla_bf16$|^ggla_f16$|^ggla_bf16_coop1_c64_v64$' python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/gla.json
echo "gla done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
