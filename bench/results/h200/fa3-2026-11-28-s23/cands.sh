#!/bin/sh
# cands.sh NAME [VAR=VALUE ...]: ejk-tune --emit-candidates with .b-fa3/bb's
# ejk-tune (switches EJK_TMP_*) and the H200 fingerprint (sm_count=132) for
# check-coop f16 / bf16 and the row problems f16 / bf16 (small space), and
# the row problems' full space (f16 / bf16), into .b-fa3/c-NAME/ (after
# fa2's s22 cands.sh).
set -u
cd /work/main
. .b-fa3/lib.sh
n=$1; shift; VARS="$*"
o=$D/c-$n; rm -rf $o; mkdir -p $o
bf=$(mktemp --suffix=.mlir); sed 's/xf16>/xbf16>/g' bench/vulkan/check-coop.mlir > $bf
rw=bench/results/h200/fa-2026-11-28/check-rows.mlir
bfr=$(mktemp --suffix=.mlir); sed 's/xf16>/xbf16>/g' $rw > $bfr
for spec in "nv small bench/vulkan/check-coop.mlir" "nb small $bf" "rows small $rw" "rows-bf small $bfr" "rowsf full $rw" "rowsf-bf full $bfr"; do
  set -- $spec
  env EJK_CACHE_DIR=$(mktemp -d) $VARS $D/bb/bin/ejk-tune $3 --space $2 --emit-candidates $o/$1 --fingerprint $FP132 > $o/$1.log 2>&1 || echo "cands $n $1 failed"
done
rm -f $bf $bfr
