#!/bin/bash
# Issue 18 delta rule, device call 2 (2026-11-27): v1 = .delta18 (padded key
# tiles, vector stages of W and Kd), v2 = .delta18b (+ the next chunk's W
# loaded during the update), v3 = .delta18c (+ the outputs' next key tile
# loaded during the products). Same process per dir: ejk and fla in turn.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit
L=$OUT/all.log
(python3 bench/vulkan/fla_warm.py delta > $OUT/warm.log 2>&1) & W=$!
python3 -c "import sys,json; sys.path.insert(0,'bench/vulkan'); import moe; print(json.dumps({d: moe.pipeline_stats(d, ['gdn_bf16']) for d in ['.delta18','.delta18b','.delta18c']}, indent=1))" > $OUT/stats.json 2>&1
echo "== chk v3" >> $L
DELTA_ONLY='^chk_(gdn|kda)' timeout 60 python3 .delta18c/delta.py run .delta18c >> $L 2>&1; cp $OUT/delta.json $OUT/d-chk.json
wait $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv >> $L
echo "== v3" >> $L
DELTA_ONLY='^(gdn_bf16|gdn_f16|gdn_bf16_c32_v32)$' timeout 70 python3 .delta18c/delta.py run .delta18c >> $L 2>&1; cp $OUT/delta.json $OUT/d-v3.json
echo "== v2" >> $L
DELTA_ONLY='^gdn_bf16$' timeout 35 python3 .delta18b/delta.py run .delta18b >> $L 2>&1; cp $OUT/delta.json $OUT/d-v2.json
echo "== v1" >> $L
DELTA_ONLY='^gdn_bf16$' timeout 35 python3 .delta18/delta.py run .delta18 >> $L 2>&1; cp $OUT/delta.json $OUT/d-v1.json
echo "== kda v3" >> $L
DELTA_ONLY='^kda_bf16$' python3 .delta18c/delta.py run .delta18c >> $L 2>&1
