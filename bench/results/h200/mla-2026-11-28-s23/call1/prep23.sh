#!/bin/bash
# Session 23 (helper "mla"): mla.py's variants with the tree (switches off;
# SPIR-V cmp-identical to session 22's committed artifacts), plus the
# DeepSeek-V3 decode and chk cases built with the temporary switches of
# switches.patch: EJK_TMP_MLA_NOSEL (rows past the end clamped, not
# zeroed), _OWN (score roles by output head tile; the own part from
# registers), _EARLY (the next step's loads before the rows barrier), all
# three; profiles (time only, wrong outputs): _PROF_NOLOAD (no loads in the
# loop), _PROF_NOSTAGE (neither loads nor row stores in the loop),
# _PROF_NOBAR (no rows-staged / stage-free barriers), _PROF_NOSM (no max,
# exponentials or rescale), _PROF_NOS + _PROF_NOPV (no products), and
# no products with no staging.
set -e
cd /work/main
D=.b-mla/s23
rm -rf $D
python3 bench/vulkan/mla.py prepare $D bench/results/h200/device.fingerprint > /dev/null
python3 - <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, "bench/vulkan")
import mla
D = ".b-mla/s23"
cases = json.load(open(os.path.join(D, "cases.json")))
base = mla.variants()
sw = {"nosel": ["EJK_TMP_MLA_NOSEL"], "own": ["EJK_TMP_MLA_OWN"],
      "early": ["EJK_TMP_MLA_EARLY"],
      "all": ["EJK_TMP_MLA_NOSEL", "EJK_TMP_MLA_OWN", "EJK_TMP_MLA_EARLY"]}
extra = {}
chks = [k for k in base if k.startswith("chk-reg") or k.startswith("chk-pipe")]
for tag, names in sw.items():
    extra[f"mla-deepseek-v3-{tag}"] = (base["mla-deepseek-v3"], names)
    for k in chks:
        extra[f"{k}-{tag}"] = (base[k], names)
for tag in ("nosel", "own", "all"):
    extra[f"mla-deepseek-v3-f16-{tag}"] = (base["mla-deepseek-v3-f16"], sw[tag])
    extra[f"mla-dense-f16-{tag}"] = (base["mla-dense-f16"], sw[tag])
    extra[f"mla-b4-f16-{tag}"] = (base["mla-b4-f16"], sw[tag])
    extra[f"mla-deepseek-v3-pipe-{tag}"] = (base["mla-deepseek-v3-pipe"], sw[tag])
extra["mla-deepseek-v3-prof-noload"] = (base["mla-deepseek-v3"], ["EJK_TMP_MLA_PROF_NOLOAD"])
extra["mla-deepseek-v3-prof-nosm"] = (base["mla-deepseek-v3"], ["EJK_TMP_MLA_PROF_NOSM"])
extra["mla-deepseek-v3-prof-nostage"] = (base["mla-deepseek-v3"], ["EJK_TMP_MLA_PROF_NOSTAGE"])
extra["mla-deepseek-v3-prof-nobar"] = (base["mla-deepseek-v3"], ["EJK_TMP_MLA_PROF_NOBAR"])
extra["mla-deepseek-v3-prof-noprod"] = (base["mla-deepseek-v3"], ["EJK_TMP_MLA_PROF_NOS", "EJK_TMP_MLA_PROF_NOPV"])
extra["mla-deepseek-v3-prof-noprod-nostage"] = (base["mla-deepseek-v3"], ["EJK_TMP_MLA_PROF_NOS", "EJK_TMP_MLA_PROF_NOPV", "EJK_TMP_MLA_PROF_NOSTAGE"])
same = []
for name, (spec, names) in extra.items():
    env = dict(os.environ, **{n: "1" for n in names})
    src = os.path.join(D, "art", name + ".mlir")
    open(src, "w").write(mla.ir(*spec))
    out = os.path.join(D, "art", name)
    r = subprocess.run(["build/bin/ejkc", src, "--target", "vulkan", "--fingerprint",
                        "bench/results/h200/device.fingerprint", "--no-cache", "-o",
                        out, "--name", "kernel"], capture_output=True, text=True, env=env)
    if r.returncode:
        print(name, "FAILED " + r.stderr[:300]); continue
    # Which switch builds change the SPIR-V (only those are timed/checked).
    orig = [k for k, v in base.items() if v == spec][0]
    a = sorted(f for f in os.listdir(out) if f.endswith(".spv"))
    ident = all(open(os.path.join(out, f), "rb").read() ==
                open(os.path.join(D, "art", orig, f), "rb").read() for f in a)
    if ident and "prof" not in name:
        same.append(name)
        continue
    cases[name] = spec
print("identical to the tree (dropped):", same)
json.dump(cases, open(os.path.join(D, "cases.json"), "w"), indent=1)
PY
cp .b-mla/pipeline_stats $D/
cp bench/vulkan/moe.py $D/
# Timing order: the tree first and last (a copy of its artifact).
cp -r $D/art/mla-deepseek-v3 $D/art/mla-deepseek-v3-tree2
python3 - <<'PY'
import json
D = ".b-mla/s23"
c = json.load(open(D + "/cases.json"))
c["mla-deepseek-v3-tree2"] = c["mla-deepseek-v3"]
first = ["mla-deepseek-v3"]
order = first + [k for k in c if k not in first and k != "mla-deepseek-v3-tree2"] + ["mla-deepseek-v3-tree2"]
json.dump({k: c[k] for k in order}, open(D + "/cases.json", "w"), indent=1)
PY
