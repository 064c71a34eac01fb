#!/bin/bash
# Issue 18 delta rule, session 18 call 2 (helper "delta"). While fla's
# kernels compile (fla_warm.py, background): pipeline statistics, the chk
# cases (the committed heuristic, cooperative = 2 with SIMT outputs, and
# the _direct experiment: the outputs on matrices reading the state pass's
# f16 states and new values), every bench case ejk-only (3 rounds,
# medians); then one process with ejk and fla in turn (3 rounds, medians).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit
export PYTHONUNBUFFERED=1
LIMIT=${LIMIT:-228}
D=.b-delta/d2; L=$OUT/all.log
(python3 .b-delta/fla_warm.py delta > $OUT/warm.log 2>&1) & W=$!
python3 -c "import sys,json; sys.path.insert(0,'$D'); import moe; print(json.dumps(moe.pipeline_stats('$D', ['gdn_bf16','gdn_bf16_direct','gdn_bf16_vecA4','gdn_bf16_dv64']), indent=1))" > $OUT/stats.json 2>&1
echo "== chk $SECONDS" >> $L
DELTA_ONLY='^chk_' BENCH_PEER=0 timeout 95 python3 $D/delta.py run $D >> $L 2>&1; cp $OUT/delta.json $OUT/d-chk.json
echo "== ejk only $SECONDS" >> $L
DELTA_ONLY='^gdn_' BENCH_PEER=0 timeout 70 python3 $D/delta.py run $D >> $L 2>&1; cp $OUT/delta.json $OUT/d-ejk.json
echo "== wait warm $SECONDS" >> $L
wait $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv >> $L
echo "== with fla $SECONDS" >> $L
DELTA_ONLY='^(gdn_bf16|gdn_bf16_direct|gdn_f16_direct)$' timeout $((LIMIT - SECONDS)) python3 $D/delta.py run $D >> $L 2>&1; cp $OUT/delta.json $OUT/d-fla.json
echo "== end $SECONDS" >> $L
