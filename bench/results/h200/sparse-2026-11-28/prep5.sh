#!/bin/sh
# here, at 23:47 after d216695 (dense: the output through the stage, the
# first key block's loads before Q's): a third private ejkc
# (.b-sparse/bin3/ejkc: HEAD's lib/Ops/Attention with switches
# EJK_TMP_SPARSE_GROUP=N (the job order's group), EJK_TMP_SPARSE_WHOLE=1,
# EJK_TMP_SPARSE_STAGED=1 (block-sparse output through the stage too));
# gfa_d128_dense recompiled with it (HEAD's dense; the old one kept as
# gfa_d128_dense@old). s = staged output.
set -eu
FP=bench/results/h200/device.fingerprint
D=.b-sparse
EJKC=$D/bin3/ejkc
V() { # TAG "cases" VAR=VALUE ...
  tag=$1; list=$2; shift 2
  for n in $list; do
    fp=$FP; case $n in chk_stage*) fp=$D/sp/stage.fingerprint;; esac
    rm -rf $D/sp/art/$n@$tag
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
V o1s "gsparse_25" EJK_TMP_SPARSE_STAGED=1
V o256ws "gsparse_10 gsparse_25 gsparse_50 gsparse_100 gsparse_25_bf16 gsparse_25_causal" EJK_TMP_SPARSE_GROUP=256 EJK_TMP_SPARSE_WHOLE=1 EJK_TMP_SPARSE_STAGED=1
CHK="$(cd $D/sp/art && ls -d chk_* | grep -v '\.mlir\|@')"
V o256ws "$CHK" EJK_TMP_SPARSE_GROUP=256 EJK_TMP_SPARSE_WHOLE=1 EJK_TMP_SPARSE_STAGED=1
du -sh $D/sp
