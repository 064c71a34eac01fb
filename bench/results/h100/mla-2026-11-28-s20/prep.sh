#!/bin/bash
# Prepares the device call (here): every mla.py variant with the tree, plus
# the *-nopf variants built with the temporary switch EJK_TMP_MLA_NOPF
# (nopf-switch.patch: each step loads and stages its own rows, nothing
# prefetched in registers), merged into one artifact dir.
set -e
cd /work/main
D=.b-mla/p
rm -rf $D .b-mla/pn
python3 bench/vulkan/mla.py prepare $D
python3 - <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, "bench/vulkan")
import mla
D = ".b-mla/p"
extra = {
    "mla-deepseek-v3-reg-nopf": (32, 128, 4096, 64, "bf16", mla.REG, 1),
    "mla-deepseek-v3-reg-h16-nopf": (32, 128, 4096, 64, "bf16", "block_k = 32, block_h = 16, cooperative = 2", 1),
    "mla-deepseek-v3-reg-h16-nopf-s2": (32, 128, 4096, 64, "bf16", "block_k = 32, block_h = 16, cooperative = 2, num_splits = 2", 1),
    "chk-reg-bf16-128h-splits-nopf": (3, 128, 1000, 16, "bf16", mla.REG + ", num_splits = 5", 1),
    "chk-reg-ragged-nopf": (5, 16, 300, 64, "f16", "block_k = 32, block_h = 16, cooperative = 2, num_splits = 2", 1),
}
env = dict(os.environ, EJK_TMP_MLA_NOPF="1")
cases = json.load(open(os.path.join(D, "cases.json")))
for name, spec in extra.items():
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
cp .b-mla/pipeline_stats $D/
cp bench/vulkan/moe.py $D/
