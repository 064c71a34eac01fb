# Temporary phase-drop variants of the time-segments scan (EJK_SEG_DROP,
# a build switch that is never committed), merged into DIR's cases.json.
import json, os, subprocess, sys
sys.path.insert(0, "/work/main/bench/vulkan")
import ssm
out = sys.argv[1]
fp = "/work/main/bench/results/h200/device.fingerprint"
v = ssm.variants()
cases = json.load(open(os.path.join(out, "cases.json")))
plan = {"mamba1_ts8s2_c64_bd16": ["local", "exp", "bload", "fold", "out", "bar", "local,fold,out", "fold,out"],
        "mamba1_ts16s4_c64_bd8": ["local,fold,out", "fold", "out", "exp"]}
for base, drops in plan.items():
    for d in drops:
        name = base + "__drop_" + d.replace(",", "_")
        src = os.path.join(out, "art", name + ".mlir")
        open(src, "w").write(ssm.ir(*v[base]))
        r = subprocess.run(["/work/main/build/bin/ejkc", src, "--target", "vulkan", "--fingerprint", fp,
                            "--no-cache", "-o", os.path.join(out, "art", name), "--name", "kernel"],
                           capture_output=True, text=True, env=dict(os.environ, EJK_SEG_DROP=d))
        print(name, r.returncode, r.stderr.strip()[:200])
        if not r.returncode:
            cases[name] = list(v[base])
json.dump(cases, open(os.path.join(out, "cases.json"), "w"), indent=1)
