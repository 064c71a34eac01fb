"""split.py DIR N: DIR.0 .. DIR.<N-1>, each with a share of DIR's
candidates (round robin over all problems) in its plan.json and links to
DIR's entries, so that N runners check DIR at once."""
import json, os, sys
d, n = sys.argv[1], int(sys.argv[2])
plan = json.load(open(os.path.join(d, "plan.json")))
flat = [(i, c) for i, p in enumerate(plan["problems"]) for c in p["candidates"]]
for k in range(n):
    part = f"{d}.{k}"
    os.makedirs(part, exist_ok=True)
    for e in os.listdir(d):
        if e != "plan.json" and not os.path.exists(os.path.join(part, e)):
            os.symlink(os.path.abspath(os.path.join(d, e)), os.path.join(part, e))
    sub = json.loads(json.dumps(plan))
    for p in sub["problems"]:
        p["candidates"] = []
    for j, (i, c) in enumerate(flat):
        if j % n == k:
            sub["problems"][i]["candidates"].append(c)
    sub["problems"] = [p for p in sub["problems"] if p["candidates"]]
    json.dump(sub, open(os.path.join(part, "plan.json"), "w"), indent=1)
print(f"{d}: {len(flat)} candidates in {n} parts")
