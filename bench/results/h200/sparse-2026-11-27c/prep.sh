#!/bin/sh
# here (call 1): the six gfa workloads at the heuristic (base), d128 with two
# row tiles a subgroup at explicit configs (cfg), causal one-tile kernels
# pipelined (pipecausal: EJK_TMP_PIPE_CAUSAL, a temporary switch).
set -eu
. .sp19/lib.sh
W=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
P base $W
X cfg "gfa-d128:128,64,4 gfa-d128:128,32,4 gfa-d128:128,16,4 gfa-d128:256,32,8 gfa-d128:128,32,8" X=1
X pipecausal "gfa-d128-causal:128,64,8 gfa-long-causal:128,64,8" EJK_TMP_PIPE_CAUSAL=1
cp build/bin/ejk-bench-run $D/
