# Keeps each variant's check candidates that differ from the tree's; the
# problems' inputs and expected outputs once per problem set (in-<set>/),
# the plans pointing there.
import json, os, shutil, filecmp, sys
D = ".b-fa/s21"; out = os.environ.get("CHK_OUT", f"{D}/dev/chk")
shutil.rmtree(out, ignore_errors=True)
variants = sys.argv[1:]
for v in variants:
  for s in ["nv", "nb", "rows", "rows-bf"]:
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
            for key in ("inputs", "expected"):
                new = []
                for x in pr[key]:
                    dst = f"{out}/in-{s}/{x}"
                    if not os.path.exists(dst):
                        os.makedirs(os.path.dirname(dst), exist_ok=True)
                        shutil.copy(f"{D}/c-base/{s}/{x}", dst)
                        assert filecmp.cmp(dst, f"{D}/c-{v}/{s}/{x}", shallow=False)
                    new.append(f"../in-{s}/{x}")
                pr[key] = new
            newp["problems"].append(pr); n += len(cands)
    if n:
        json.dump(newp, open(f"{out}/{v}-{s}/plan.json", "w"), indent=1)
    print(v, s, f"candidates differing from the tree: {n} of {tot}")
