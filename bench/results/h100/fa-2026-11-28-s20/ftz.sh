#!/bin/sh
# ftz.sh SRC DST: copies an artifacts dir and patches every .spv with
# OpCapability DenormFlushToZero + OpExecutionMode <entry> DenormFlushToZero 32
# (SPIR-V 1.6: float controls are core). Profile only.
set -eu
src=$1; dst=$2; T=/tmp/spvt/bin
rm -rf $dst; cp -r $src $dst
for f in $(find $dst -name "*.spv"); do
  $T/spirv-dis --raw-id $f -o /tmp/ftz.spvasm
  ep=$(grep -m1 "OpEntryPoint GLCompute" /tmp/ftz.spvasm | awk '{print $3}')
  awk -v ep="$ep" '/OpCapability Shader/ {print; print "OpCapability DenormFlushToZero"; next}
       /OpExecutionMode .* LocalSize/ {print; print "OpExecutionMode " ep " DenormFlushToZero 32"; next} {print}' /tmp/ftz.spvasm > /tmp/ftz2.spvasm
  $T/spirv-as --target-env vulkan1.3 --preserve-numeric-ids /tmp/ftz2.spvasm -o $f
  $T/spirv-val --target-env vulkan1.3 $f || echo "VAL FAILED $f"
done
