#!/bin/bash
# Prepares call 2 (here): mla.py's variants with the tree, plus the
# DeepSeek-V3 bf16 decode and chk cases built with the temporary switches
# of call2-switches.patch (EJK_TMP_MLA_LATE: the next step's loads issued
# after the score products; _ACC3: three accumulator chains; _MASKLAST:
# only a step that reaches past the end masked; _LAZY: the lazy rescale),
# one at a time and all four.
set -e
cd /work/main
D=.b-mla/q
rm -rf $D
python3 bench/vulkan/mla.py prepare $D
python3 - <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, "bench/vulkan")
import mla
D = ".b-mla/q"
cases = json.load(open(os.path.join(D, "cases.json")))
base = {k: v for k, v in mla.variants().items()}
sw = {"late": ["EJK_TMP_MLA_LATE"], "acc3": ["EJK_TMP_MLA_ACC3"],
      "masklast": ["EJK_TMP_MLA_MASKLAST"], "lazy": ["EJK_TMP_MLA_LAZY"],
      "all": ["EJK_TMP_MLA_LATE", "EJK_TMP_MLA_ACC3", "EJK_TMP_MLA_MASKLAST", "EJK_TMP_MLA_LAZY"]}
extra = {}
for tag, names in sw.items():
    extra[f"mla-deepseek-v3-{tag}"] = (base["mla-deepseek-v3"], names)
    chks = [k for k in base if k.startswith("chk-reg")] if tag == "all" else \
        ["chk-reg-bf16-128h-splits", "chk-reg-causal", "chk-reg-bf16-ragged"]
    for k in chks:
        extra[f"{k}-{tag}"] = (base[k], names)
# Profile (time only, wrong outputs): no score products, no P V products,
# neither.
extra["mla-deepseek-v3-prof-nos"] = (base["mla-deepseek-v3"], ["EJK_TMP_MLA_PROF_NOS"])
extra["mla-deepseek-v3-prof-nopv"] = (base["mla-deepseek-v3"], ["EJK_TMP_MLA_PROF_NOPV"])
extra["mla-deepseek-v3-prof-noprod"] = (base["mla-deepseek-v3"], ["EJK_TMP_MLA_PROF_NOS", "EJK_TMP_MLA_PROF_NOPV"])
extra["mla-deepseek-v3-f16-all"] = (base["mla-deepseek-v3-f16"], sw["all"])
extra["mla-dense-f16-all"] = (base["mla-dense-f16"], sw["all"])
for name, (spec, names) in extra.items():
    env = dict(os.environ, **{n: "1" for n in names})
    src = os.path.join(D, "art", name + ".mlir")
    open(src, "w").write(mla.ir(*spec))
    r = subprocess.run(["build/bin/ejkc", src, "--target", "vulkan", "--fingerprint",
                        "bench/vulkan/h100.fingerprint", "--no-cache", "-o",
                        os.path.join(D, "art", name), "--name", "kernel"],
                       capture_output=True, text=True, env=env)
    print(name, "FAILED " + r.stderr[:300] if r.returncode else "ok")
    if not r.returncode:
        cases[name] = spec
json.dump(cases, open(os.path.join(D, "cases.json"), "w"), indent=1)
PY
# The committed kernel's artifact (timed in call 1: 309 us), beside the
# switch build's (whose masks are emitted in another order).
cp -r .b-mla/h/art/mla-deepseek-v3 $D/art/mla-deepseek-v3-committed
python3 - <<'PY'
import json
D = ".b-mla/q"
cases = json.load(open(D + "/cases.json"))
cases = {"mla-deepseek-v3-committed": cases["mla-deepseek-v3"], **cases}
json.dump(cases, open(D + "/cases.json", "w"), indent=1)
PY
cp .b-mla/pipeline_stats $D/
cp bench/vulkan/moe.py $D/
