#!/bin/sh
# Session 22 (issue 21, helper fa2), the device call's artifacts (H200
# fingerprints): base = the committed heuristic (fingerprint without
# sm_count: row_blocks 2 on gfa-d128 / gfa-long), rb8 = the fingerprint with
# sm_count=132 (the new heuristic: row_blocks 8), and on rb8 the temporary
# switches (bin-var, env, never committed): qm = the next turn's Q A-matrices
# from the buffer where its Q rows were loaded (no Q stage, two barriers a
# turn fewer), skip = a turn's first key block skips the zero P V, qs = both.
set -eu
cd /work/main
. .b-fa2/lib.sh
V=dev/v
rm -rf $D/$V; mkdir -p $D/$V
W6=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
P $V/base $W6 $FP0
P $V/rb8 $W6 $FP132
P $V/qm gfa-d128,gfa-long $FP132 EJK_TMP_QM=1
P $V/skip gfa-d128,gfa-long $FP132 EJK_TMP_SKIP=1
P $V/qs gfa-d128,gfa-long $FP132 EJK_TMP_QM=1 EJK_TMP_SKIP=1
for w in gfa-d128-causal gfa-d64 gfa-d64-causal gfa-long-causal; do
  cmp $D/$V/base/$w/artifact/attention_attention_dispatch_0.spv $D/$V/rb8/$w/artifact/attention_attention_dispatch_0.spv && echo "$w: rb8 = base"
done
for n in rb8 qm skip qs; do for w in gfa-d128 gfa-long; do
  cmp -s $D/$V/base/$w/artifact/attention_attention_dispatch_0.spv $D/$V/$n/$w/artifact/attention_attention_dispatch_0.spv && echo "$n $w: SAME as base" || echo "$n $w: differs"
done; done
