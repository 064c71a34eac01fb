#!/bin/bash
# Prepares .b-delta/d4 for run4.sh (helper "delta", session 18b, call 4),
# with experiment-4.patch applied (EJK_DELTA_EXPERIMENT switches, never
# committed). Variants of the heuristic's gdn_bf16 (suffixes):
#   (none)     the committed kernels (74184b3: outputs in words; from
#              .b-delta/d3's gdn_*_words)
#   _wpre      the outputs issue S^T's 8 matrix loads with the q/k/N words,
#              before the norms and the stage (S's wait under the staging)
#   _wv64      the outputs at V blocks of 64 (2 O tiles a subgroup: fewer
#              registers; q and k staged twice)
#   _stnopf    the state pass without the next chunk's loads carried
#              through the loop (W, U, Kd loaded at the chunk's start:
#              fewer registers, two workgroups an SM if under 128)
#   _stlate    same, Kd loaded once W S is done
#   _stnocopy  probe: the state pass without its f16 copies (wrong)
#   _wpre_stnopf, _wpre_stlate  combinations
set -e
cd "$(git rev-parse --show-toplevel)"
FP=bench/results/h200/device.fingerprint
D=.b-delta/d4
rm -rf $D .b-delta/y_* .b-delta/z_*
C2='chk_coop2_(long_bf16|c32_f16|k32_f16|strong_bf16|init_varlen_f16|none_f16|v64_bf16|long_v16_bf16|init_f16)'
for x in wpre wv64 stnopf stlate stnocopy wpre,stnopf wpre,stlate; do
  only='^gdn_bf16$'
  case $x in stnocopy) ;; *) only="^(gdn_bf16|$C2)\$";; esac
  EJK_DELTA_EXPERIMENT=$x DELTA_ONLY="$only" \
    python3 bench/vulkan/delta.py prepare .b-delta/y_${x/,/_} $FP
done
mkdir -p $D/art
cp -r .b-delta/d3/lib .b-delta/d3/*.py $D/
python3 - <<'PY'
import json, shutil, glob, os
D = '.b-delta/d4'
c = {}
def add(src, name, new):
    shutil.copytree(f'{src}/art/{name}', f'{D}/art/{new}')
    c[new] = json.load(open(f'{src}/cases.json'))[name]
for src in sorted(glob.glob('.b-delta/y_*')):
    x = src.split('y_', 1)[1]
    for n in json.load(open(src + '/cases.json')):
        if n.startswith('chk'):
            add(src, n, f'{n}_{x}')
add('.b-delta/d3', 'gdn_bf16_words', 'gdn_bf16')
add('.b-delta/d3', 'gdn_f16_words', 'gdn_f16')
for src in sorted(glob.glob('.b-delta/y_*')):
    x = src.split('y_', 1)[1]
    add(src, 'gdn_bf16', f'gdn_bf16_{x}')
# The chk cases timed: 4 a variant (long_bf16, c32_f16, init_varlen_f16,
# strong_bf16) plus k32_f16 for the outputs' and v64_bf16 for the state
# pass's, 2 a combination (long_bf16, init_varlen_f16).
import re
extra = {'wpre': 'k32_f16', 'wv64': 'k32_f16', 'stnopf': 'v64_bf16',
         'stlate': 'v64_bf16'}
for n in list(c):
    m = re.match(r'chk_coop2_(.*?)_(wpre_stnopf|wpre_stlate|wpre|wv64|stnopf|stlate)$', n)
    if not m:
        continue
    case, x = m.groups()
    if x.startswith('wpre_'):
        keep = case in ('long_bf16', 'init_varlen_f16')
    else:
        keep = case in ('long_bf16', 'c32_f16', 'init_varlen_f16',
                        'strong_bf16', extra[x])
    if not keep:
        shutil.rmtree(f'{D}/art/{n}')
        del c[n]
json.dump(c, open(D + '/cases.json', 'w'), indent=1)
print(len(c), 'cases:', ' '.join(c))
PY
# K = 256 at chunks of 32 (words over all 32 lanes a row), the committed
# kernels (no switch; .b-delta/d4 holds it compiled at 431e486 without the
# patch, whose reordered outputs code emits other SPIR-V for the same
# kernel).
rm -rf .b-delta/y_k256
DELTA_ONLY='^chk_coop2_k256_c32_f16$' \
  python3 bench/vulkan/delta.py prepare .b-delta/z_k256 $FP
python3 - <<'PY'
import json, shutil
D = '.b-delta/d4'
c = json.load(open(D + '/cases.json'))
n = 'chk_coop2_k256_c32_f16'
shutil.copytree(f'.b-delta/z_k256/art/{n}', f'{D}/art/{n}')
new = {n: json.load(open('.b-delta/z_k256/cases.json'))[n]}
new.update(c)
json.dump(new, open(D + '/cases.json', 'w'), indent=1)
PY
cp .b-delta/d3/pipeline_stats .b-delta/d3/moe.py .b-delta/d3/fla_warm.py $D/
cp bench/results/h200/delta-2026-11-28b/run4.sh $D/
du -sb --apparent-size $D
