#!/bin/sh
# here: sparse.py's cases into .b-sparse/sp with the tree's ejkc, then the
# variants as NAME@TAG with a private ejkc (.b-sparse/bin/ejkc: the tree's
# objects plus switches.patch applied to a copy of lib/Ops/Attention, linked
# outside build/, so the shared checkout never carries the switches).
set -eu
FP=bench/results/h200/device.fingerprint
D=.b-sparse
EJKC=$D/bin/ejkc
rm -rf $D/sp
/usr/bin/python3 bench/vulkan/sparse.py prepare $D/sp $FP > $D/sp.log 2>&1
V() { # TAG "cases" VAR=VALUE ...
  tag=$1; list=$2; shift 2
  for n in $list; do
    fp=$FP; case $n in chk_stage*) fp=$D/sp/stage.fingerprint;; esac
    env EJK_CACHE_DIR=$(mktemp -d) "$@" $EJKC $D/sp/art/$n.mlir --target vulkan --fingerprint $fp --no-cache -o $D/sp/art/$n@$tag --name kernel >/dev/null 2>$D/err.log || { echo "FAILED $n@$tag"; head -3 $D/err.log; }
    /usr/bin/python3 - $D/sp $n $tag <<'PY'
import json, os, sys
d, n, tag = sys.argv[1:]
c = json.load(open(os.path.join(d, "cases.json")))
c[n + "@" + tag] = c[n]
json.dump(c, open(os.path.join(d, "cases.json"), "w"), indent=1)
PY
  done
}
G="gsparse_10 gsparse_25 gsparse_50 gsparse_100 gsparse_25_bf16 gsparse_25_causal"
# The private compiler with no switch: must equal the tree's (checked below).
V none "$G"
V o1 "$G" EJK_TMP_SPARSE_ORDER=128,1
V l "$G" EJK_TMP_SPARSE_LIST=1
V o1l "$G" EJK_TMP_SPARSE_ORDER=128,1 EJK_TMP_SPARSE_LIST=1
V oall "gsparse_25" EJK_TMP_SPARSE_ORDER=128,0
V o256 "gsparse_25" EJK_TMP_SPARSE_ORDER=256,1
V oid "gsparse_25" EJK_TMP_SPARSE_ORDER=128,0,id
CHK="$(cd $D/sp/art && ls -d chk_* | grep -v '\.mlir\|@')"
V o1 "$CHK" EJK_TMP_SPARSE_ORDER=128,1
V l "$CHK" EJK_TMP_SPARSE_LIST=1
du -sh $D/sp
