#!/usr/bin/env python3
"""Merges bench dirs prepared by linear.py into one run dir:
  merge.py OUT DIR[:SUFFIX] ...
art/<name><suffix> from each DIR; cases.json with the checks first, then
each bench name's variants next to each other (their order reversed every
other name, so that no variant always runs first)."""
import json, os, shutil, sys
out, sets = sys.argv[1], [(a.split(":") + [""])[:2] for a in sys.argv[2:]]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(os.path.join(out, "art"))
last = sets[-1][0]
shutil.copytree(os.path.join(last, "lib"), os.path.join(out, "lib"))
for f in ("linear.py", "ejk_runtime.py", "linear_rounds.py"):
    shutil.copy(os.path.join(last, f), out)
shutil.copy("/work/main/bench/vulkan/fla_warm.py", out)
loaded = [(d, sfx, json.load(open(os.path.join(d, "cases.json")))) for d, sfx in sets]
cases, src = {}, {}
for d, sfx, c in loaded:
    for name, spec in c.items():
        if name.startswith("chk"):
            cases[name + sfx], src[name + sfx] = spec, (d, name)
names = []
for d, sfx, c in loaded:
    names += [n for n in c if not n.startswith("chk") and n not in names]
for i, name in enumerate(names):
    group = [(d, sfx, c) for d, sfx, c in loaded if name in c]
    if i % 2:
        group.reverse()
    for d, sfx, c in group:
        cases[name + sfx], src[name + sfx] = c[name], (d, name)
for dst, (d, name) in src.items():
    shutil.copytree(os.path.join(d, "art", name), os.path.join(out, "art", dst))
json.dump(cases, open(os.path.join(out, "cases.json"), "w"), indent=1)
print("\n".join(cases))
