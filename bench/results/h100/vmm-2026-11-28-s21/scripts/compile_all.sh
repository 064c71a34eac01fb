#!/bin/bash
# Compiles every source of src/ with old/ejkc and new/ejkc into cmp/{old,new}/<family>/<name>/.
cd "$(dirname "$0")"
for src in src/*/*.mlir; do
  fam=$(basename $(dirname $src)); name=$(basename $src .mlir)
  fp=../bench/vulkan/h100.fingerprint
  [ "$(cat src/$fam/$name.fp)" = stage ] && fp=stage.fingerprint
  for v in old new; do
    [ -e cmp/$v/$fam/$name/kernel.json ] && continue
    mkdir -p cmp/$v/$fam
    $v/ejkc $src --target vulkan --fingerprint $fp --no-cache -o cmp/$v/$fam/$name --name kernel > cmp/$v/$fam/$name.log 2>&1 || echo "$v $fam/$name FAILED"
  done
done
echo done
