#!/bin/bash
# Prepares call 2 (session 19): the committed split form (E) against the
# outputs writing the scores over the keys before q S
# (EJK_SPLIT_SCORES_FIRST, scores-first.patch) and block_v 128 (the state
# pass's 64-key blocks in one wave of 256 workgroups), and probe copies of
# the committed outputs without the scores' products, q S or A V
# (EJK_SPLIT_PROBE; their outputs are wrong), merged into run2/.
set -e
cd /work/main/.b-gla/s19
FP=/work/main/bench/results/h200/device.fingerprint
L=/work/main/bench/vulkan/linear.py
ONLY='^(chk_split_.*|gsimple_(bf16|f16)_split_c64_v(64|128))$'
rm -rf q_E q_K
EJK_SPLIT_RELAX=1 LINEAR_ONLY="$ONLY" python3 $L prepare q_E $FP | grep -v ' ok$' || true
EJK_SPLIT_RELAX=1 EJK_SPLIT_SCORES_FIRST=1 LINEAR_ONLY="$ONLY" python3 $L prepare q_K $FP | grep -v ' ok$' || true
sets="q_E:_E q_K:_K"
for probe in noscores noqs noav; do
  rm -rf q_$probe
  EJK_SPLIT_PROBE=$probe LINEAR_ONLY='^gsimple_bf16_split_c64_v64$' python3 $L prepare q_$probe $FP | grep -v ' ok$' || true
  sets="$sets q_$probe:_E_$probe"
done
python3 merge.py run2 $sets > /dev/null
cp /work/main/.b-gla/run18/pipeline_stats run2/
cp call2.sh run2/
ls run2/art | wc -l
