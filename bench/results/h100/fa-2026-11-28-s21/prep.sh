#!/bin/sh
# Session 21 (issue 21, helper fa), here: artifacts of the tree (bin-var
# without switches = base) and the variants: MID (the key loop's second
# barrier right after the block's last shared-memory reads, the next block
# stored there, then the softmax; the prefetch no longer loop-carried), QG
# (Q's A matrices loaded straight from the buffer, no Q staging, one
# prologue barrier fewer; the probe read after the loop where pipelined),
# NT (the K/V loads Nontemporal), UNROLL (the key loop two blocks an
# iteration, then the odd one, as block-sparse lists'), and combinations.
set -eu
cd /work/main
. .b-fa/s21/lib.sh
W6=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
rm -rf $D/dev/v; mkdir -p $D/dev/v
BB=var P dev/v/base $W6
BB=start P dev/v/start $W6
for v in "mid2 EJK_TMP_MID=2" "m2q EJK_TMP_MID=2 EJK_TMP_QG=1" "mid EJK_TMP_MID=1" "nt EJK_TMP_NT=1" "u2 EJK_TMP_UNROLL=1" "mqn EJK_TMP_MID=1 EJK_TMP_QG=1 EJK_TMP_NT=1" "mqu EJK_TMP_MID=1 EJK_TMP_QG=1 EJK_TMP_UNROLL=1" "qg EJK_TMP_QG=1" "mq EJK_TMP_MID=1 EJK_TMP_QG=1"; do
  set -- $v; n=$1; shift
  BB=var P dev/v/$n $W6 "$@"
done
for n in start mid mid2 qg mq m2q nt u2 mqn mqu; do
  ch=""; for w in gfa-d128 gfa-d128-causal gfa-d64 gfa-d64-causal gfa-long gfa-long-causal; do
    cmp -s $D/dev/v/$n/$w/artifact/attention_attention_dispatch_0.spv $D/dev/v/base/$w/artifact/attention_attention_dispatch_0.spv || ch="$ch $w"
  done; echo "$n changes:$ch"
done
