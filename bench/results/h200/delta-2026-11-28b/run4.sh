#!/bin/bash
# Issue 18 delta rule, session 18b call 4 (helper "delta"; prep4.sh says
# what the variants are). While fla's kernels compile (background):
# pipeline statistics, the chk cases, every gdn case ejk-only; then one
# process with ejk and fla in turn for the committed gdn_bf16 and the two
# fastest variants of the ejk-only phase that are not probes.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit
export PYTHONUNBUFFERED=1
LIMIT=${LIMIT:-228}
D=.b-delta/d4; L=$OUT/all.log
(python3 $D/fla_warm.py delta > $OUT/warm.log 2>&1) & W=$!
python3 -c "import sys,json; sys.path.insert(0,'$D'); import moe; names=[n for n in json.load(open('$D/cases.json')) if n.startswith('gdn_bf16')]; print(json.dumps(moe.pipeline_stats('$D', names), indent=1))" > $OUT/stats.json 2>&1
echo "== chk $SECONDS" >> $L
DELTA_ONLY='^chk_' BENCH_PEER=0 timeout 60 python3 $D/delta.py run $D >> $L 2>&1; cp $OUT/delta.json $OUT/d-chk.json
echo "== ejk only $SECONDS" >> $L
DELTA_ONLY='^gdn_bf16' BENCH_PEER=0 timeout 75 python3 $D/delta.py run $D >> $L 2>&1; cp $OUT/delta.json $OUT/d-ejk.json
BEST=$(python3 -c "
import json
d = json.load(open('$OUT/d-ejk.json')); c = json.load(open('$OUT/d-chk.json'))
def ok(n):
    x = n[len('gdn_bf16_'):]
    cs = [v for k, v in c.items() if k.startswith('chk') and k.endswith('_' + x)]
    return cs and all('max_abs_err_vs_recurrence' in v and v['max_abs_err_vs_recurrence'] < 2e-3 for v in cs)
v = sorted((e['ejk_median_ms'], n) for n, e in d.items() if n.startswith('gdn_bf16_') and isinstance(e, dict) and 'ejk_median_ms' in e and 'nocopy' not in n and ok(n))
print('|'.join(n for _, n in v[:2]))")
echo "== best: $BEST" >> $L
echo "== wait warm $SECONDS" >> $L
wait $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv >> $L
echo "== with fla $SECONDS" >> $L
DELTA_ONLY="^(gdn_bf16|$BEST)\$" timeout $((LIMIT - SECONDS)) python3 $D/delta.py run $D >> $L 2>&1; cp $OUT/delta.json $OUT/d-fla.json
echo "== end $SECONDS" >> $L
