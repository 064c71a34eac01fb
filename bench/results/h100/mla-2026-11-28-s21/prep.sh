#!/bin/bash
# Session 21, helper "mla": prepares the one device call (here). Every
# mla.py variant with the tree (incl. the new cooperative = 3 kernel), plus
# builds with temporary switches of switches.patch, read by ejkc from the
# environment (never committed):
#   EJK_TMP_MLA_PARTS  cooperative = 2 with the score parts side by side in
#                      16 rows 136 floats apart (conflict-free f32 matrix
#                      loads/stores; cooperative = 3 always has it)
#   EJK_TMP_MLA_PAGE   cooperative = 2 with one page lookup per step
#                      (cooperative = 3 always has it)
#   EJK_TMP_MLA_PROF_NOS / _NOPV  profile (wrong outputs): no score / no
#                      P V products
#   EJK_TMP_MLA_PVFIRST cooperative = 3 with the last step's P V emitted
#                      before the score products of phase 1
#   EJK_TMP_MLA_SMFIRST cooperative = 3 with the softmax emitted before the
#                      row stores and loads of phase 2
set -e
cd /work/main
D=.b-mla/r
rm -rf $D
python3 bench/vulkan/mla.py prepare $D
python3 - <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, "bench/vulkan")
import mla
D = ".b-mla/r"
base = mla.variants()
cases = json.load(open(os.path.join(D, "cases.json")))
P, G = "EJK_TMP_MLA_PARTS", "EJK_TMP_MLA_PAGE"
S, V = "EJK_TMP_MLA_PROF_NOS", "EJK_TMP_MLA_PROF_NOPV"
F, M = "EJK_TMP_MLA_PVFIRST", "EJK_TMP_MLA_SMFIRST"
extra = {
    "mla-deepseek-v3-parts": ("mla-deepseek-v3", [P]),
    "mla-deepseek-v3-page": ("mla-deepseek-v3", [G]),
    "mla-deepseek-v3-parts-page": ("mla-deepseek-v3", [P, G]),
    "mla-deepseek-v3-f16-parts-page": ("mla-deepseek-v3-f16", [P, G]),
    "mla-dense-f16-parts": ("mla-dense-f16", [P]),
    "mla-b4-f16-parts-page": ("mla-b4-f16", [P, G]),
    "mla-deepseek-v3-pipe-nos": ("mla-deepseek-v3-pipe", [S]),
    "mla-deepseek-v3-pipe-nopv": ("mla-deepseek-v3-pipe", [V]),
    "mla-deepseek-v3-pipe-noprod": ("mla-deepseek-v3-pipe", [S, V]),
    "mla-deepseek-v3-pipe-pvfirst": ("mla-deepseek-v3-pipe", [F]),
    "mla-deepseek-v3-pipe-smfirst": ("mla-deepseek-v3-pipe", [M]),
    "chk-pipe-bf16-ragged-pvfirst": ("chk-pipe-bf16-ragged", [F]),
    "chk-pipe-128h-splits-pvfirst": ("chk-pipe-128h-splits", [F]),
    "chk-pipe-bf16-ragged-smfirst": ("chk-pipe-bf16-ragged", [M]),
    "chk-pipe-128h-splits-smfirst": ("chk-pipe-128h-splits", [M]),
}
for k in ("ragged", "128h-splits", "causal", "dense", "h16-q2"):
    for dt in ("", "-bf16"):
        extra[f"chk-reg{dt}-{k}-parts-page"] = (f"chk-reg{dt}-{k}", [P, G])
for name, (src_name, names) in extra.items():
    spec = base[src_name]
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
du -sb --apparent-size $D
