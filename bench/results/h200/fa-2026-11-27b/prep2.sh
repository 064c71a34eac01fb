#!/bin/sh
# here (issue 21, call 2): the new build's artifacts (pipelined P V, causal
# skip with two row tiles), explicit configs, the same without pipelining,
# and the device checks of both builds.
set -eu
FP=bench/vulkan/h100.fingerprint
W=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
. .fa4/lib.sh
P new $W X=1
X newcfg "gfa-d64:128,64,4 gfa-d64:128,32,4 gfa-d64-causal:128,64,4 gfa-d64-causal:128,32,4 gfa-d64-causal:256,64,8 gfa-d128:128,32,8 gfa-d128-causal:128,32,8 gfa-d128:64,32,4 gfa-long:128,32,8 gfa-long-causal:128,32,8" X=1
X nopipe "gfa-d64:128,64,4 gfa-d64-causal:128,64,4 gfa-d64-causal:128,32,4 gfa-d64-causal:256,64,8" EJK_FA_PIPELINE=0
EJK_CACHE_DIR=$(mktemp -d) sh bench/vulkan/check.sh .fa4/chk2 $FP > .fa4/chk2.log 2>&1
EJK_CACHE_DIR=$(mktemp -d) EJK_FA_PIPELINE=0 sh bench/vulkan/check.sh .fa4/chk3 $FP > .fa4/chk3.log 2>&1
rm -rf .fa4/chk2/check-f32 .fa4/chk2/check-sparse* .fa4/chk3/check-f32 .fa4/chk3/check-sparse* .fa4/chk3/check-stage .fa4/chk3/lib .fa4/chk3/ejk-tune-runner
python3 bench/vulkan/check_shards.py .fa4/chk2 2 check-nv check-nv-bf16 check-stage
python3 bench/vulkan/check_shards.py .fa4/chk3 2 check-nv check-nv-bf16
