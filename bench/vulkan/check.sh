#!/bin/sh
# Prepares correctness checks of the Vulkan attention kernels for the GPU
# machine (docs/testing.md, "On the GPU machine"): every candidate config of
# every case is compiled here from the device's saved fingerprint, with the
# reference evaluator's outputs, and checked there by the MLIR-free runner.
#
#   here:   sh bench/vulkan/check.sh [DIR] [FINGERPRINT]
#   there:  LD_LIBRARY_PATH=DIR/lib DIR/ejk-tune-runner DIR/check-nv --runs 2 --force
#           LD_LIBRARY_PATH=DIR/lib DIR/ejk-tune-runner DIR/check-nv-bf16 --runs 2 --force
#           LD_LIBRARY_PATH=DIR/lib DIR/ejk-tune-runner DIR/check-stage --runs 2 --force
#           LD_LIBRARY_PATH=DIR/lib DIR/ejk-tune-runner DIR/check-f32 --runs 2 --force
#           LD_LIBRARY_PATH=DIR/lib DIR/ejk-tune-runner DIR/check-sparse-nv --runs 2 --force
#           LD_LIBRARY_PATH=DIR/lib DIR/ejk-tune-runner DIR/check-sparse-nv-bf16 --runs 2 --force
#           (--force: the lent card's fingerprint hash may differ from the
#           saved FINGERPRINT's, e.g. another driver build; the runner
#           refuses candidates compiled for another hash without it)
#
# check-nv: the f16 cases of bench/vulkan/check-coop.mlir on the register
# softmax (the device's own fingerprint); check-nv-bf16: the same cases in
# bf16; check-stage: the same cases on the
# shared-memory softmax (the fingerprint under another vendor id, hence
# --force); check-f32: test/Integration/Vulkan/attention/combinations.mlir on the
# portable f32 path; check-sparse-nv(-bf16): the block-sparse cases of
# bench/vulkan/check-sparse.mlir on the register softmax, f16 and bf16. A
# candidate whose output differs from the reference is
# reported "wrong" (the runner's table) and the run fails.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-devrun}
fingerprint=${2:-$root/bench/results/h200/device.fingerprint}
tune=$root/build/bin/ejk-tune
mkdir -p "$dir/lib"
rm -rf "$dir/check-nv" "$dir/check-nv-bf16" "$dir/check-stage" "$dir/check-f32" \
  "$dir/check-sparse-nv" "$dir/check-sparse-nv-bf16"
other=$(mktemp)
trap 'rm -f "$other"' EXIT
sed 's/^vendor_id=.*/vendor_id=0x1002/' "$fingerprint" > "$other"
# The cases of FILE into OUT and, in bf16 (bf16 cooperative matrices where
# the fingerprint lists them, docs/vulkan-pipeline.md), into OUT-bf16; on
# the register softmax.
f16_and_bf16() {
  "$tune" "$1" --space small --emit-candidates "$2" \
    --fingerprint "$fingerprint"
  bf16=$(mktemp --suffix=.mlir)
  sed 's/xf16>/xbf16>/g' "$1" > "$bf16"
  "$tune" "$bf16" --space small --emit-candidates "$2-bf16" \
    --fingerprint "$fingerprint"
  rm -f "$bf16"
}
f16_and_bf16 "$root/bench/vulkan/check-coop.mlir" "$dir/check-nv"
"$tune" "$root/bench/vulkan/check-coop.mlir" --space small \
  --emit-candidates "$dir/check-stage" --fingerprint "$other"
f16_and_bf16 "$root/bench/vulkan/check-sparse.mlir" "$dir/check-sparse-nv"
"$tune" "$root/test/Integration/Vulkan/attention/combinations.mlir" --space small \
  --emit-candidates "$dir/check-f32" --fingerprint "$fingerprint"
cp "$root/build/bin/ejk-tune-runner" "$dir/"
cp "$root/build/lib/Runtime/libejk_runtime.so.1" "$dir/lib/"
du -sh "$dir"
