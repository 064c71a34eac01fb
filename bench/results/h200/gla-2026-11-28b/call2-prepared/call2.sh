#!/bin/bash
# gla helper, session 19, call 2 (nvidia-h200): pipeline statistics of both
# dispatches of each variant (bf16); the chk_split_* cases of each variant
# while fla's chunk_simple_gla compiles in 8 shards; then simple gla B16
# T16384 H8 D128, bf16 and f16: the committed split form (_E) and the
# scores written over the keys before q S (_K), each at block_v 64 and 128,
# and fla in turn each round (LINEAR_GROUPS=1), 5 rounds, medians.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
export PYTHONUNBUFFERED=1
D=.b-gla/s19/run2
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $OUT/run.log
(python3 $D/fla_warm.py --shards 8 simple > $OUT/warm.log 2>&1; echo "warm done $(( $(date +%s) - T0 )) s" >> $OUT/warm.log) &
WP=$!
for a in $D/art/gsimple_bf16_*; do
  $D/pipeline_stats main_dispatch_0_states 6 $a/kernel_main_dispatch_0_states.spv main_dispatch_0 6 $a/kernel_main_dispatch_0.spv
done 2>&1 | grep -E 'Register|Shared|failed|error' > $OUT/stats.tsv
echo "stats done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
BENCH_PEER=0 LINEAR_ONLY='^chk_split' timeout 100 python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/chk.json
echo "chk done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
wait $WP
echo "warm waited $(( $(date +%s) - T0 )) s" >> $OUT/run.log
LINEAR_GROUPS=1 LINEAR_ROUNDS=5 LINEAR_ONLY='^gsimple_bf16' timeout $(( 175 - ($(date +%s) - T0) )) python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/timed_bf16.json
echo "bf16 done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
LINEAR_GROUPS=1 LINEAR_ROUNDS=5 LINEAR_ONLY='^gsimple_f16' timeout $(( 228 - ($(date +%s) - T0) )) python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/timed_f16.json
echo "f16 done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
