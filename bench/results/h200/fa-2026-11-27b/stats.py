import json, os, subprocess
args = [".fa4/pipeline_stats"]
for top in (".fa4/base", ".fa4/new", ".fa4/newcfg", ".fa4/nopipe"):
    for root, _, files in sorted(os.walk(top)):
        if "attention.json" in files and root.endswith("artifact"):
            m = json.load(open(os.path.join(root, "attention.json")))
            d = m["entries"][0]["dispatches"][0]
            args += [d["entry_point"], str(len(d["bindings"])), os.path.join(root, d["spirv"])]
r = subprocess.run(args, capture_output=True, text=True)
for line in r.stdout.splitlines():
    f = line.split("\t")
    if len(f) == 4 and any(k in f[2].lower() for k in ("register", "shared", "spill", "local", "stack")):
        print(f[0].replace(".fa4/", "").split("/artifact/")[0], f[2], f[3], sep="\t")
print(r.stderr[-1500:])
