#!/bin/sh
# Session 20 (issue 21, helper fa), here: artifacts of the tree (bin-split =
# 0096e37) and of the variants behind temporary switches (bin-var, this
# session's call1-variants.patch): ROWLAZY (lazy rescale verdict per row;
# the subgroup vote only gates O's multiply), TREE (row max as a pairwise
# tree, two partial sums a row), PVFIRST (the previous block's P V before
# this block's Q K^T), VLATE=1|2|3 (V of the block loaded after Q K^T /
# after P V / after the softmax instead of with K at the top), ONEBUF
# (one K/V buffer at any size), profile-only NOEXP (no exp2) and NOSM (no
# softmax), and FTZ (the SPIR-V patched with DenormFlushToZero 32).
set -eu
cd /work/main
. .b-fa/s20/lib.sh
W6=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
rm -rf $D/v; mkdir -p $D/v
BB=split P v/base $W6
for v in "rowlazy EJK_TMP_ROWLAZY=1" "tree EJK_TMP_TREE=1" "rt EJK_TMP_ROWLAZY=1 EJK_TMP_TREE=1" \
         "pvf EJK_TMP_PVFIRST=1" "rtp EJK_TMP_ROWLAZY=1 EJK_TMP_TREE=1 EJK_TMP_PVFIRST=1" \
         "vl1 EJK_TMP_VLATE=1" "vl2 EJK_TMP_VLATE=2" "vl3 EJK_TMP_VLATE=3" \
         "rtv1 EJK_TMP_ROWLAZY=1 EJK_TMP_TREE=1 EJK_TMP_VLATE=1" \
         "rtv3 EJK_TMP_ROWLAZY=1 EJK_TMP_TREE=1 EJK_TMP_VLATE=3" \
         "noexp EJK_TMP_NOEXP=1" "nosm EJK_TMP_NOSM=1"; do
  set -- $v; n=$1; shift
  BB=var P v/$n $W6 "$@"
done
sh $D/ftz.sh $D/v/base $D/v/ftz >/dev/null 2>&1
sh $D/ftz.sh $D/v/rt $D/v/ftzrt >/dev/null 2>&1
BB=var X v/cfg "gfa-d128:128,32,8 gfa-long:128,32,8" EJK_TMP_ONEBUF=1
BB=var X v/cfgrt "gfa-d128:128,32,8 gfa-long:128,32,8" EJK_TMP_ONEBUF=1 EJK_TMP_ROWLAZY=1 EJK_TMP_TREE=1
# the variant binary without switches = the tree
for w in gfa-d128 gfa-d128-causal gfa-d64 gfa-d64-causal gfa-long gfa-long-causal; do
  BB=var P v/same $w
  cmp $D/v/same/$w/artifact/attention_attention_dispatch_0.spv $D/v/base/$w/artifact/attention_attention_dispatch_0.spv || echo "SWITCHLESS DIFFERS $w"
done
rm -rf $D/v/same
# which SPIR-V each variant changes
for n in rowlazy tree rt pvf rtp vl1 vl2 vl3 rtv1 rtv3; do
  ch=""; for w in gfa-d128 gfa-d128-causal gfa-d64 gfa-d64-causal gfa-long gfa-long-causal; do
    cmp -s $D/v/$n/$w/artifact/attention_attention_dispatch_0.spv $D/v/base/$w/artifact/attention_attention_dispatch_0.spv || ch="$ch $w"
  done; echo "$n changes:$ch"
done
