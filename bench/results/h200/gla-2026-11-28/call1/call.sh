#!/bin/bash
# gla helper, session 18, call 1 (nvidia-h200): the split form's chk cases
# (ejk only) while fla's chunk_simple_gla compiles in 8 shards; then simple
# gla B16 T16384 H8 D128 with fla interleaved, 5 rounds each: the heuristic
# (in-order form 2) bf16/f16 and the split form (cooperative = 3).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
export PYTHONUNBUFFERED=1
D=.b-gla/s18
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $OUT/run.log
(python3 $D/fla_warm.py --shards 8 simple > $OUT/warm.log 2>&1; echo "warm done $(( $(date +%s) - T0 )) s" >> $OUT/warm.log) &
WP=$!
BENCH_PEER=0 LINEAR_ONLY='^chk_split' python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/chk.json
echo "chk done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
wait $WP
echo "warm waited $(( $(date +%s) - T0 )) s" >> $OUT/run.log
LINEAR_ROUNDS=5 LINEAR_ONLY='^gsimple_' timeout $(( 225 - ($(date +%s) - T0) )) python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/timed.json
echo "timed done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
