#!/bin/bash
# Session 23, call 2 (helper "mla"): the kernel as committed after call 1
# (rows past the end clamped, not zeroed; score roles by output head tile
# with the own part from registers; the next step's page carried in the
# loop state) against the tree before it (session 22's artifacts,
# .b-lead/mla, cmp-identical to call 1's tree) and against the same kernel
# without the page ahead (temporary switch EJK_TMP_MLA_NOPAGEAHEAD, "-nop").
set -e
cd /work/main
D=.b-mla/s23b
rm -rf $D
python3 bench/vulkan/mla.py prepare $D bench/results/h200/device.fingerprint > /dev/null
python3 - <<'PY'
import json, os, subprocess, sys, shutil
sys.path.insert(0, "bench/vulkan")
import mla
D = ".b-mla/s23b"; T = ".b-lead/mla/art"
cases = json.load(open(os.path.join(D, "cases.json")))
base = mla.variants()
changed = []
for k in base:
    a = sorted(f for f in os.listdir(os.path.join(D, "art", k)) if f.endswith(".spv"))
    if not all(open(os.path.join(D, "art", k, f), "rb").read() ==
               open(os.path.join(T, k, f), "rb").read() for f in a):
        changed.append(k)
print("SPIR-V changed against the tree:", changed)
print("unchanged:", [k for k in base if k not in changed])
order = {}
timed = ["mla-deepseek-v3", "mla-deepseek-v3-f16", "mla-dense-f16", "mla-b4-f16",
         "mla-16h-f16", "mla-deepseek-v3-pipe", "mla-deepseek-v3-f16-pipe", "mla-b4-f16-pipe"]
for k in timed:
    shutil.copytree(os.path.join(T, k), os.path.join(D, "art", k + "-tree"))
    order[k + "-tree"] = base[k]
for k in timed:
    order[k] = base[k]
    name = k + "-nop"
    src = os.path.join(D, "art", name + ".mlir")
    open(src, "w").write(mla.ir(*base[k]))
    env = dict(os.environ, EJK_TMP_MLA_NOPAGEAHEAD="1")
    r = subprocess.run(["build/bin/ejkc", src, "--target", "vulkan", "--fingerprint",
                        "bench/results/h200/device.fingerprint", "--no-cache", "-o",
                        os.path.join(D, "art", name), "--name", "kernel"],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    same = all(open(os.path.join(D, "art", name, f), "rb").read() ==
               open(os.path.join(D, "art", k, f), "rb").read()
               for f in os.listdir(os.path.join(D, "art", k)) if f.endswith(".spv"))
    if not same:
        order[name] = base[k]
for k in timed:
    shutil.copytree(os.path.join(D, "art", k + "-tree"), os.path.join(D, "art", k + "-tree2"))
order["mla-deepseek-v3-tree2"] = base["mla-deepseek-v3"]
shutil.rmtree(os.path.join(D, "art", "mla-deepseek-v3-f16-tree2"))
for k in timed[1:]:
    shutil.rmtree(os.path.join(D, "art", k + "-tree2"), ignore_errors=True)
# The chk cases of every changed config, and of the -nop builds.
for k in changed:
    if k.startswith("chk"):
        order[k] = base[k]
for k in changed:
    if k.startswith("chk"):
        name = k + "-nop"
        src = os.path.join(D, "art", name + ".mlir")
        open(src, "w").write(mla.ir(*base[k]))
        env = dict(os.environ, EJK_TMP_MLA_NOPAGEAHEAD="1")
        r = subprocess.run(["build/bin/ejkc", src, "--target", "vulkan", "--fingerprint",
                            "bench/results/h200/device.fingerprint", "--no-cache", "-o",
                            os.path.join(D, "art", name), "--name", "kernel"],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        same = all(open(os.path.join(D, "art", name, f), "rb").read() ==
                   open(os.path.join(D, "art", k, f), "rb").read()
                   for f in os.listdir(os.path.join(D, "art", k)) if f.endswith(".spv"))
        if not same:
            order[name] = base[k]
json.dump(order, open(os.path.join(D, "cases.json"), "w"), indent=1)
print(list(order))
PY
cp .b-mla/pipeline_stats $D/
cp bench/vulkan/moe.py $D/
