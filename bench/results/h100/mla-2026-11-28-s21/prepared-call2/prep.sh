#!/bin/bash
# Prepared follow-up call (helper "mla", session 21; NOT run by the helper):
# builds the artifacts here with the switches of switches.patch applied
# (git apply bench/results/h100/mla-2026-11-28-s21/prepared-call2/switches.patch,
# build ejkc), into .b-mla/r2. Switches (read by ejkc from the environment):
#   EJK_TMP_MLA_NOPAGE   the page looked up per word again (the kernel as
#                        it was before bd57155: the same-call baseline)
#   EJK_TMP_MLA_ROWADDR  the rows' addresses from one base a step (row r at
#                        base + min(r, last row) * row words + word)
#   EJK_TMP_MLA_ACC3     three accumulator chains in the score products
#   EJK_TMP_MLA_LATE     the next step's loads after the score products
set -e
cd /work/main
D=.b-mla/r2
rm -rf $D
python3 - <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, "bench/vulkan")
import mla, ejk_runtime
D = ".b-mla/r2"
base = mla.variants()
keep = {k: v for k, v in base.items()
        if k in ("mla-deepseek-v3", "mla-deepseek-v3-f16", "mla-b4-f16", "mla-16h-f16")
        or k.startswith("chk-reg")}
# Checks on pages of 64 (the page lookup's path at 32-token steps).
keep["chk-reg-bf16-128h-p64"] = (3, 128, 1000, 64, "bf16", mla.REG + ", num_splits = 5", 1)
keep["chk-reg-causal-p64"] = (3, 32, 200, 64, "f16", mla.REG, 3)
keep["chk-reg-bf16-causal-p64"] = (3, 32, 200, 64, "bf16", mla.REG, 3)
ejk_runtime.prepare(D, "bench/vulkan/h100.fingerprint", keep, mla.ir, "bench/vulkan/mla.py")
cases = json.load(open(os.path.join(D, "cases.json")))
N, A, C, L = "EJK_TMP_MLA_NOPAGE", "EJK_TMP_MLA_ROWADDR", "EJK_TMP_MLA_ACC3", "EJK_TMP_MLA_LATE"
extra = {
    "mla-deepseek-v3-nopage": ("mla-deepseek-v3", [N]),
    "mla-deepseek-v3-rowaddr": ("mla-deepseek-v3", [A]),
    "mla-deepseek-v3-acc3": ("mla-deepseek-v3", [C]),
    "mla-deepseek-v3-late": ("mla-deepseek-v3", [L]),
    "mla-deepseek-v3-all": ("mla-deepseek-v3", [A, C, L]),
    "mla-deepseek-v3-f16-nopage": ("mla-deepseek-v3-f16", [N]),
    "mla-b4-f16-nopage": ("mla-b4-f16", [N]),
    "mla-16h-f16-nopage": ("mla-16h-f16", [N]),
}
for k in ("chk-reg-ragged", "chk-reg-bf16-ragged", "chk-reg-bf16-128h-p64",
          "chk-reg-causal-p64", "chk-reg-bf16-causal-p64"):
    extra[k + "-rowaddr"] = (k, [A])
    extra[k + "-all"] = (k, [A, C, L])
for name, (src_name, names) in extra.items():
    spec = keep[src_name]
    env = dict(os.environ, **{n: "1" for n in names})
    src = os.path.join(D, "art", name + ".mlir")
    open(src, "w").write(mla.ir(*spec))
    r = subprocess.run(["build/bin/ejkc", src, "--target", "vulkan", "--fingerprint",
                        "bench/vulkan/h100.fingerprint", "--no-cache", "-o",
                        os.path.join(D, "art", name), "--name", "kernel"],
                       capture_output=True, text=True, env=env)
    print(name, "FAILED " + r.stderr[:300] if r.returncode else "ok")
    if not r.returncode:
        cases[name] = list(spec)
json.dump(cases, open(os.path.join(D, "cases.json"), "w"), indent=1)
PY
cp .b-mla/pipeline_stats $D/
cp bench/vulkan/moe.py $D/
cp bench/results/h100/mla-2026-11-28-s21/prepared-call2/dev.sh $D/
du -sb --apparent-size $D
