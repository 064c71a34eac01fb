#!/bin/sh
# here: check-sparse-nv(-bf16) candidates (bench/vulkan/check.sh's sparse
# sets) compiled by the private ejk-tune with switches: TAG VAR=VALUE ...
set -eu
cd /work/main
FP=bench/vulkan/h100.fingerprint
D=.b-sparse/chk
tag=$1; shift
mkdir -p $D/lib
rm -rf $D/check-sparse-nv-$tag $D/check-sparse-nv-bf16-$tag
sed 's/xf16>/xbf16>/g' bench/vulkan/check-sparse.mlir > $D/bf16.mlir
env EJK_CACHE_DIR=$(mktemp -d) "$@" .b-sparse/bin/ejk-tune bench/vulkan/check-sparse.mlir --space small --emit-candidates $D/check-sparse-nv-$tag --fingerprint $FP
env EJK_CACHE_DIR=$(mktemp -d) "$@" .b-sparse/bin/ejk-tune $D/bf16.mlir --space small --emit-candidates $D/check-sparse-nv-bf16-$tag --fingerprint $FP
cp build/bin/ejk-tune-runner $D/
cp build/lib/Runtime/libejk_runtime.so.1 $D/lib/
