#!/bin/bash
# Issue 18 delta rule, session 18b call 3 (helper "delta"; prep3.sh says
# what the variants are). While fla's kernels compile (fla_warm.py, in the
# background): pipeline statistics, the chk cases of _words and _regp, the
# probes and the f16 variants ejk-only; then one process with ejk and fla
# in turn (3 rounds, medians) for the bf16 base/regp/words and f16 words,
# fla's pieces after gdn_bf16_words.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit
export PYTHONUNBUFFERED=1
LIMIT=${LIMIT:-228}
D=.b-delta/d3; L=$OUT/all.log
(python3 $D/fla_warm.py delta > $OUT/warm.log 2>&1) & W=$!
python3 -c "import sys,json; sys.path.insert(0,'$D'); import moe; print(json.dumps(moe.pipeline_stats('$D', ['gdn_bf16_base','gdn_bf16_regp','gdn_bf16_words','gdn_f16_words','gdn_bf16_words_noqs','gdn_bf16_regp_nonorms']), indent=1))" > $OUT/stats.json 2>&1
echo "== chk $SECONDS" >> $L
DELTA_ONLY='^chk_' BENCH_PEER=0 timeout 55 python3 $D/delta.py run $D >> $L 2>&1; cp $OUT/delta.json $OUT/d-chk.json
echo "== ejk only $SECONDS" >> $L
DELTA_ONLY='^(gdn_bf16_words|gdn_f16_base|gdn_f16_regp|gdn_bf16_words_.*|gdn_bf16_regp_.*)$' BENCH_PEER=0 timeout 80 python3 $D/delta.py run $D >> $L 2>&1; cp $OUT/delta.json $OUT/d-ejk.json
echo "== wait warm $SECONDS" >> $L
wait $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv >> $L
echo "== with fla $SECONDS" >> $L
DELTA_ONLY='^(gdn_bf16_base|gdn_bf16_regp|gdn_bf16_words|gdn_f16_words)$' FLA_PIECES='^gdn_bf16_words$' timeout $((LIMIT - SECONDS)) python3 $D/delta.py run $D >> $L 2>&1; cp $OUT/delta.json $OUT/d-fla.json
echo "== end $SECONDS" >> $L
