"""Splits check.sh's check-nv and check-nv-bf16 plans into 4 shards each
(DIR/{nv,bf}-s{0..3}/plan.json, paths into the original directories), so
that 8 ejk-tune-runner processes check them in parallel on the GPU machine
(one runner took about 0.9 s a candidate, mostly pipeline creation).
    python3 shard.py DIR        # DIR as given to bench/vulkan/check.sh"""
import json, os, sys

root = sys.argv[1]
for src, short in (("check-nv", "nv"), ("check-nv-bf16", "bf")):
    plan = json.load(open(os.path.join(root, src, "plan.json")))
    n = 4
    shards, load = [[] for _ in range(n)], [0] * n
    for pr in sorted(plan["problems"], key=lambda x: -len(x["candidates"])):
        i = load.index(min(load))
        shards[i].append(pr)
        load[i] += len(pr["candidates"])
    for i, shard in enumerate(shards):
        out = dict(plan, problems=[])
        for pr in shard:
            pr = json.loads(json.dumps(pr))
            pr["inputs"] = ["../" + src + "/" + x for x in pr["inputs"]]
            pr["expected"] = ["../" + src + "/" + x for x in pr["expected"]]
            for c in pr["candidates"]:
                c["manifest"] = "../" + src + "/" + c["manifest"]
            out["problems"].append(pr)
        os.makedirs(os.path.join(root, f"{short}-s{i}"), exist_ok=True)
        json.dump(out, open(os.path.join(root, f"{short}-s{i}", "plan.json"), "w"), indent=1)
