"""Prepares the next channel-lanes call (fetch_ahead; not made by the ssm
helper: its call limit was reached): the heuristic, the previous best
channel-lanes config and the fetch_ahead variants of bench/vulkan/ssm.py,
with the chk cases. python3 prep2.py DIR (from the repository root)."""
import os, re, sys
ROOT = "/work/main"
sys.path.insert(0, os.path.join(ROOT, "bench/vulkan"))
import ssm, ejk_runtime

keep = re.compile(r"^(mamba1|mamba1_cl_s128_bd32_c4_p0|mamba1_cl_s128_bd32_c2_p0|mamba1_cl_.*_a\d+(_p\d+|_cp)?|"
                  r"chk_scan_cl_.*|chk_scan_all_f32)$")
v = {k: s for k, s in ssm.variants().items() if keep.search(k)}
ejk_runtime.prepare(sys.argv[1], os.path.join(ROOT, "bench/vulkan/h100.fingerprint"), v, ssm.ir,
                    ssm.__file__)
