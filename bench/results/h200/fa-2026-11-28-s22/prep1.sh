#!/bin/sh
# Session 22 (issue 21, helper fa), call 1's artifacts (H200 fingerprint):
# the tree (bin-var without switches = base) and the profile switches
# (temporary, outputs wrong): EMPTY (no key block: lo = hi), NOQ (no Q
# loads or stores: Q tiles from whatever the stage holds), NOOUT (no output
# stage or stores: one element of each O tile kept alive), NOFIRST (the
# first key block's loads replaced by zeros), NOLAST (no last P V); seq_k
# 64..1024 at gfa-d128's grid.
set -eu
cd /work/main
. .b-fa/s22/lib.sh
V=dev1/v
rm -rf $D/$V; mkdir -p $D/$V
W6=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
P $V/base $W6
for v in "empty EJK_TMP_EMPTY=1" "noq EJK_TMP_NOQ=1" "noout EJK_TMP_NOOUT=1" "nofirst EJK_TMP_NOFIRST=1" "nolast EJK_TMP_NOLAST=1" \
         "eq EJK_TMP_EMPTY=1 EJK_TMP_NOQ=1" "eo EJK_TMP_EMPTY=1 EJK_TMP_NOOUT=1" "ef EJK_TMP_EMPTY=1 EJK_TMP_NOFIRST=1" \
         "eqo EJK_TMP_EMPTY=1 EJK_TMP_NOQ=1 EJK_TMP_NOOUT=1" "eqof EJK_TMP_EMPTY=1 EJK_TMP_NOQ=1 EJK_TMP_NOOUT=1 EJK_TMP_NOFIRST=1" \
         "qo EJK_TMP_NOQ=1 EJK_TMP_NOOUT=1" "qof EJK_TMP_NOQ=1 EJK_TMP_NOOUT=1 EJK_TMP_NOFIRST=1"; do
  set -- $v; n=$1; shift
  P $V/$n gfa-d128,gfa-long "$@"
done
for k in 64 128 256 512 1024 4096; do BASE=$V/base K $V/sk $k; done
BASE=$V/base K $V/sk 2048
cmp $D/$V/sk/gfa-d128-k2048/artifact/attention_attention_dispatch_0.spv $D/$V/base/gfa-d128/artifact/attention_attention_dispatch_0.spv && echo "k2048 = base"
for n in empty noq noout nofirst nolast eq eo ef eqo eqof qo qof; do
  ch=""; for w in gfa-d128 gfa-long; do
    cmp -s $D/$V/$n/$w/artifact/attention_attention_dispatch_0.spv $D/$V/base/$w/artifact/attention_attention_dispatch_0.spv || ch="$ch $w"
  done; echo "$n changes:$ch"
done
# Row blocks a workgroup in turn (prototype, EJK_TMP_RB=R), the K/V
# pipeline running on into the next block's first key block.
for r in 2 3 4 8; do
  P $V/rb$r gfa-d128,gfa-long,gfa-d64,gfa-d128-causal EJK_TMP_RB=$r
done
P $V/rb16 gfa-long EJK_TMP_RB=16
