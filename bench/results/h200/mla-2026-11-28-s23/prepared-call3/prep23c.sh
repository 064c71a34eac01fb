#!/bin/bash
# Session 23, PREPARED (not run) third call for the lead (helper "mla"):
# the committed kernel (ec80651) against the temporary switches of
# prepared-switches.patch (apply it to RegisterKernel.cpp at ec80651, build
# bin/ejkc, run this here; carry [".gl", ".b-mla/s23c", ".b-mla/dev23c.sh"]
# and run dev23c.sh there). Switches: EJK_TMP_MLA_NT (the row loads marked
# Nontemporal in SPIR-V: 18 OpLoads), EJK_TMP_MLA_MIDLOAD (cooperative = 2:
# the next step's row loads issued after the parts barrier instead of after
# the rows barrier), both; profile EJK_TMP_MLA_PROF_FIXROW (every step
# loads the first step's rows: the same instructions on cached data; wrong
# outputs) to split the 70 us of the in-loop loads into instructions and
# memory traffic.
set -e
cd /work/main
D=.b-mla/s23c
rm -rf $D
python3 bench/vulkan/mla.py prepare $D bench/results/h200/device.fingerprint > /dev/null
python3 - <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, "bench/vulkan")
import mla
D = ".b-mla/s23c"
base = mla.variants()
sw = {"nt": ["EJK_TMP_MLA_NT"], "mid": ["EJK_TMP_MLA_MIDLOAD"],
      "ntmid": ["EJK_TMP_MLA_NT", "EJK_TMP_MLA_MIDLOAD"]}
extra = {}
chks = [k for k in base if k.startswith("chk-reg") or k.startswith("chk-pipe")]
for tag, names in sw.items():
    extra[f"mla-deepseek-v3-{tag}"] = (base["mla-deepseek-v3"], names)
    for k in chks:
        extra[f"{k}-{tag}"] = (base[k], names)
extra["mla-deepseek-v3-f16-nt"] = (base["mla-deepseek-v3-f16"], sw["nt"])
extra["mla-dense-f16-nt"] = (base["mla-dense-f16"], sw["nt"])
extra["mla-deepseek-v3-pipe-nt"] = (base["mla-deepseek-v3-pipe"], sw["nt"])
extra["mla-deepseek-v3-prof-fixrow"] = (base["mla-deepseek-v3"], ["EJK_TMP_MLA_PROF_FIXROW"])
order = {"mla-deepseek-v3": base["mla-deepseek-v3"]}
for name, (spec, names) in extra.items():
    env = dict(os.environ, **{n: "1" for n in names})
    src = os.path.join(D, "art", name + ".mlir")
    open(src, "w").write(mla.ir(*spec))
    out = os.path.join(D, "art", name)
    r = subprocess.run(["build/bin/ejkc", src, "--target", "vulkan", "--fingerprint",
                        "bench/results/h200/device.fingerprint", "--no-cache", "-o",
                        out, "--name", "kernel"], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    orig = [k for k, v in base.items() if v == spec][0]
    same = all(open(os.path.join(out, f), "rb").read() ==
               open(os.path.join(D, "art", orig, f), "rb").read()
               for f in os.listdir(out) if f.endswith(".spv"))
    if not same:
        order[name] = spec
for k in ("mla-deepseek-v3-f16", "mla-dense-f16", "mla-deepseek-v3-pipe"):
    order[k] = base[k]
import shutil
shutil.copytree(os.path.join(D, "art", "mla-deepseek-v3"), os.path.join(D, "art", "mla-deepseek-v3-tree2"))
order["mla-deepseek-v3-tree2"] = base["mla-deepseek-v3"]
json.dump(order, open(os.path.join(D, "cases.json"), "w"), indent=1)
print(len(order), [k for k in order if not k.startswith("chk")])
PY
cp .b-mla/pipeline_stats $D/
cp bench/vulkan/moe.py $D/
