# The prepared (not run) second call of the time-segments scan, 2026-11-28.
# Here, from the committed tree (cc05263 or later):
#   python3 bench/vulkan/ssm.py prepare .b-ssm/run2 bench/results/h200/device.fingerprint
#   (apply segments-call2-phase-drop-switch.patch, rebuild ejkc)
#   python3 bench/results/h200/ssm-2026-11-28/prep-drop-call2.py .b-ssm/run2
#       (its *_v1 copies need call 1's .b-ssm/run/art; leave them out otherwise)
#   (revert it, apply segments-two-ahead-untimed.patch, rebuild ejkc)
#   python3 bench/results/h200/ssm-2026-11-28/prep-call2.py .b-ssm/run2
#   (revert it, rebuild ejkc)
# There (one device call, carry .gl and .b-ssm/run2):
#   for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig;
#   SSM_ONLY='^(mamba1$|mamba1_f16$|mamba1_ts|mamba1_f16_ts|chk_scan_ts|chk_scan_all_f32$|chk_ssd_cp_f32$)' \
#     python3 .b-ssm/run2/ssm.py run .b-ssm/run2 > $OUT/ssm.log 2>&1; cp .b-ssm/run2/ssm.json $OUT/
# This script: the *_a2 variants (delta, u and z fetched two chunks ahead,
# EJK_SEG_AHEAD2 of the temporary patch) merged into DIR's cases.json.
import json, os, subprocess, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "vulkan"))
import ssm
out = sys.argv[1]
root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", ".."))
fp = os.path.join(root, "bench/results/h200/device.fingerprint")
v = ssm.variants()
cases = json.load(open(os.path.join(out, "cases.json")))
for base in ("mamba1_ts16s4_c64_bd8", "mamba1_ts8s4_c32_bd8", "mamba1_ts8s2_c32_bd16",
             "mamba1_ts8s4_c64_bd8", "mamba1_ts8s8_c32_bd4", "mamba1_ts4s4_c32_bd8"):
    name = base + "_a2"
    src = os.path.join(out, "art", name + ".mlir")
    open(src, "w").write(ssm.ir(*v[base]))
    r = subprocess.run([os.path.join(root, "build/bin/ejkc"), src, "--target", "vulkan",
                        "--fingerprint", fp, "--no-cache", "-o", os.path.join(out, "art", name),
                        "--name", "kernel"], capture_output=True, text=True,
                       env=dict(os.environ, EJK_SEG_AHEAD2="1"))
    print(name, r.returncode)
    if not r.returncode:
        cases[name] = list(v[base])
json.dump(cases, open(os.path.join(out, "cases.json"), "w"), indent=1)
