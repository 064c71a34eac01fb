"""Pipeline statistics (registers, spills) of every artifact under the
given folders: bench/vulkan/pipeline_stats on each attention dispatch."""
import json, os, subprocess, sys
tool, tops = sys.argv[1], sys.argv[2:]
args = [tool]
for top in tops:
    for root, _, files in sorted(os.walk(top)):
        for f in files:
            if not f.endswith(".json") or f in ("cases.json", "plan.json", "artifacts.json"):
                continue
            try:
                m = json.load(open(os.path.join(root, f)))
                for e in m["entries"]:
                    for d in e["dispatches"]:
                        args += [d["entry_point"], str(len(d["bindings"])), os.path.join(root, d["spirv"])]
            except Exception:
                pass
r = subprocess.run(args, capture_output=True, text=True)
for line in r.stdout.splitlines():
    f = line.split("\t")
    if len(f) == 4 and any(k in f[2].lower() for k in ("register", "shared", "spill", "local", "stack")):
        print(f[0], f[2], f[3], sep="\t")
print(r.stderr[-2000:])
