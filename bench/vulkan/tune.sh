#!/bin/sh
# Prepares a directory to tune gfa-d128 (batch 1, fp16, causal and not) on
# the GPU machine through ejk-tune's remote path (docs/config-selection.md,
# "Tuning the GPU machine"):
#
#   here:   sh bench/vulkan/tune.sh [DIR] [FINGERPRINT]
#   there:  LD_LIBRARY_PATH=DIR/lib DIR/ejk-tune-runner DIR/candidates --runs 20
#   here:   build/bin/ejk-tune --import-results DIR/candidates/results.json
#
# DIR defaults to devrun; FINGERPRINT to the H200's saved fingerprint.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:-devrun}
fingerprint=${2:-$root/bench/results/h200/device.fingerprint}
build=$root/build
rm -rf "$dir/candidates"
mkdir -p "$dir/lib"
"$build/bin/ejk-tune" "$root/bench/vulkan/tune-gfa-d128.mlir" --space full \
  --emit-candidates "$dir/candidates" --fingerprint "$fingerprint"
cp "$build/bin/ejk-tune-runner" "$dir/"
cp "$build/lib/Runtime/libejk_runtime.so.1" "$dir/lib/"
du -sh "$dir"
