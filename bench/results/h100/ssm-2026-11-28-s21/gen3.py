#!/usr/bin/env python3
"""A prepared third call (art3/, not made by the ssm helper): the one-pass
prototypes with y staged in shared memory and stored in rows (`_ys`),
their skeletons, and call 2's best one-pass kernel, its skeleton and the
flat stream as references (ejkc's heuristic comes from ejk/art)."""
import json, os
os.environ.setdefault("POUT", "art3")
import gen

keep = ("flat_wg256_g1056_u1", "sl_spl1_tt64_cw16", "dropstate_sl_spl1_tt64_cw16_pf2")
os.makedirs(gen.OUT, exist_ok=True)
cases = {}
for name, (kind, p) in gen.variants().items():
    if not (name.endswith("_ys") or name in keep):
        continue
    if kind == "flat":
        gen.artifact(name, [(gen.flat_src(p), [p["G"], 1, 1], p["WG"])])
    else:
        gen.sl_artifact(name, p)
    cases[name] = [kind, p]
    print(name, "ok", flush=True)
json.dump(cases, open(os.path.join(gen.OUT, "..", "probes3.json"), "w"), indent=1)
