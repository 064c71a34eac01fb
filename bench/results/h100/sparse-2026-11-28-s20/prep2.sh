#!/bin/sh
# here, after call 1 (session 19, helper sparse): call 2's variants into
# .b-sparse/sp (call 1's @ variants removed first), private ejkc
# (.b-sparse/bin/ejkc, switches2.patch). New switches: EJK_TMP_UNROLL=2 (the
# list loop two positions an iteration, then the odd one in a branch; with
# SKIP0 only the first of a pair tests for the list's first position) and
# EJK_TMP_PROF=5 (every list 8 blocks 0, 4, .., 28 as PROF=2, but the count
# is not a compile-time constant: 8 + (count >> 10)). Tags:
#   p = PIPE=1; pq = p + QFIRST; pu = p + UNROLL=2 + SKIP0; puq = pu + QFIRST;
#   u = UNROLL=2 unpipelined; q = QFIRST;
#   f8 = PROF=2, f8d = PROF=5, pf8 = p + PROF=2, pf8d = p + PROF=5;
#   a6 = PROF=6 (the real counts, entries from arithmetic: 4i mod 32 +
#   4i / 32, not the live blocks), pa6 = p + PROF=6; the fixed cost: e =
#   PROF=1 (empty lists), eo = e + NOOUT=1 (no output global stores), eq = e
#   + NOQ=1 (no Q loads: zeros), el = e + NOLIST=1 (no list build, no job
#   order), eqol = all three (launch, layout probe, barriers, stage).
set -eu
cd /work/main
FP=bench/vulkan/h100.fingerprint
D=.b-sparse
EJKC=$D/bin/ejkc
rm -rf $D/sp/art/*@*
[ -f $D/sp/chk/chk_job_groups_256/q.npy ] || /usr/bin/python3 $D/gen_inputs.py $D/sp gen 2
/usr/bin/python3 - $D/sp <<'PY'
import json, os, sys
d = sys.argv[1]
c = json.load(open(os.path.join(d, "cases.json")))
json.dump({n: v for n, v in c.items() if "@" not in n},
          open(os.path.join(d, "cases.json"), "w"), indent=1)
PY
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
G4="gsparse_10 gsparse_25 gsparse_50 gsparse_100"
V none "$G"
V p "$G4" EJK_TMP_PIPE=1
V pq "$G4" EJK_TMP_PIPE=1 EJK_TMP_QFIRST=1
V pu "$G" EJK_TMP_PIPE=1 EJK_TMP_UNROLL=2 EJK_TMP_SKIP0=1
V puq "$G" EJK_TMP_PIPE=1 EJK_TMP_UNROLL=2 EJK_TMP_SKIP0=1 EJK_TMP_QFIRST=1
V u "gsparse_25" EJK_TMP_UNROLL=2
V q "$G" EJK_TMP_QFIRST=1
V f8 "gsparse_25" EJK_TMP_PROF=2
V f8d "gsparse_25" EJK_TMP_PROF=5
V pf8 "gsparse_25" EJK_TMP_PIPE=1 EJK_TMP_PROF=2
V pf8d "gsparse_25" EJK_TMP_PIPE=1 EJK_TMP_PROF=5
V a6 "gsparse_25" EJK_TMP_PROF=6
V pa6 "gsparse_25" EJK_TMP_PIPE=1 EJK_TMP_PROF=6
V e "gsparse_25" EJK_TMP_PROF=1
V eo "gsparse_25" EJK_TMP_PROF=1 EJK_TMP_NOOUT=1
V eq "gsparse_25" EJK_TMP_PROF=1 EJK_TMP_NOQ=1
V el "gsparse_25" EJK_TMP_PROF=1 EJK_TMP_NOLIST=1
V eqol "gsparse_25" EJK_TMP_PROF=1 EJK_TMP_NOQ=1 EJK_TMP_NOOUT=1 EJK_TMP_NOLIST=1
CHK="$(cd $D/sp/art && ls -d chk_* | grep -v '\.mlir\|@')"
for t in p pq pu puq; do
  case $t in
    p) V p "$CHK" EJK_TMP_PIPE=1;;
    pq) V pq "$CHK" EJK_TMP_PIPE=1 EJK_TMP_QFIRST=1;;
    pu) V pu "$CHK" EJK_TMP_PIPE=1 EJK_TMP_UNROLL=2 EJK_TMP_SKIP0=1;;
    puq) V puq "$CHK" EJK_TMP_PIPE=1 EJK_TMP_UNROLL=2 EJK_TMP_SKIP0=1 EJK_TMP_QFIRST=1;;
  esac
done
V q "$CHK" EJK_TMP_QFIRST=1
for n in $G; do
  for f in $(cd $D/sp/art/$n && find . -name '*.spv' | sort); do
    cmp -s $D/sp/art/$n/$f $D/sp/art/$n@none/$f || echo "DIFF none $n $f"
  done
done
du -sh $D/sp
# The chk inputs are regenerated on the device (gen_inputs.py): not carried.
find $D/sp/chk -name '*.npy' ! -name 'ref_*' -delete
