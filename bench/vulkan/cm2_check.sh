#!/bin/sh
# Device checks of the VK_NV_cooperative_matrix2 attention (issue 21), in
# the manner of bench/vulkan/check.sh: the cases of bench/vulkan/cm2-check.mlir
# compiled here for the device's saved fingerprint with the reference
# evaluator's outputs; of the full config space only the cm2 candidates
# (cm2 = 1-4) and the heuristic's (the KHR kernel) are kept.
#
#   here:   sh bench/vulkan/cm2_check.sh DIR [FINGERPRINT]
#   there:  LD_LIBRARY_PATH=DIR/lib DIR/ejk-tune-runner DIR/cm2-check --runs 2 --force
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$1
fingerprint=${2:-$root/bench/results/h200/device.fingerprint}
mkdir -p "$dir/lib"
rm -rf "$dir/cm2-check"
"$root/build/bin/ejk-tune" "$root/bench/vulkan/cm2-check.mlir" --space full \
  --emit-candidates "$dir/cm2-check" --fingerprint "$fingerprint"
python3 - "$dir/cm2-check" <<'PY'
import json, os, shutil, sys
d = sys.argv[1]
plan = json.load(open(os.path.join(d, "plan.json")))
kept = 0
for p in plan["problems"]:
    keep = [c for c in p["candidates"] if "cm2" in c["config"] or c["config"] == p["heuristic"]]
    for c in p["candidates"]:
        if c not in keep:
            shutil.rmtree(os.path.join(d, os.path.dirname(c["manifest"])))
    p["candidates"] = keep
    kept += len(keep)
    assert sum("cm2" in c["config"] for c in keep) == 4, p["key"]
json.dump(plan, open(os.path.join(d, "plan.json"), "w"), indent=1)
print(f"kept {kept} candidates of {len(plan['problems'])} problems")
PY
cp "$root/build/bin/ejk-tune-runner" "$dir/"
cp "$root/build/lib/Runtime/libejk_runtime.so.1" "$dir/lib/"
du -sh "$dir"
