#!/bin/sh
# here (call 2): fin = the final build (whole key blocks without a bound
# test per row, one address plus constant steps), noaddr = the same with
# call 1's per-round addresses (EJK_TMP_NOADDR), bound = the tree before
# (EJK_TMP_BOUND); bf16 gfa-d128 fin and bound; the device checks of fin
# (check-nv, check-nv-bf16, check-stage); the pipeline statistics' argument
# lists.
set -eu
. .b-fa/lib.sh
W=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
rm -rf $D/fin $D/noaddr $D/bound $D/bf16b $D/chk2
P fin $W
P noaddr $W EJK_TMP_NOADDR=1
P bound $W EJK_TMP_BOUND=1
for v in fin bound; do
  d=$D/bf16b/$v; mkdir -p $d
  sed 's/xf16>/xbf16>/g' $D/base/gfa-d128/attention.mlir > $d/attention.mlir
  env EJK_TMP_$(echo $v | tr a-z A-Z)=1 build/bin/ejkc --target=vulkan $d/attention.mlir -o $d/artifact --fingerprint $FP --no-cache >/dev/null 2>$d/err || echo "bf16 $v: $(grep -m1 error $d/err)"
done
cp build/bin/ejk-bench-run $D/
cp build/lib/Runtime/libejk_runtime.so.1 $D/lib/
EJK_CACHE_DIR=$(mktemp -d) sh bench/vulkan/check.sh $D/chk2 $FP > $D/chk2.log 2>&1
rm -rf $D/chk2/check-f32 $D/chk2/check-sparse*
/usr/bin/python3 bench/vulkan/check_shards.py $D/chk2 4 check-nv=nv check-nv-bf16=nb
/usr/bin/python3 bench/vulkan/check_shards.py $D/chk2 3 check-stage=st
/usr/bin/python3 - <<'PY' > $D/stats-args.txt
import json, os
for v in ("bound", "fin"):
    for w in ("gfa-d128", "gfa-d128-causal", "gfa-d64", "gfa-d64-causal", "gfa-long", "gfa-long-causal"):
        root = f".b-fa/{v}/{w}/artifact"
        m = json.load(open(os.path.join(root, "attention.json")))
        d = m["entries"][0]["dispatches"][0]
        print(d["entry_point"], len(d["bindings"]), os.path.join(root, d["spirv"]))
PY
rm -rf $D/chk $D/base $D/nb $D/sp $D/spnb $D/pc $D/cfgnb $D/cfgspnb $D/bf16
du -sh $D
