#!/bin/bash
# gla helper, call 2 (nvidia-h200): fla's chunk_gla and chunk_simple_gla
# compiled in 8 shards each while the chk cases of the whole-chunk gate
# pass run; then, in one process with fla interleaved, 5 rounds each:
# simple gla's heuristic (form 2, states through q) bf16/f16, gla's
# heuristic bf16 (committed), with the whole-chunk gate pass, form 2
# (cooperative update, its per-step key stage now batched), f16.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
export PYTHONUNBUFFERED=1
D=.b-gla/run2
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $OUT/run.log
(python3 $D/fla_warm.py --shards 8 gla simple > $OUT/warm.log 2>&1; echo "warm done $(( $(date +%s) - T0 )) s" >> $OUT/warm.log) &
WP=$!
BENCH_PEER=0 LINEAR_ONLY='^chk' python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/chk.json
echo "chk done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
wait $WP
echo "warm waited $(( $(date +%s) - T0 )) s" >> $OUT/run.log
LINEAR_ROUNDS=5 LINEAR_ONLY='^gsimple_|^ggla_' python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/timed.json
echo "timed done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
