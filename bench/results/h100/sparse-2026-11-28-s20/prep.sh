#!/bin/sh
# here (session 19, helper sparse): the variants as NAME@TAG into .b-sparse/sp
# (sparse.py prepare with the tree's ejkc first), compiled by the private
# ejkc (.b-sparse/bin/ejkc: the tree's objects with switches.patch's copy of
# CoopKernel.cpp / CoopSoftmax.cpp / CoopBuilder.h). Tags:
#   none  no switch (must equal the tree's SPIR-V)
#   p     EJK_TMP_PIPE=1   block-sparse lists pipelined (P V one block late),
#                          with the lazy rescale (as dense)
#   p2    EJK_TMP_PIPE=2   pipelined lists without the lazy rescale
#   ps    p + EJK_TMP_SKIP0=1 (the first position's zero P V skipped in a
#                          uniform branch)
#   psq   ps + EJK_TMP_QFIRST=1 (Q's loads issued before the list build)
#   q     EJK_TMP_QFIRST=1 alone
#   l2    EJK_TMP_L2=1     the lead's call-3 l2: unpipelined lists, lazy
#                          rescale, O's rescale in a uniform branch
#   l2q   l2 + QFIRST
# profile (EJK_TMP_PROF): e=1 empty lists (count 0: the fixed cost),
#   f8=2 every list 8 blocks (0, 4, .., 28) with the list still built from
#   the mask (no binomial tail), f8n=3 the same without list build and job
#   order, no=4 the output's global stores removed.
set -eu
cd /work/main
FP=bench/vulkan/h100.fingerprint
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
G="gsparse_10 gsparse_25 gsparse_50 gsparse_100 gsparse_25_bf16 gsparse_25_causal"
V none "$G"
V p "gsparse_10 gsparse_25 gsparse_50 gsparse_100" EJK_TMP_PIPE=1
V p2 "gsparse_25" EJK_TMP_PIPE=2
V ps "gsparse_10 gsparse_25 gsparse_50 gsparse_100" EJK_TMP_PIPE=1 EJK_TMP_SKIP0=1
V psq "$G" EJK_TMP_PIPE=1 EJK_TMP_SKIP0=1 EJK_TMP_QFIRST=1
V q "$G" EJK_TMP_QFIRST=1
V l2 "gsparse_25" EJK_TMP_L2=1
V l2q "gsparse_25" EJK_TMP_L2=1 EJK_TMP_QFIRST=1
V e "gsparse_25" EJK_TMP_PROF=1
V f8 "gsparse_25" EJK_TMP_PROF=2
V f8n "gsparse_25" EJK_TMP_PROF=3
V no "gsparse_25" EJK_TMP_PROF=4
V psqf8 "gsparse_25" EJK_TMP_PIPE=1 EJK_TMP_SKIP0=1 EJK_TMP_QFIRST=1 EJK_TMP_PROF=2
CHK="$(cd $D/sp/art && ls -d chk_* | grep -v '\.mlir\|@')"
V psq "$CHK" EJK_TMP_PIPE=1 EJK_TMP_SKIP0=1 EJK_TMP_QFIRST=1
V p "$CHK" EJK_TMP_PIPE=1
V q "$CHK" EJK_TMP_QFIRST=1
# The private compiler with no switch gives the tree's SPIR-V.
for n in $G; do
  for f in $(cd $D/sp/art/$n && find . -name '*.spv' | sort); do
    cmp -s $D/sp/art/$n/$f $D/sp/art/$n@none/$f || echo "DIFF none $n $f"
  done
done
du -sh $D/sp
