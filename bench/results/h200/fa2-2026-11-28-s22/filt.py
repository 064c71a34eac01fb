"""filt.py OUT VAR BASE: a check directory OUT of the candidates of VAR
(an .b-fa2/c-NAME directory of cands.sh) whose SPIR-V differs from BASE's
candidate of the same config: small-space sets nv, nb, rows, rows-bf, the
full-space rowsf / rowsf-bf candidates of block_q 128 merged into rows /
rows-bf (configs not in the small space, directories fp<i>_c<k>). Prints the counts."""
import filecmp, glob, json, os, shutil, sys

out, var, base = sys.argv[1:4]

def spv(d):
    return sorted(glob.glob(os.path.join(d, "*.spv")))

def same(a, b):
    fa, fb = spv(a), spv(b)
    return [os.path.basename(x) for x in fa] == [os.path.basename(x) for x in fb] and \
        all(filecmp.cmp(x, y, shallow=False) for x, y in zip(fa, fb))

def key(c):
    return json.dumps(c["config"], sort_keys=True)

def changed(vdir, bdir, i, prob, bprob):
    bc = {key(c): c for c in bprob["candidates"]}
    keep = []
    for c in prob["candidates"]:
        b = bc.get(key(c))
        d = os.path.join(vdir, os.path.dirname(c["manifest"]))
        if b is None or not same(d, os.path.join(bdir, os.path.dirname(b["manifest"]))):
            keep.append(c)
    return keep

os.makedirs(out, exist_ok=True)
total = 0
for name, full in [("nv", None), ("nb", None), ("rows", "rowsf"), ("rows-bf", "rowsf-bf")]:
    vdir, bdir = os.path.join(var, name), os.path.join(base, name)
    plan = json.load(open(os.path.join(vdir, "plan.json")))
    bplan = json.load(open(os.path.join(bdir, "plan.json")))
    odir = os.path.join(out, name)
    shutil.rmtree(odir, ignore_errors=True)
    shutil.copytree(vdir, odir)
    n = 0
    fplan = bfplan = None
    if full:
        fplan = json.load(open(os.path.join(var, full, "plan.json")))
        bfplan = json.load(open(os.path.join(base, full, "plan.json")))
    for i, prob in enumerate(plan["problems"]):
        keep = changed(vdir, bdir, i, prob, bplan["problems"][i])
        have = {key(c) for c in prob["candidates"]}
        if full:
            fp, bfp = fplan["problems"][i], bfplan["problems"][i]
            assert fp["key"] == prob["key"]
            for c in changed(os.path.join(var, full), os.path.join(base, full), i, fp, bfp):
                if key(c) in have or c["config"].get("block_q") != 128:
                    continue
                src = os.path.join(var, full, os.path.dirname(c["manifest"]))
                dst = "f%s_%s" % (os.path.dirname(os.path.dirname(c["manifest"])), os.path.basename(os.path.dirname(c["manifest"])))
                shutil.copytree(src, os.path.join(odir, dst))
                keep.append({"config": c["config"], "manifest": dst + "/kernel.json"})
        prob["candidates"] = keep
        n += len(keep)
    # Candidate directories no longer listed are removed (carry size).
    listed = {os.path.dirname(c["manifest"]) for p in plan["problems"] for c in p["candidates"]}
    for p in glob.glob(os.path.join(odir, "p*", "c*")):
        if os.path.relpath(p, odir) not in listed:
            shutil.rmtree(p)
    json.dump(plan, open(os.path.join(odir, "plan.json"), "w"), indent=1)
    print(f"{name}: {n} changed candidates")
    total += n
print(f"total {total}")
