#!/bin/sh
# The clean compiler's (bin-clean/ejkc) SPIR-V against the timed @TAG
# artifacts: cmpclean.sh TAG
cd /work/main
D=.b-sparse; tag=$1; n_ok=0; n_bad=0
for a in $D/sp/art/*@$tag; do
  n=$(basename $a); base=${n%@*}
  fp=bench/vulkan/h100.fingerprint; case $base in chk_stage*) fp=$D/sp/stage.fingerprint;; esac
  rm -rf /tmp/cc/$n; mkdir -p /tmp/cc
  EJK_CACHE_DIR=$(mktemp -d) ${EJKC:-$D/bin-clean/ejkc} $D/sp/art/$base.mlir --target vulkan --fingerprint $fp --no-cache -o /tmp/cc/$n --name kernel >/dev/null 2>&1
  same=1
  for f in $(cd $a && ls *.spv); do cmp -s $a/$f /tmp/cc/$n/$f || same=0; done
  [ "$(ls $a/*.spv | wc -l)" = "$(ls /tmp/cc/$n/*.spv | wc -l)" ] || same=0
  if [ $same = 1 ]; then n_ok=$((n_ok+1)); else n_bad=$((n_bad+1)); echo "DIFF $n"; fi
done
echo "$tag: $n_ok identical, $n_bad differ"
