#!/usr/bin/env python3
"""Call 2's artifacts (art2/): the one-pass state-lanes prototypes (sl_*),
their phase drops, and call 1's references (the flat stream, the best
two-pass skeleton and full prototype)."""
import json, os
os.environ.setdefault("POUT", "art2")
import gen

keep = ("flat_wg256_g1056_u1", "skel_s64_wg32_k4_p4", "full_s128_wg128_k4_p4_pe0_bcs")
os.makedirs(gen.OUT, exist_ok=True)
cases = {}
for name, (kind, p) in gen.variants().items():
    if kind == "sl":
        gen.sl_artifact(name, p)
    elif name in keep:
        if kind == "flat":
            gen.artifact(name, [(gen.flat_src(p), [p["G"], 1, 1], p["WG"])])
        else:
            gen.scan_artifact(name, p)
    else:
        continue
    cases[name] = [kind, p]
    print(name, "ok", flush=True)
json.dump(cases, open(os.path.join(gen.OUT, "..", "probes2.json"), "w"), indent=1)
