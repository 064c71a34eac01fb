#!/bin/sh
# here (issue 21, call 1): base heuristic artifacts, profile variants
# (EJK_FA_VARIANT, a temporary switch), explicit configs, device checks.
set -eu
FP=bench/vulkan/h100.fingerprint
W=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
C="gfa-d128-causal,gfa-d64-causal,gfa-long-causal"
P() { # OUT WORKLOADS [VAR=VALUE ...]
  out=$1; wl=$2; shift 2
  env EJK_CACHE_DIR=$(mktemp -d) "$@" bench/.venv/bin/python3 bench/gpu.py prepare --build build --out .fa4/$out --workloads $wl --fingerprint $FP >/dev/null 2>.fa4/err.log || { echo "FAILED $out"; cat .fa4/err.log; }
}
X() { # OUT "wl:bq,bk,sg ..." [VAR=VALUE ...]
  out=$1; list=$2; shift 2
  for item in $list; do
    wl=${item%%:*}; cfg=${item#*:}
    bq=$(echo $cfg | cut -d, -f1); bk=$(echo $cfg | cut -d, -f2); sg=$(echo $cfg | cut -d, -f3)
    d=.fa4/$out/$wl/$bq-$bk-$sg; mkdir -p $d
    c="config = #ejk.config<block_q = $bq, block_k = $bk, num_subgroups = $sg>"
    if grep -q "{causal}" .fa4/base/$wl/attention.mlir; then
      sed "s/{causal}/{causal, $c}/" .fa4/base/$wl/attention.mlir
    else
      sed "s/ejk.flash_attention %q, %k, %v /ejk.flash_attention %q, %k, %v {$c} /" .fa4/base/$wl/attention.mlir
    fi > $d/attention.mlir
    env "$@" build/bin/ejkc --target=vulkan $d/attention.mlir -o $d/artifact --fingerprint $FP --no-cache >/dev/null 2>$d/err || echo "$out $wl $cfg: $(grep -m1 error $d/err)"
  done
}
P base $W
for v in nosoftmax noexp nostage nobarrier nopv; do P prof/$v gfa-d128,gfa-d64 EJK_FA_VARIANT=$v; done
P var/interleave $W EJK_FA_VARIANT=interleave
P var/tileskip $C EJK_FA_VARIANT=tileskip
P var/il-ts $C EJK_FA_VARIANT=interleave,tileskip
X cfg "gfa-d64:128,64,4 gfa-d64:128,32,4 gfa-d64:64,64,2 gfa-d64:128,128,8 gfa-d64:128,128,4 gfa-d64-causal:128,128,8 gfa-d64-causal:256,64,8 gfa-d64-causal:128,64,4 gfa-d64-causal:128,32,4 gfa-d128:64,64,4 gfa-d128:64,32,4 gfa-d128:128,32,8 gfa-d128:64,32,2 gfa-d128-causal:64,64,4 gfa-d128-causal:128,32,8 gfa-long:64,64,4" X=1
X kv2 "gfa-d64:128,64,4 gfa-d64:128,32,4 gfa-d64-causal:128,64,4 gfa-d64-causal:128,32,4 gfa-d128:64,32,4 gfa-d128-causal:64,32,4" EJK_FA_KV2_MIN_THREADS=128
X ts "gfa-d64-causal:256,64,8 gfa-d64-causal:128,128,8 gfa-d64-causal:128,64,4" EJK_FA_VARIANT=tileskip
X ilkv2 "gfa-d64:128,64,4 gfa-d64-causal:128,64,4" EJK_FA_KV2_MIN_THREADS=128 EJK_FA_VARIANT=interleave
