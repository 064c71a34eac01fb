#!/bin/sh
# here: compiles gfa workloads at explicit configs: prep.sh SRC OUT "wl:bq,bk,sg ..."
set -eu
src=$1; out=$2; list=$3
fp=bench/vulkan/h100.fingerprint
for item in $list; do
  wl=${item%%:*}; cfg=${item#*:}
  bq=$(echo $cfg | cut -d, -f1); bk=$(echo $cfg | cut -d, -f2); sg=$(echo $cfg | cut -d, -f3)
  d=$out/$wl/$bq-$bk-$sg; mkdir -p $d
  c="config = #ejk.config<block_q = $bq, block_k = $bk, num_subgroups = $sg>"
  if grep -q "{causal}" $src/$wl/attention.mlir; then
    sed "s/{causal}/{causal, $c}/" $src/$wl/attention.mlir
  else
    sed "s/ejk.flash_attention %q, %k, %v /ejk.flash_attention %q, %k, %v {$c} /" $src/$wl/attention.mlir
  fi > $d/attention.mlir
  build/bin/ejkc --target=vulkan $d/attention.mlir -o $d/artifact --fingerprint "$fp" --no-cache >/dev/null 2>$d/err || echo "$wl $cfg: $(grep -m1 error $d/err)"
done
