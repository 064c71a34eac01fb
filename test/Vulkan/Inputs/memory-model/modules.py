"""Validates and summarizes the SPIR-V modules ejkc wrote (test/Vulkan/
memory-model.test): for each DIR/*/*.spv, in order, one line

  <case>/<module>: valid|INVALID <cooperative|portable> <memory model>
      [VulkanMemoryModel] workgroup accesses private P non-private N
      barriers <execution scope>/<memory scope>/<semantics> ...

from spirv-val and spirv-dis of TOOLS (SPIRV-Tools 2025.5). A workgroup
access is an OpLoad, OpStore, OpCooperativeMatrixLoadKHR or
OpCooperativeMatrixStoreKHR through a pointer into Workgroup memory; it is
non-private with the NonPrivatePointer memory operand. Validator messages
follow an INVALID line. Exits 1 when a module is invalid.

  python3 modules.py TOOLS DIR
"""
import glob
import os
import re
import subprocess
import sys

tools, root = sys.argv[1], sys.argv[2]
failed = False
for spv in sorted(glob.glob(os.path.join(root, "*", "*.spv"))):
    name = os.path.relpath(spv, root)
    val = subprocess.run([os.path.join(tools, "spirv-val"), "--target-env",
                          "vulkan1.3", spv], capture_output=True, text=True)
    text = subprocess.run([os.path.join(tools, "spirv-dis"), spv],
                          capture_output=True, text=True, check=True).stdout
    lines = text.splitlines()
    constants = dict(re.findall(r"(%\S+) = OpConstant %uint (\d+)", text))
    pointer_types = set(re.findall(r"(%\S+) = OpTypePointer Workgroup", text))
    workgroup = set(re.findall(r"(%\S+) = OpVariable %\S+ Workgroup", text))
    for line in lines:
        m = re.match(r"\s*(%\S+) = Op(?:InBounds)?AccessChain (%\S+) ", line)
        if m and m[2] in pointer_types:
            workgroup.add(m[1])
    private = non_private = 0
    barriers = []
    for line in lines:
        words = line.split()
        pointer = None
        if len(words) > 4 and words[2] in ("OpLoad",
                                           "OpCooperativeMatrixLoadKHR"):
            pointer = words[4]
        elif words and words[0] in ("OpStore", "OpCooperativeMatrixStoreKHR"):
            pointer = words[1]
        if pointer in workgroup:
            if "NonPrivatePointer" in line:
                non_private += 1
            else:
                private += 1
        if words and words[0] in ("OpControlBarrier", "OpMemoryBarrier"):
            values = [constants.get(w, w) for w in words[1:]]
            values[-1] = hex(int(values[-1]))
            barriers.append("/".join(values))
    model = re.search(r"OpMemoryModel Logical (\w+)", text)[1]
    summary = [
        name + ":", "valid" if val.returncode == 0 else "INVALID",
        "cooperative" if "OpCapability CooperativeMatrixKHR" in text
        else "portable", model
    ]
    if "OpCapability VulkanMemoryModel" in text:
        summary.append("VulkanMemoryModel")
    summary += ["workgroup accesses private", str(private), "non-private",
                str(non_private), "barriers"]
    summary += sorted(set(barriers)) or ["none"]
    print(" ".join(summary))
    if val.returncode != 0:
        failed = True
        print(val.stderr.strip())
sys.exit(1 if failed else 0)
