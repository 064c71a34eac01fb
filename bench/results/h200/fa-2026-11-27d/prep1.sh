#!/bin/sh
# here (call 1): the six gfa workloads at the heuristic: base (the tree),
# nb (EJK_TMP_NOBOUND: K/V rows loaded without a bound test per row),
# sp (EJK_TMP_SPLIT: V stored before the Q K^T products, K of the next
# block after them, behind a barrier), spnb (both); pc: spnb with causal
# one-tile blocks pipelined (EJK_TMP_PIPE_CAUSAL); explicit configs; bf16
# gfa-d128; the device checks of the spnb build.
set -eu
. .b-fa/lib.sh
W=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
P base $W
P nb $W EJK_TMP_NOBOUND=1
P sp $W EJK_TMP_SPLIT=1
P spnb $W EJK_TMP_SPLIT=1 EJK_TMP_NOBOUND=1
P pc gfa-d128-causal,gfa-long-causal EJK_TMP_SPLIT=1 EJK_TMP_NOBOUND=1 EJK_TMP_PIPE_CAUSAL=1
X cfgnb "gfa-d128:128,32,8 gfa-long:128,32,8" EJK_TMP_NOBOUND=1
X cfgspnb "gfa-d128:64,64,4 gfa-d128-causal:64,64,4" EJK_TMP_SPLIT=1 EJK_TMP_NOBOUND=1
# bf16 gfa-d128 (the f16 IR with bf16 types), tree and spnb
for v in base spnb; do
  d=$D/bf16/$v; mkdir -p $d
  sed 's/xf16>/xbf16>/g' $D/base/gfa-d128/attention.mlir > $d/attention.mlir
  if [ $v = spnb ]; then set -- EJK_TMP_SPLIT=1 EJK_TMP_NOBOUND=1; else set -- X=1; fi
  env "$@" build/bin/ejkc --target=vulkan $d/attention.mlir -o $d/artifact --fingerprint $FP --no-cache >/dev/null 2>$d/err || echo "bf16 $v: $(grep -m1 error $d/err)"
done
cp build/bin/ejk-bench-run $D/
mkdir -p $D/lib; cp build/lib/Runtime/libejk_runtime.so.1 $D/lib/
EJK_CACHE_DIR=$(mktemp -d) EJK_TMP_SPLIT=1 EJK_TMP_NOBOUND=1 sh bench/vulkan/check.sh $D/chk $FP > $D/chk.log 2>&1
rm -rf $D/chk/check-f32 $D/chk/check-sparse* $D/chk/check-stage
/usr/bin/python3 bench/vulkan/check_shards.py $D/chk 4 check-nv=nv check-nv-bf16=nb
du -sh $D
