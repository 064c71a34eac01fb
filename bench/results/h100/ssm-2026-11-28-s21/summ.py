import json, sys
d = sys.argv[1]
r = json.load(open(d + "/probe.json"))
st = {}
for line in open(d + "/pstats.txt"):
    f = line.rstrip("\n").split("\t")
    if len(f) == 4 and f[2] in ("Register Count", "Shared Memory Size"):
        n = f[0].split("/art2/")[-1].split("/art/")[-1]
        st.setdefault(n.split("/")[0], {}).setdefault(f[2], []).append(f[3])
print("copy", r.get("copy_gbps_start"), r.get("copy_gbps"), r["rounds"])
for k in sorted(r):
    e = r[k]
    if isinstance(e, dict) and "median_us" in e:
        s = st.get(k, {})
        print(f"{k:36s} {e['median_us']:7.1f} {100*e.get('of_copy',0):5.1f}% {e['dispatch_us']} min {e['min_us']:.1f} err {e.get('max_abs_err','-')} regs {s.get('Register Count')} sh {s.get('Shared Memory Size')}")
    elif isinstance(e, dict) and "error" in e:
        print(k, "ERROR", e["error"])
