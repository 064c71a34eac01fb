"""Splits check.sh plans into shards: python3 shard.py DIR N NAME... ->
DIR/NAME-sK/plan.json (paths into DIR/NAME)."""
import json, os, sys
root, n, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
for src in names:
    plan = json.load(open(os.path.join(root, src, "plan.json")))
    shards, load = [[] for _ in range(n)], [0] * n
    for pr in sorted(plan["problems"], key=lambda x: -len(x["candidates"])):
        i = load.index(min(load)); shards[i].append(pr); load[i] += len(pr["candidates"])
    for i, shard in enumerate(shards):
        out = dict(plan, problems=[])
        for pr in shard:
            pr = json.loads(json.dumps(pr))
            pr["inputs"] = ["../" + src + "/" + x for x in pr["inputs"]]
            pr["expected"] = ["../" + src + "/" + x for x in pr["expected"]]
            for c in pr["candidates"]:
                c["manifest"] = "../" + src + "/" + c["manifest"]
            out["problems"].append(pr)
        os.makedirs(os.path.join(root, f"{src}-s{i}"), exist_ok=True)
        json.dump(out, open(os.path.join(root, f"{src}-s{i}", "plan.json"), "w"), indent=1)
