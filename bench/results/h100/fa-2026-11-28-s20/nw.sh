#!/bin/sh
# nw.sh SRC DST: copies an artifacts dir and decorates every storage-buffer
# variable bound at bindings 0-2 (the inputs q, k, v and their 16-byte views)
# NonWritable. Profile only.
set -eu
src=$1; dst=$2; T=/tmp/spvt/bin
rm -rf $dst; cp -r $src $dst
for f in $(find $dst -name "*.spv"); do
  $T/spirv-dis --raw-id $f -o /tmp/nw.spvasm
  vars=$(grep -E "OpDecorate %[0-9]+ Binding [012]$" /tmp/nw.spvasm | awk '{print $2}')
  { for v in $vars; do echo "OpDecorate $v NonWritable"; done; } > /tmp/nw-dec.txt
  awk 'FNR==NR {d = d $0 "\n"; next} /OpDecorate .* Binding / && !done {printf "%s", d; done=1} {print}' /tmp/nw-dec.txt /tmp/nw.spvasm > /tmp/nw2.spvasm
  $T/spirv-as --target-env vulkan1.3 --preserve-numeric-ids /tmp/nw2.spvasm -o $f
  $T/spirv-val --target-env vulkan1.3 $f 2>&1 | grep -v "VulkanMemoryModel\|OpCapability CooperativeMatrixKHR\|^$" || true
  echo "$f: $(echo $vars | wc -w) NonWritable"
done
