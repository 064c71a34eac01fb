#!/bin/bash
# Issue 21 (cm2): dumps what the KHR path produces, to compare a build with
# the cm2 compiler path against one without it (byte for byte):
#   - the output (stdout and stderr) of every `ejk-opt %s ...` and
#     `ejkc %s ...` RUN line of test/{Ops,Vulkan,Conversion,Selection}
#     (the part before the first pipe; cm2-* tests left out);
#   - the SPIR-V of the six gfa workloads compiled for the H100's saved
#     fingerprint and for the H200's without its cooperative_matrix2 line;
#   - every candidate of bench/vulkan/check-coop.mlir (small space) for the
#     H200's fingerprint without that line.
#   bash bench/vulkan/cm2_khr_identity.sh OUTDIR
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
rm -rf "$out" && mkdir -p "$out/run" "$out/spv"
export EJK_CACHE_DIR=$(mktemp -d)
bin=$root/build/bin
n=0
for f in $(ls $root/test/{Ops,Vulkan,Conversion,Selection}/*.mlir $root/test/Ops/*/*.mlir 2>/dev/null | grep -v /cm2-); do
  grep -E '^// RUN: (ejk-opt|ejkc) %s' "$f" | sed 's|^// RUN: ||' | while read -r line; do
    cmd=${line%%|*}
    cmd=${cmd//%s/$f}
    cmd=${cmd//%S/$(dirname $f)}
    case "$cmd" in *%t*) continue;; esac
    key=$(echo "$f $cmd" | sha1sum | cut -c1-12)
    (cd "$root" && eval "$bin/$cmd") > "$out/run/$key.txt" 2>&1
    echo "$key $f: $cmd" >> "$out/run/index.txt"
  done
done
grep -v '^cooperative_matrix2=' $root/bench/results/h200/device.fingerprint > $out/h200-khr.fingerprint
for w in $root/.b-cm2/dev5/base/gfa-*/attention.mlir; do
  name=$(basename $(dirname $w))
  for fp in $root/bench/vulkan/h100.fingerprint $out/h200-khr.fingerprint; do
    tag=$(basename $fp .fingerprint)
    $bin/ejkc $w --target vulkan --fingerprint $fp --no-cache -o $out/spv/$tag-$name --name a > /dev/null 2>&1
  done
done
$bin/ejk-tune $root/bench/vulkan/check-coop.mlir --space small --emit-candidates $out/check-coop \
  --fingerprint $out/h200-khr.fingerprint > /dev/null 2>&1
find $out/check-coop -name "*.npy" -delete
find $out/check-coop -name "*.json" -exec sed -i '/"date"\|"commit"\|compiler_hash/d' {} +
echo "$(wc -l < $out/run/index.txt) RUN lines, $(find $out/spv -name '*.spv' | wc -l) gfa modules, $(find $out/check-coop -name '*.spv' | wc -l) check-coop modules"
