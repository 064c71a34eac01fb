#!/usr/bin/env python3
"""The full sl2 variants' code paths at the check size (PL=256, PD=64) with
2 states a lane (8 lanes a channel: lavapipe's subgroups are 8 lanes), for
check_local.py. Run: PL=256 PD=64 POUT=chk python3 gen_check23.py &&
python3 check_local.py chk"""
import os
import gen, gen23
os.makedirs(gen.OUT, exist_ok=True)
for name, (kind, p) in gen23.variants().items():
    if kind != "sl2" or p.get("DROP") or p.get("NOBAR") or p.get("NOY"):
        continue
    q = dict(p, SPL=2)
    if q["CW"] > gen.D:
        continue
    n = gen23.sl_name(q, False)
    gen23.sl2_artifact(n, q)
    print(n, "ok", flush=True)
