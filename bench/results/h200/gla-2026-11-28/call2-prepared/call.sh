#!/bin/bash
# gla helper, session 18, call 2 (nvidia-h200): pipeline statistics of the
# split kernels (v3 = the tree committed after this call, v2) and of the
# in-order heuristic; the chk cases of v3 (and four of v2) while fla's
# chunk_simple_gla compiles in 8 shards; simple gla B16 T16384 H8 D128 with
# fla interleaved, 5 rounds each: the heuristic (in-order form 2) bf16/f16,
# the split form (v3, v2; block_v 64 and 32); then ejk only, 3 rounds: v3
# against copies of its outputs kernel without the scores, q S or A V
# (split-probe.patch, EJK_SPLIT_PROBE; their outputs are wrong).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
export PYTHONUNBUFFERED=1
D=.b-gla/run18
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv > $OUT/run.log
(python3 $D/fla_warm.py --shards 8 simple > $OUT/warm.log 2>&1; echo "warm done $(( $(date +%s) - T0 )) s" >> $OUT/warm.log) &
WP=$!
A=$D/art
for v in gsimple_bf16_split_c64_v64 gsimple_bf16_split_c64_v64_v2; do
  $D/pipeline_stats main_dispatch_0_states 6 $A/$v/kernel_main_dispatch_0_states.spv main_dispatch_0 6 $A/$v/kernel_main_dispatch_0.spv
done > $OUT/stats.tsv 2>&1
$D/pipeline_stats main_dispatch_0 5 $A/gsimple_bf16/kernel_main_dispatch_0.spv >> $OUT/stats.tsv 2>&1
BENCH_PEER=0 LINEAR_ONLY='^chk_split' python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/chk.json
echo "chk done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
wait $WP
echo "warm waited $(( $(date +%s) - T0 )) s" >> $OUT/run.log
LINEAR_ROUNDS=5 LINEAR_ONLY='^gsimple_(bf16|f16)$|^gsimple_bf16_split_c64_v64(_v2)?$|^gsimple_f16_split_c64_v64$|^gsimple_bf16_split_c64_v32$' timeout $(( 180 - ($(date +%s) - T0) )) python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/timed.json
echo "timed done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
BENCH_PEER=0 LINEAR_ROUNDS=3 LINEAR_ONLY='^gsimple_bf16_split_c64_v64(_no.*)?$' timeout $(( 220 - ($(date +%s) - T0) )) python3 $D/linear.py run $D >> $OUT/run.log 2>&1
cp $D/linear.json $OUT/probes.json
echo "probes done $(( $(date +%s) - T0 )) s" >> $OUT/run.log
