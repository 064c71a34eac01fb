#!/usr/bin/env python3
"""The full variants at the check size (PL, PD), WG <= PD, S <= PL / 2."""
import os, json
import gen
os.makedirs(gen.OUT, exist_ok=True)
for name, (kind, p) in gen.variants().items():
    if kind == "sl" and (p["SPL"] == 1 or p.get("DROP")):
        continue
    if kind == "sl":
        gen.sl_artifact(name, p)
        print(name, "ok")
        continue
    if kind != "scan" or p["mode"] != "full" or p["WG"] > gen.D or p["S"] > gen.L // 2:
        continue
    if os.environ.get("ONLY_SL"):
        continue
    gen.scan_artifact(name, p)
    print(name, "ok")
