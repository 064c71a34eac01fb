"""Prepares the ssm helper's device call (issue 21, session 20): the
channel-lanes variants beside the heuristic from bench/vulkan/ssm.py, and
phase-drop variants compiled with a temporary build switch
(EJK_SSM_DROP, drop.patch; never committed)."""
import json, os, re, subprocess, sys
ROOT = "/work/main"
sys.path.insert(0, os.path.join(ROOT, "bench/vulkan"))
import ssm, ejk_runtime

out = sys.argv[1]
mode = sys.argv[2]  # "main" or "drop"
fp = os.path.join(ROOT, "bench/vulkan/h100.fingerprint")
keep = re.compile(r"^(mamba1|mamba1_split|mamba1_tl16s2_c128_bd16|mamba1_cl_.*|mamba1_f16|"
                  r"mamba1_f16_cl_.*|chk_scan_cl_.*|chk_scan_all_f32|chk_scan_tls_f32|chk_ssd_all_f32)$")
v = {k: s for k, s in ssm.variants().items() if keep.search(k)}
if mode == "main":
    ejk_runtime.prepare(out, fp, v, ssm.ir, ssm.__file__)
    sys.exit(0)
# Drop variants: the base configs with one phase removed (outputs wrong by design).
drops = {}
for base in ("mamba1_cl_s128_bd32_c2_p0", "mamba1_cl_s128_bd32_c2_p4"):
    for m in (("noexp", "noscan", "nofold", "noy") if base.endswith("p0") else ("noy",)):
        drops[f"drop_{m}_{base[7:]}"] = (m, v[base])
ejkc = os.path.join(ROOT, "build/bin/ejkc")
cases = json.load(open(os.path.join(out, "cases.json")))
for name, (m, spec) in drops.items():
    src = os.path.join(out, "art", name + ".mlir")
    open(src, "w").write(ssm.ir(*spec))
    r = subprocess.run([ejkc, src, "--target", "vulkan", "--fingerprint", fp, "--no-cache",
                        "-o", os.path.join(out, "art", name), "--name", "kernel"],
                       capture_output=True, text=True, env=dict(os.environ, EJK_SSM_DROP=m))
    print(name, "FAILED " + r.stderr[:300] if r.returncode else "ok")
    if not r.returncode:
        cases[name] = spec
json.dump(cases, open(os.path.join(out, "cases.json"), "w"), indent=1)
