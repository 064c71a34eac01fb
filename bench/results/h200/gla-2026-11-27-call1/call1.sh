#!/bin/bash
# gla helper, call 1 (nvidia-h200): chk cases of the changed kernels while
# fla's chunk_gla compiles in 12 shards; then gla (committed heuristic vs
# the batched SIMT update) with fla interleaved, 5 rounds; then simple gla
# form 2 vs form 2 with the states through the q stage, ejk only.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
export PYTHONUNBUFFERED=1
D=.b-gla/run
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $OUT/run.log
(python3 $D/fla_warm.py --shards 12 gla > $OUT/warm.log 2>&1; echo "warm done $(( $(date +%s) - T0 )) s" >> $OUT/warm.log) &
WP=$!
BENCH_PEER=0 LINEAR_ONLY='^chk' python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/chk.json
echo "chk done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
wait $WP
echo "warm waited $(( $(date +%s) - T0 )) s" >> $OUT/run.log
LINEAR_ROUNDS=5 LINEAR_ONLY='^ggla_' python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/gla.json
echo "gla done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
BENCH_PEER=0 LINEAR_ROUNDS=3 LINEAR_ONLY='^gsimple_' python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/simple.json
echo "simple done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
