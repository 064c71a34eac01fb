#!/bin/bash
# Issue 18 delta rule, session 17 device call (helper "delta"). While fla's
# kernels compile (fla_warm.py, background): pipeline statistics, the chk
# cases (cooperative = 2's new state pass; the prepare's A as 4-float
# vectors; SIMT with an initial state), every bench case ejk-only (3
# rounds, medians); then one process with ejk and fla in turn (3 rounds,
# medians) for the main cases, fla's pieces after gdn_bf16. Experiments
# compiled with EJK_DELTA_EXPERIMENT (not committed): gdn_bf16_novecA (the
# prepare's scalar A), gdn_bf16_out64 (the SIMT outputs' V block 64).
# LIMIT: the seconds the call may take (default 232).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit
export PYTHONUNBUFFERED=1
LIMIT=${LIMIT:-232}
D=.b-delta/d1; L=$OUT/all.log
(python3 .b-delta/fla_warm.py delta > $OUT/warm.log 2>&1) & W=$!
python3 -c "import sys,json; sys.path.insert(0,'$D'); import moe; print(json.dumps(moe.pipeline_stats('$D', ['gdn_bf16','gdn_bf16_coop2','gdn_bf16_out64','gdn_bf16_coop2_v64']), indent=1))" > $OUT/stats.json 2>&1
echo "== chk $SECONDS" >> $L
DELTA_ONLY='^chk_' BENCH_PEER=0 timeout 70 python3 $D/delta.py run $D >> $L 2>&1; cp $OUT/delta.json $OUT/d-chk.json
echo "== ejk only $SECONDS" >> $L
DELTA_ONLY='^(gdn|kda)_' BENCH_PEER=0 timeout 60 python3 $D/delta.py run $D >> $L 2>&1; cp $OUT/delta.json $OUT/d-ejk.json
echo "== wait warm $SECONDS" >> $L
wait $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv >> $L
echo "== with fla $SECONDS" >> $L
DELTA_ONLY='^(gdn_bf16|gdn_bf16_coop2|gdn_bf16_coop2_c32|gdn_f16_coop2|gdn_f16)$' FLA_PIECES='^gdn_bf16$' timeout $((LIMIT - SECONDS)) python3 $D/delta.py run $D >> $L 2>&1; cp $OUT/delta.json $OUT/d-fla.json
echo "== end $SECONDS" >> $L
