#!/bin/bash
# Prepares the bench directory .b-delta/d1 for run1.sh (helper "delta",
# session 17; never run: the session's device time was spent before the
# call). With coop-state-vector-a.patch applied and built, and
# experiment-knobs.patch applied on top for the A/B variants (then
# rebuilt; revert it afterwards: `git apply -R`).
set -e
cd "$(git rev-parse --show-toplevel)"
FP=bench/results/h200/device.fingerprint
rm -rf .b-delta/d1 .b-delta/x_*
DELTA_ONLY='^(chk_(gdn|kda|coop2|simt)_.*|chk_gdn_bf16_long|gdn_bf16|gdn_bf16_coop2|gdn_bf16_coop2_c32|gdn_bf16_coop2_v64|gdn_f16_coop2|gdn_f16|kda_bf16)$' \
  python3 bench/vulkan/delta.py prepare .b-delta/d1 $FP
for x in novecA out64; do
  EJK_DELTA_EXPERIMENT=$x DELTA_ONLY='^gdn_bf16$' \
    python3 bench/vulkan/delta.py prepare .b-delta/x_$x $FP > /dev/null
  cp -r .b-delta/x_$x/art/gdn_bf16 .b-delta/d1/art/gdn_bf16_$x
done
python3 - <<'PY'
import json
p = '.b-delta/d1/cases.json'
c = json.load(open(p))
c['gdn_bf16_novecA'] = c['gdn_bf16_out64'] = c['gdn_bf16']
order = ['gdn_bf16', 'gdn_bf16_coop2', 'gdn_bf16_coop2_c32',
         'gdn_bf16_coop2_v64', 'gdn_bf16_novecA', 'gdn_f16_coop2', 'gdn_f16',
         'gdn_bf16_out64', 'kda_bf16']
new = {k: v for k, v in c.items() if k.startswith('chk')}
new.update({k: c[k] for k in order})
json.dump(new, open(p, 'w'), indent=1)
PY
c++ -O1 -std=c++17 bench/vulkan/pipeline_stats.cpp -lvulkan -o .b-delta/d1/pipeline_stats
cp bench/vulkan/moe.py .b-delta/d1/
git show HEAD:bench/vulkan/fla_warm.py > .b-delta/fla_warm.py
cp bench/results/h200/delta-session17/run1.sh .b-delta/run1.sh
# Then: device run `bash .b-delta/run1.sh`, kind nvidia-h200, timeout 240,
# carry [".gl", ".whl", ".b-delta"].
