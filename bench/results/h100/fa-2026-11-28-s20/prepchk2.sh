#!/bin/sh
# Call 2 checks: the committed build's (3e7e957, bin-fin) candidates of
# check-coop f16/bf16, check-sparse f16 and the row problems f16/bf16, kept
# where their SPIR-V differs from the build before (0096e37, bin-split).
set -eu
cd /work/main
. .b-fa/s20/lib.sh
rm -rf $D/cf $D/c0 $D/chk2; mkdir -p $D/chk2
ENVV="" BB=fin sh $D/cands.sh cf
ENVV="" BB=split sh $D/cands.sh c0
python3 - <<'PY'
import json, os, shutil, filecmp
D = ".b-fa/s20"; out = f"{D}/chk2"
for s in ["nv", "nb", "sn", "rows", "rows-bf"]:
    plan = json.load(open(f"{D}/cf/{s}/plan.json"))
    newp = dict(plan, problems=[]); n = tot = 0
    for pr in plan["problems"]:
        cands = []
        for c in pr["candidates"]:
            tot += 1
            cdir = os.path.dirname(c["manifest"])
            spv = [f for f in os.listdir(f"{D}/cf/{s}/{cdir}") if f.endswith(".spv")]
            if not all(filecmp.cmp(f"{D}/cf/{s}/{cdir}/{f}", f"{D}/c0/{s}/{cdir}/{f}", shallow=False) for f in spv):
                shutil.copytree(f"{D}/cf/{s}/{cdir}", f"{out}/{s}/{cdir}")
                cands.append(c)
        if cands:
            pr = json.loads(json.dumps(pr)); pr["candidates"] = cands
            for x in pr["inputs"] + pr["expected"]:
                os.makedirs(os.path.dirname(f"{out}/{s}/{x}"), exist_ok=True)
                shutil.copy(f"{D}/cf/{s}/{x}", f"{out}/{s}/{x}")
            newp["problems"].append(pr); n += len(cands)
    if n:
        json.dump(newp, open(f"{out}/{s}/plan.json", "w"), indent=1)
    print(s, f"committed candidates differing from the build before: {n} of {tot}")
PY
[ -d $D/chk2/nv ] && python3 bench/vulkan/check_shards.py $D/chk2 3 nv=fn
rm -rf $D/cf $D/c0
du -sh $D/chk2
