#!/bin/sh
# here (issue 21, call 1): base heuristic artifacts, profile variants
# (EJK_FA_VARIANT, a temporary switch), explicit configs. The device checks
# were prepared by hand: EJK_FA_VARIANT=interleave,tileskip
# EJK_FA_KV2_MIN_THREADS=64 sh bench/vulkan/check.sh .fa4/chk FP, then
# python3 bench/vulkan/check_shards.py .fa4/chk 2 check-nv check-nv-bf16
# check-stage check-sparse-nv check-sparse-nv-bf16 (then .fa4/shard.py).
set -eu
FP=bench/vulkan/h100.fingerprint
W=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
C="gfa-d128-causal,gfa-d64-causal,gfa-long-causal"
. .fa4/lib.sh   # P (bench/gpu.py prepare) and X (explicit configs)
P base $W
for v in nosoftmax noexp nostage nobarrier nopv; do P prof/$v gfa-d128,gfa-d64 EJK_FA_VARIANT=$v; done
P var/interleave $W EJK_FA_VARIANT=interleave
P var/tileskip $C EJK_FA_VARIANT=tileskip
P var/il-ts $C EJK_FA_VARIANT=interleave,tileskip
X cfg "gfa-d64:128,64,4 gfa-d64:128,32,4 gfa-d64:64,64,2 gfa-d64:128,128,8 gfa-d64:128,128,4 gfa-d64-causal:128,128,8 gfa-d64-causal:256,64,8 gfa-d64-causal:128,64,4 gfa-d64-causal:128,32,4 gfa-d128:64,64,4 gfa-d128:64,32,4 gfa-d128:128,32,8 gfa-d128:64,32,2 gfa-d128-causal:64,64,4 gfa-d128-causal:128,32,8 gfa-long:64,64,4" X=1
X kv2 "gfa-d64:128,64,4 gfa-d64:128,32,4 gfa-d64-causal:128,64,4 gfa-d64-causal:128,32,4 gfa-d128:64,32,4 gfa-d128-causal:64,32,4" EJK_FA_KV2_MIN_THREADS=128
X ts "gfa-d64-causal:256,64,8 gfa-d64-causal:128,128,8 gfa-d64-causal:128,64,4" EJK_FA_VARIANT=tileskip
X ilkv2 "gfa-d64:128,64,4 gfa-d64-causal:128,64,4" EJK_FA_KV2_MIN_THREADS=128 EJK_FA_VARIANT=interleave
