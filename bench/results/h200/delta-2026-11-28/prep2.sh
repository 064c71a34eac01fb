#!/bin/bash
# Prepares .b-delta/d2 for run2.sh (helper "delta", session 18, call 2):
# the then-committed heuristic (cooperative = 2, SIMT outputs) and, compiled
# with an experiment switch EJK_DELTA_EXPERIMENT=direct (never committed),
# the outputs on matrices reading the state pass's f16 states and new
# values (suffix _direct); with =direct,dv64 the same at V blocks of 64
# (suffix _dv64). The commit that kept the direct outputs (form 2 always
# takes them where their stages fit) emits byte-identical SPIR-V for the
# _direct cases (cmp, gdn_bf16 and chk_coop2_k32_f16), so at that commit
# the _direct cases are the plain ones.
set -e
cd "$(git rev-parse --show-toplevel)"
FP=bench/results/h200/device.fingerprint
rm -rf .b-delta/d2 .b-delta/x_direct .b-delta/x_dv64
CHK='chk_(gdn_f16|gdn_bf16_long|gdn_bf16_k128|gdn_f16_k256|gdn_strong_bf16|coop2_.*|simt_init_f16)'
DELTA_ONLY="^($CHK|gdn_bf16|gdn_f16|gdn_bf16_coop2_c32)\$" \
  python3 bench/vulkan/delta.py prepare .b-delta/d2 $FP
EJK_DELTA_EXPERIMENT=direct DELTA_ONLY="^(chk_(gdn_bf16_long|gdn_bf16_k128|gdn_f16_k256|coop2_.*)|gdn_bf16|gdn_f16|gdn_bf16_coop2_c32|gdn_bf16_coop2_v64)\$" \
  python3 bench/vulkan/delta.py prepare .b-delta/x_direct $FP
EJK_DELTA_EXPERIMENT=direct,dv64 DELTA_ONLY='^(chk_coop2_(f16|long_bf16|init_varlen_f16)|gdn_bf16)$' \
  python3 bench/vulkan/delta.py prepare .b-delta/x_dv64 $FP
python3 - <<'PY'
import json, shutil
d, x = '.b-delta/d2', '.b-delta/x_direct'
c = json.load(open(d + '/cases.json'))
cx = json.load(open(x + '/cases.json'))
for name, spec in cx.items():
    shutil.copytree(f'{x}/art/{name}', f'{d}/art/{name}_direct')
    c[name + '_direct'] = spec
x = '.b-delta/x_dv64'
for name, spec in json.load(open(x + '/cases.json')).items():
    shutil.copytree(f'{x}/art/{name}', f'{d}/art/{name}_dv64')
    c[name + '_dv64'] = spec
order = ['gdn_bf16', 'gdn_bf16_direct', 'gdn_f16', 'gdn_f16_direct',
         'gdn_bf16_coop2_c32', 'gdn_bf16_coop2_c32_direct',
         'gdn_bf16_coop2_v64_direct', 'gdn_bf16_dv64']
new = {k: v for k, v in c.items() if k.startswith('chk')}
new.update({k: c[k] for k in order})
json.dump(new, open(d + '/cases.json', 'w'), indent=1)
print(len(new), 'cases')
PY
c++ -O1 -std=c++17 bench/vulkan/pipeline_stats.cpp -lvulkan -o .b-delta/d2/pipeline_stats
cp bench/vulkan/moe.py .b-delta/d2/
git show HEAD:bench/vulkan/fla_warm.py > .b-delta/fla_warm.py
cp bench/results/h200/delta-2026-11-28/run2.sh .b-delta/run2.sh
# Also in the call (added by hand, not by this script): gdn_bf16_vecA4 and
# chk_coop2_{f16,long_bf16,c32_f16}_vecA4, compiled with vector-a.patch
# applied on top of the direct outputs, the earlier blocks' multiply-adds
# reading A four entries a load at a time (aRow of 4, not of 16), under
# EJK_DELTA_EXPERIMENT=vecA.
