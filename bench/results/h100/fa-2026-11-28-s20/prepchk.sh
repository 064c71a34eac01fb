#!/bin/sh
# Device-check candidates: A = ROWLAZY + TREE on every candidate of
# check-coop f16/bf16, check-sparse f16 and the larger row problems f16/bf16;
# B = A + PVFIRST + VLATE=3, only the candidates whose SPIR-V differs from A's
# (sharing A's inputs).
set -eu
cd /work/main
. .b-fa/s20/lib.sh
rm -rf $D/ca $D/cb $D/c0 $D/chk; mkdir -p $D/chk
ENVV="" BB=split sh $D/cands.sh c0
ENVV="EJK_TMP_ROWLAZY=1 EJK_TMP_TREE=1" BB=var sh $D/cands.sh ca
ENVV="EJK_TMP_ROWLAZY=1 EJK_TMP_TREE=1 EJK_TMP_PVFIRST=1 EJK_TMP_VLATE=3" BB=var sh $D/cands.sh cb
python3 - <<'PY'
import json, os, shutil, filecmp
D = ".b-fa/s20"
out = f"{D}/chk"
for s in ["nv", "nb", "sn", "rows", "rows-bf"]:
    shutil.copytree(f"{D}/ca/{s}", f"{out}/a-{s}")
    plan = json.load(open(f"{D}/cb/{s}/plan.json"))
    newp = dict(plan, problems=[])
    n = 0
    for pr in plan["problems"]:
        cands = []
        for c in pr["candidates"]:
            cdir = os.path.dirname(c["manifest"])
            sa = [f for f in os.listdir(f"{D}/ca/{s}/{cdir}") if f.endswith(".spv")]
            same = all(filecmp.cmp(f"{D}/ca/{s}/{cdir}/{f}", f"{D}/cb/{s}/{cdir}/{f}", shallow=False) for f in sa)
            if not same:
                shutil.copytree(f"{D}/cb/{s}/{cdir}", f"{out}/b-{s}/{cdir}")
                cands.append(c)
        if cands:
            pr = json.loads(json.dumps(pr))
            pr["candidates"] = cands
            pr["inputs"] = ["../a-" + s + "/" + x for x in pr["inputs"]]
            pr["expected"] = ["../a-" + s + "/" + x for x in pr["expected"]]
            newp["problems"].append(pr)
            n += len(cands)
    if n:
        os.makedirs(f"{out}/b-{s}", exist_ok=True)
        json.dump(newp, open(f"{out}/b-{s}/plan.json", "w"), indent=1)
    print(s, "B candidates differing from A:", n)
PY
python3 bench/vulkan/check_shards.py $D/chk 4 a-nv=an a-nb=ab
# A's block-sparse candidates against the tree's (TREE is dense only)
python3 - <<'PY'
import os, filecmp, shutil
D = ".b-fa/s20"
for s in ["nv", "nb", "sn", "rows", "rows-bf"]:
    same = diff = 0
    for root, _, files in os.walk(f"{D}/ca/{s}"):
        for f in files:
            if f.endswith(".spv"):
                a = os.path.join(root, f); b = a.replace(f"{D}/ca/", f"{D}/c0/", 1)
                if filecmp.cmp(a, b, shallow=False): same += 1
                else: diff += 1
    print(f"A vs tree, {s}: {diff} modules differ, {same} identical")
    if s == "sn" and diff == 0:
        shutil.rmtree(f"{D}/chk/a-sn")
PY
for s in ca cb; do for x in nv nb sn rows rows-bf; do echo "$s/$x: $(python3 -c "import json;p=json.load(open('$D/$s/$x/plan.json'));print(sum(len(q['candidates']) for q in p['problems']))")"; done; done
du -sh $D/ca $D/chk; rm -rf $D/c0 $D/ca $D/cb
