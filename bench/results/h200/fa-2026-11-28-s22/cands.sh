# cands.sh OUT: check-coop f16/bf16, check-rows f16/bf16 candidates (small space)
set -u
. .b-fa/s22/lib.sh
o=$D/$1; shift; mkdir -p $o
bf=$(mktemp --suffix=.mlir); sed 's/xf16>/xbf16>/g' bench/vulkan/check-coop.mlir > $bf
rw=bench/results/h200/fa-2026-11-28/check-rows.mlir
bfr=$(mktemp --suffix=.mlir); sed 's/xf16>/xbf16>/g' $rw > $bfr
for pair in "nv bench/vulkan/check-coop.mlir" "nb $bf" "rows $rw" "rows-bf $bfr"; do
  set -- $pair
  rm -rf $o/$1
  env EJK_CACHE_DIR=$(mktemp -d) $D/bb-${BB:-new}/bin/ejk-tune $2 --space small --emit-candidates $o/$1 --fingerprint $FP > $o/$1.log 2>&1 || echo "cands $1 failed"
done
rm -f $bf $bfr
