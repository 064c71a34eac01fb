#!/usr/bin/env python3
"""Prints a result directory's table (us, % of copy, registers, shared bytes,
check). Usage: summ23.py DIR"""
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/probe.json"))
st = {}
for line in open(d + "/pstats.txt"):
    f = line.rstrip("\n").split("\t")
    if len(f) == 4 and f[2] in ("Register Count", "Shared Memory Size"):
        n = f[0].split("/")[-2]
        st.setdefault(n, {})[f[2]] = f[3]
print("copy GB/s", round(r["copy_gbps_start"]), round(r["copy_gbps"]), "bytes", r["bytes"],
      "bar us %.1f" % r["bar_us"], "|", r["smi_start"], "|", r["smi_end"])
for k in sorted(r, key=lambda k: r[k].get("median_us", 0) if isinstance(r[k], dict) else 0):
    e = r[k]
    if isinstance(e, dict) and "median_us" in e:
        s = st.get(k, {})
        chk = ("ok %.1e" % e["max_abs_err"] if e.get("ok") else "FAIL") if "ok" in e else "-"
        print(f"| {k} | {e['median_us']:.1f} | {100 * e['of_copy']:.1f} | {s.get('Register Count', '-')} | {s.get('Shared Memory Size', '-')} | {chk} |")
