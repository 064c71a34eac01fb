#!/bin/bash
# Prepares the variant sets of call 1 (session 19) and merges them into run1/.
set -e
cd /work/main/.b-gla/s19
FP=/work/main/bench/results/h200/device.fingerprint
L=/work/main/bench/vulkan/linear.py
ONLY='^(chk_split_.*|gsimple_(bf16|f16)_split_c64_v64)$'
declare -A V=( [A]="" [B]="late,nocarry" [C]="ov64,bk64" [D]="ov64,late,bk64,nocarry" [E]="kst,bk64,t128" [F]="kst,late,bk64,t128,nocarry" [G]="kst,ov64,t128" [H]="kst,ov64,late,t128,nocarry" )
sets=""
for k in A B C D E F G H; do
  rm -rf p_$k
  EJK_SPLIT_VARIANT="${V[$k]}" LINEAR_ONLY="$ONLY" python3 $L prepare p_$k $FP | grep -v ' ok$' | cut -c1-160 || true
  sets="$sets p_$k:_$k"
done
for k in I:bk64 J:bk64,t128; do
  rm -rf p_${k%%:*}
  EJK_SPLIT_VARIANT="${k#*:}" LINEAR_ONLY='^gsimple_(bf16|f16)_split_c64_v32$' python3 $L prepare p_${k%%:*} $FP | grep -v ' ok$' || true
  sets="$sets p_${k%%:*}:_${k%%:*}"
done
python3 merge.py run1 $sets > /dev/null
cp /work/main/.b-gla/run18/pipeline_stats run1/
ls run1/art | wc -l
