#!/bin/sh
# here, after prep3.sh and call 1: more variants into .b-sparse/sp with the
# private ejkc (.b-sparse/bin/ejkc: session 17's switches plus
# EJK_TMP_SPARSE_WHOLE=1, K/V loads of whole key blocks without the bound
# test per row for block-sparse lists too). The tree since f56cf8b is @o1.
# o256 = the last group of 256 jobs sorted; o1w / o256w = with whole-block
# loads.
set -eu
FP=bench/results/h200/device.fingerprint
D=.b-sparse
EJKC=$D/bin/ejkc
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
V o256 "gsparse_10 gsparse_50 gsparse_100 gsparse_25_bf16" EJK_TMP_SPARSE_ORDER=256,1
V o1w "gsparse_25 gsparse_100 gsparse_25_causal" EJK_TMP_SPARSE_ORDER=128,1 EJK_TMP_SPARSE_WHOLE=1
V o256w "gsparse_10 gsparse_25 gsparse_50 gsparse_100 gsparse_25_bf16 gsparse_25_causal" EJK_TMP_SPARSE_ORDER=256,1 EJK_TMP_SPARSE_WHOLE=1
CHK="$(cd $D/sp/art && ls -d chk_* | grep -v '\.mlir\|@')"
V o256w "$CHK" EJK_TMP_SPARSE_ORDER=256,1 EJK_TMP_SPARSE_WHOLE=1
V o256 "$CHK" EJK_TMP_SPARSE_ORDER=256,1
du -sh $D/sp
# o256wu: o256w with the rank loop's compares 16 an iteration (4 in the
# others; EJK_TMP_SPARSE_UNROLL=16).
V o256wu "gsparse_10 gsparse_25 gsparse_100 chk_job_groups chk_many_jobs chk_job_groups_256" EJK_TMP_SPARSE_ORDER=256,1 EJK_TMP_SPARSE_WHOLE=1 EJK_TMP_SPARSE_UNROLL=16
