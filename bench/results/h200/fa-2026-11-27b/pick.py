"""pick.py SWEEP CHECKS BEST: per workload, the fastest artifact of the new
build whose device check passed (new, newcfg: chk2; nopipe: chk3), copied
into BEST with an artifacts.json for bench/gpu.py run."""
import json, os, re, shutil, sys
sweep, checks, best = sys.argv[1:4]
ok = {}
for line in open(checks):
    name, rest = line.split(":", 1)
    m = re.search(r"(\d+) ok, (\d+) wrong-lines, (\d+) failed, (\d+) shards", rest)
    ok[name] = m and int(m.group(1)) > 0 and m.group(2) == "0" and m.group(3) == "0" and m.group(4) == "2"
good = {"new": ok.get("chk2_check-nv") and ok.get("chk2_check-nv-bf16"),
        "newcfg": ok.get("chk2_check-nv") and ok.get("chk2_check-nv-bf16"),
        "nopipe": ok.get("chk3_check-nv")}
print("checks:", ok, "usable:", good)
times = {}
for line in open(sweep):
    m = re.match(r"\.fa4/(\w+)/(gfa-[\w-]+)(/[\d-]+)?: median ([\d.]+) ms", line)
    if m:
        times[(m.group(1), m.group(2), m.group(3) or "")] = float(m.group(4))
os.makedirs(best, exist_ok=True)
rec = json.load(open(".fa4/new/artifacts.json"))
for wl in rec["workloads"]:
    cands = [(t, k) for k, t in times.items() if k[1] == wl and k[0] != "base" and good.get(k[0])]
    base = times.get(("base", wl, ""))
    if not cands:
        src = ".fa4/base/" + wl; print(wl, "no checked candidate: base", base)
    else:
        t, k = min(cands)
        src = ".fa4/" + k[0] + "/" + wl + k[2]
        print(f"{wl}: best {k[0]}{k[2]} {t} ms, base {base} ms, new heuristic {times.get(('new', wl, ''))} ms")
    shutil.copytree(src + "/artifact", os.path.join(best, wl, "artifact"), dirs_exist_ok=True)
json.dump(rec, open(os.path.join(best, "artifacts.json"), "w"), indent=1)
