#!/bin/bash
# Prepares .b-delta/d3 for run3.sh (helper "delta", session 18b, call 3).
# Variants (suffixes), compiled here for the H200 fingerprint:
#   _base   the committed heuristic before this session's changes: the
#           artifacts of call 2's gdn_*_direct (.b-delta/d2; commit 0ab3702
#           recorded their SPIR-V byte-identical to the commit of then)
#   _regp   registers-prepared.patch (state pass: f16 states/new values
#           copied out of the shared stages after each barrier; outputs:
#           q and k staged a quarter of the rows at a time)
#   _words  _regp plus the outputs in 16-byte words (DeltaWordOutputs.cpp,
#           EJK_DELTA_EXPERIMENT=words; the state pass writes S transposed)
#   probes  (outputs wrong by design) EJK_DELTA_PROBE on _words: noqs (no
#           q S), noscores (no q k^T, no P), nopn (no P N, so no scores
#           or N either), nonorm (no norm shuffles); on _regp: nonorms (no
#           row-norm pass), noqs.
set -e
cd "$(git rev-parse --show-toplevel)"
FP=bench/results/h200/device.fingerprint
D=.b-delta/d3
rm -rf $D .b-delta/x_*
GDN='gdn_bf16|gdn_f16'
C2='chk_coop2_[a-z0-9_]*'
DELTA_ONLY="^($GDN|chk_coop2_(long_bf16|c32_f16|init_varlen_f16|k32_f16|strong_bf16|f16))\$" \
  python3 bench/vulkan/delta.py prepare .b-delta/x_regp $FP
EJK_DELTA_EXPERIMENT=words DELTA_ONLY="^($GDN|$C2)\$" \
  python3 bench/vulkan/delta.py prepare .b-delta/x_words $FP
for pr in noqs noscores nopn nonorm; do
  EJK_DELTA_EXPERIMENT=words EJK_DELTA_PROBE=$pr DELTA_ONLY='^gdn_bf16$' \
    python3 bench/vulkan/delta.py prepare .b-delta/x_w$pr $FP
done
for pr in nonorms noqs; do
  EJK_DELTA_PROBE=$pr DELTA_ONLY='^gdn_bf16$' \
    python3 bench/vulkan/delta.py prepare .b-delta/x_r$pr $FP
done
mkdir -p $D/art
cp -r .b-delta/x_regp/lib .b-delta/x_regp/*.py $D/
python3 - <<'PY'
import json, shutil
D = '.b-delta/d3'
old = json.load(open('.b-delta/d2/cases.json'))
c = {}
def add(src, name, new):
    shutil.copytree(f'{src}/art/{name}', f'{D}/art/{new}')
    spec = json.load(open(f'{src}/cases.json'))[name] if src != '.b-delta/d2' else old[name]
    c[new] = spec
for n, s in json.load(open('.b-delta/x_words/cases.json')).items():
    if n.startswith('chk'):
        add('.b-delta/x_words', n, n + '_words')
for n, s in json.load(open('.b-delta/x_regp/cases.json')).items():
    if n.startswith('chk'):
        add('.b-delta/x_regp', n, n + '_regp')
add('.b-delta/d2', 'gdn_bf16_direct', 'gdn_bf16_base')
add('.b-delta/d2', 'gdn_f16_direct', 'gdn_f16_base')
for n in ('gdn_bf16', 'gdn_f16'):
    add('.b-delta/x_regp', n, n + '_regp')
    add('.b-delta/x_words', n, n + '_words')
for pr in ('noqs', 'noscores', 'nopn', 'nonorm'):
    add(f'.b-delta/x_w{pr}', 'gdn_bf16', f'gdn_bf16_words_{pr}')
for pr in ('nonorms', 'noqs'):
    add(f'.b-delta/x_r{pr}', 'gdn_bf16', f'gdn_bf16_regp_{pr}')
json.dump(c, open(D + '/cases.json', 'w'), indent=1)
print(len(c), 'cases:', ' '.join(c))
PY
c++ -O1 -std=c++17 bench/vulkan/pipeline_stats.cpp -lvulkan -o $D/pipeline_stats
cp bench/vulkan/moe.py $D/
cp .b-delta/fla_warm.py $D/
cp bench/results/h200/delta-2026-11-28b/run3.sh $D/
du -sb --apparent-size $D
