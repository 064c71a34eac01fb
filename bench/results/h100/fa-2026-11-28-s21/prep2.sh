#!/bin/sh
# Session 21 (issue 21, helper fa), call 2's artifacts (bin-var; without
# switches = the tree): u1 = UNROLL=2 (the dense key loop two blocks an
# iteration where a subgroup owns one row tile), u1q = u1 + QG=2 (Q's A
# matrices straight from the buffer where the kernel is not pipelined:
# causal one-tile, bf16), q2 = QG=2, early = EARLY=1 (the next block's
# loads issued before this block's stores at the top of the iteration),
# u1e = u1 + early; rot = ROT=1 (dense, no causal mask: iteration i takes
# key block lo + (i - lo + query block) % (hi - lo), so the query blocks of
# a head, which run at once, read different blocks and all but the first
# reader of a block hit L2), u1r = u1 + rot; bf16 gfa-d128 at the
# heuristic config; u1qr = u1q + rot.
set -eu
cd /work/main
. .b-fa/s21/lib.sh
W=gfa-d128,gfa-d128-causal,gfa-long,gfa-long-causal,gfa-d64,gfa-d64-causal
V=dev2/v
rm -rf $D/$V; mkdir -p $D/$V
BB=var2 P $V/base $W
for v in "u1 EJK_TMP_UNROLL=2" "u1q EJK_TMP_UNROLL=2 EJK_TMP_QG=2" "q2 EJK_TMP_QG=2" "early EJK_TMP_EARLY=1" "u1e EJK_TMP_UNROLL=2 EJK_TMP_EARLY=1" "rot EJK_TMP_ROT=1" "u1r EJK_TMP_UNROLL=2 EJK_TMP_ROT=1" "u1qr EJK_TMP_UNROLL=2 EJK_TMP_QG=2 EJK_TMP_ROT=1"; do
  set -- $v; n=$1; shift
  BB=var2 P $V/$n $W "$@"
done
# bf16 gfa-d128
for v in "base" "u1 EJK_TMP_UNROLL=2" "u1q EJK_TMP_UNROLL=2 EJK_TMP_QG=2" "u1r EJK_TMP_UNROLL=2 EJK_TMP_ROT=1" "u1qr EJK_TMP_UNROLL=2 EJK_TMP_QG=2 EJK_TMP_ROT=1"; do
  set -- $v; n=$1; shift
  d=$D/$V/$n/gfa-d128-bf16; mkdir -p $d
  sed 's/xf16>/xbf16>/g' $D/$V/base/gfa-d128/attention.mlir > $d/attention.mlir
  env "$@" $D/bb-var2/bin/ejkc --target=vulkan $d/attention.mlir -o $d/artifact --fingerprint $FP --no-cache >/dev/null 2>$d/err || echo "bf16 $n failed"
done
for n in u1 u1q q2 early u1e rot u1r u1qr; do
  ch=""; for w in gfa-d128 gfa-d128-causal gfa-d64 gfa-d64-causal gfa-long gfa-long-causal gfa-d128-bf16; do
    [ -d $D/$V/$n/$w ] || continue
    cmp -s $D/$V/$n/$w/artifact/attention_attention_dispatch_0.spv $D/$V/base/$w/artifact/attention_attention_dispatch_0.spv || ch="$ch $w"
  done; echo "$n changes:$ch"
done
