#!/bin/sh
# Call 2 additions: EJK_TMP_NOPF (inLoopLoads: each iteration loads and
# stages its own block, nothing prefetched in registers; two 128-thread
# workgroups an SM), its check candidates where they differ from the
# committed build's (cf), with cf's inputs.
set -eu
. .b-fa/s19/lib.sh
rm -rf $D/cp $D/v2/chk; mkdir -p $D/v2/chk
ENVV="EJK_TMP_NOPF=1" BB=pf sh $D/cands.sh cp
python3 - <<'PY'
import json, os, shutil, filecmp
D = ".b-fa/s19"; out = f"{D}/v2/chk"
for s in ["nv", "nb", "rows", "rows-bf"]:
    plan = json.load(open(f"{D}/cp/{s}/plan.json"))
    newp = dict(plan, problems=[]); n = 0
    for pr in plan["problems"]:
        cands = []
        for c in pr["candidates"]:
            cdir = os.path.dirname(c["manifest"])
            spv = [f for f in os.listdir(f"{D}/cp/{s}/{cdir}") if f.endswith(".spv")]
            if not all(filecmp.cmp(f"{D}/cp/{s}/{cdir}/{f}", f"{D}/cf/{s}/{cdir}/{f}", shallow=False) for f in spv):
                shutil.copytree(f"{D}/cp/{s}/{cdir}", f"{out}/{s}/{cdir}")
                cands.append(c)
        if cands:
            pr = json.loads(json.dumps(pr)); pr["candidates"] = cands
            for x in pr["inputs"] + pr["expected"]:
                os.makedirs(os.path.dirname(f"{out}/{s}/{x}"), exist_ok=True)
                shutil.copy(f"{D}/cp/{s}/{x}", f"{out}/{s}/{x}")
            newp["problems"].append(pr); n += len(cands)
    json.dump(newp, open(f"{out}/{s}/plan.json", "w"), indent=1)
    print(s, "NOPF candidates differing from the committed build:", n)
PY
python3 bench/vulkan/check_shards.py $D/v2/chk 4 nv=pn nb=pb
cp $D/ejk-tune-runner $D/v2/chk/
du -sh $D/v2
