#!/bin/sh
# here (call 2): block-sparse variants (temporary switches) compiled beside
# sparse.py's cases; dense flash-attention variants and configs.
set -eu
. .sp19/lib.sh
rm -rf $D/sp2 $D/v2
mkdir -p $D/v2
bench/.venv/bin/python3 bench/vulkan/sparse.py prepare $D/sp2 $FP > $D/sp2.log 2>&1
# Variants of the timed gsparse cases and (pq) of every chk case.
V() { # TAG "cases" VAR=VALUE ...
  tag=$1; list=$2; shift 2
  for n in $list; do
    env EJK_CACHE_DIR=$(mktemp -d) "$@" build/bin/ejkc $D/sp2/art/$n.mlir --target vulkan --fingerprint $FP --no-cache -o $D/sp2/art/$n@$tag --name kernel >/dev/null 2>$D/err.log || { echo "FAILED $n@$tag"; head -3 $D/err.log; }
    python3 - $D/sp2 $n $tag <<'PY'
import json, os, sys
d, n, tag = sys.argv[1:]
c = json.load(open(os.path.join(d, "cases.json")))
c[n + "@" + tag] = c[n]
json.dump(c, open(os.path.join(d, "cases.json"), "w"), indent=1)
if n.startswith("chk") and not os.path.exists(os.path.join(d, "chk", n + "@" + tag)):
    os.symlink(n, os.path.join(d, "chk", n + "@" + tag))
PY
  done
}
V nopipe "gsparse_10 gsparse_25 gsparse_100 gsparse_25_bf16" EJK_TMP_NOPIPE_SPARSE=1
V peel "gsparse_25" EJK_TMP_PEEL=sparse
V qfirst "gsparse_25" EJK_TMP_QFIRST=1
V pq "gsparse_10 gsparse_25 gsparse_50 gsparse_100 gsparse_25_causal gsparse_25_bf16" EJK_TMP_PEEL=sparse EJK_TMP_QFIRST=1
V pqnb "gsparse_25_bf16" EJK_TMP_PEEL=sparse EJK_TMP_QFIRST=1 EJK_TMP_NOPIPE_BF16=1
V pq "$(cd $D/sp2/art && ls -d chk_* | grep -v '\.mlir\|@')" EJK_TMP_PEEL=sparse EJK_TMP_QFIRST=1
# Dense: bf16 gfa-d128 pipelined and not, the peeled first block, configs.
W=gfa-d128,gfa-d128-causal,gfa-d64,gfa-d64-causal,gfa-long,gfa-long-causal
P base $W
for v in pipe nopipe; do
  mkdir -p $D/v2/bf16-$v/gfa-d128
  sed 's/xf16>/xbf16>/g' $D/base/gfa-d128/attention.mlir > $D/v2/bf16-$v/gfa-d128/attention.mlir
done
build/bin/ejkc --target=vulkan $D/v2/bf16-pipe/gfa-d128/attention.mlir -o $D/v2/bf16-pipe/gfa-d128/artifact --fingerprint $FP --no-cache >/dev/null
EJK_TMP_NOPIPE_BF16=1 build/bin/ejkc --target=vulkan $D/v2/bf16-nopipe/gfa-d128/attention.mlir -o $D/v2/bf16-nopipe/gfa-d128/artifact --fingerprint $FP --no-cache >/dev/null
P v2/peel gfa-d128,gfa-d64,gfa-long EJK_TMP_PEEL=all
X v2/cfg "gfa-d128:128,64,4 gfa-d128:128,32,4 gfa-d128:128,16,4" X=1
X v2/pipecausal "gfa-d128-causal:128,64,8 gfa-long-causal:128,64,8" EJK_TMP_PIPE_CAUSAL=1
rm -rf $D/cfg $D/pipecausal $D/sp
cp build/bin/ejk-bench-run $D/
