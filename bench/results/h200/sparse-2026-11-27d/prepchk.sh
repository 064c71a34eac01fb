#!/bin/sh
# here: check-sparse-nv(-bf16) candidates (bench/vulkan/check.sh's sparse
# sets) compiled with the job order and the register list switched on.
set -eu
FP=bench/results/h200/device.fingerprint
D=.b-sparse/chk
rm -rf $D; mkdir -p $D/lib
export EJK_CACHE_DIR=$(mktemp -d) EJK_TMP_SPARSE_ORDER=128,1 EJK_TMP_SPARSE_LIST=1
build/bin/ejk-tune bench/vulkan/check-sparse.mlir --space small --emit-candidates $D/check-sparse-nv --fingerprint $FP
sed 's/xf16>/xbf16>/g' bench/vulkan/check-sparse.mlir > $D/bf16.mlir
build/bin/ejk-tune $D/bf16.mlir --space small --emit-candidates $D/check-sparse-nv-bf16 --fingerprint $FP
cp build/bin/ejk-tune-runner $D/
cp build/lib/Runtime/libejk_runtime.so.1 $D/lib/
/usr/bin/python3 bench/vulkan/check_shards.py $D 3 check-sparse-nv=sn check-sparse-nv-bf16=sb
du -sh $D
