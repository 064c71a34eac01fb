"""Splits the candidate plans that bench/vulkan/check.sh writes into shards,
so that several ejk-tune-runner processes check them in parallel on the GPU
machine (one runner takes about 0.9 s a candidate, mostly pipeline
creation):

    python3 bench/vulkan/check_shards.py DIR N NAME[=SHORT] ...

writes DIR/SHORT-sK/plan.json for K < N (SHORT defaults to NAME), whose
paths point into DIR/NAME; problems go to the shard with the fewest
candidates so far, largest first. Then, there:

    ejk-tune-runner DIR/SHORT-sK --runs 1 --force      (one process a shard)
"""
import json
import os
import sys


def shard(root, n, name, short):
    plan = json.load(open(os.path.join(root, name, "plan.json")))
    shards, load = [[] for _ in range(n)], [0] * n
    for problem in sorted(plan["problems"], key=lambda x: -len(x["candidates"])):
        i = load.index(min(load))
        shards[i].append(problem)
        load[i] += len(problem["candidates"])
    for i, problems in enumerate(shards):
        out = dict(plan, problems=[])
        for problem in problems:
            problem = json.loads(json.dumps(problem))
            problem["inputs"] = ["../" + name + "/" + x for x in problem["inputs"]]
            problem["expected"] = ["../" + name + "/" + x for x in problem["expected"]]
            for c in problem["candidates"]:
                c["manifest"] = "../" + name + "/" + c["manifest"]
            out["problems"].append(problem)
        os.makedirs(os.path.join(root, f"{short}-s{i}"), exist_ok=True)
        with open(os.path.join(root, f"{short}-s{i}", "plan.json"), "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    for arg in sys.argv[3:]:
        name, _, short = arg.partition("=")
        shard(sys.argv[1], int(sys.argv[2]), name, short or name)
