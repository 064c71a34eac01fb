#!/bin/sh
# Session 21 checks: candidates of check-coop f16 (nv), bf16 (nb) and the
# row problems f16/bf16 compiled with each variant's switches, kept where
# their SPIR-V differs from the tree's (bin-var without switches).
set -u
cd /work/main
. .b-fa/s21/lib.sh
rm -rf $D/chk; mkdir -p $D/chk
ENVV="" BB=var sh $D/cands.sh c-base
for v in "mid EJK_TMP_MID=1" "qg EJK_TMP_QG=1" "mq EJK_TMP_MID=1 EJK_TMP_QG=1" "m2q EJK_TMP_MID=2 EJK_TMP_QG=1" "mid2 EJK_TMP_MID=2"; do
  set -- $v; n=$1; shift
  ENVV="$*" BB=var sh $D/cands.sh c-$n
done
python3 - <<'PY'
import json, os, shutil, filecmp
D = ".b-fa/s21"; out = f"{D}/chk"
for v in ["mid", "qg", "mq", "m2q", "mid2"]:
  for s in ["nv", "nb", "sn", "rows", "rows-bf"]:
    plan = json.load(open(f"{D}/c-{v}/{s}/plan.json"))
    newp = dict(plan, problems=[]); n = tot = 0
    for pr in plan["problems"]:
        cands = []
        for c in pr["candidates"]:
            tot += 1
            cdir = os.path.dirname(c["manifest"])
            spv = [f for f in os.listdir(f"{D}/c-{v}/{s}/{cdir}") if f.endswith(".spv")]
            if not all(filecmp.cmp(f"{D}/c-{v}/{s}/{cdir}/{f}", f"{D}/c-base/{s}/{cdir}/{f}", shallow=False) for f in spv):
                shutil.copytree(f"{D}/c-{v}/{s}/{cdir}", f"{out}/{v}-{s}/{cdir}")
                cands.append(c)
        if cands:
            pr = json.loads(json.dumps(pr)); pr["candidates"] = cands
            for x in pr["inputs"] + pr["expected"]:
                os.makedirs(os.path.dirname(f"{out}/{v}-{s}/{x}"), exist_ok=True)
                shutil.copy(f"{D}/c-{v}/{s}/{x}", f"{out}/{v}-{s}/{x}")
            newp["problems"].append(pr); n += len(cands)
    if n:
        json.dump(newp, open(f"{out}/{v}-{s}/plan.json", "w"), indent=1)
    print(v, s, f"candidates differing from the tree: {n} of {tot}")
PY
du -sh $D/chk
