#!/usr/bin/env python3
"""An ejk artifact whose attention dispatch is a cm2_fa.py kernel (issue 21).

Takes the artifact ejkc wrote for a flash_attention workload (its manifest:
buffers q, k, v, o at bindings 0-3, no push constants, the same [B, S, H, D]
layout as cm2_fa.py) and writes a copy whose one dispatch runs the given
VK_NV_cooperative_matrix2 SPIR-V: grid (S / br, H, B), the kernel's
workgroup size, `requires` with cooperative_matrix2. The runtime then
enables the extension (lib/Runtime/VulkanDevice.cpp) and ejk-bench-run or
bench/gpu.py run it like any artifact. A bench tool until the compiler
emits the kernel itself.

  cm2_artifact.py SRC/d128.json kernel.spv BR THREADS OUTDIR
"""
import json
import os
import shutil
import sys


def main():
    src, spv, br, threads, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    manifest = json.load(open(src))
    entry, = manifest["entries"]
    dispatch, = entry["dispatches"]
    B, S, H, D = entry["buffers"][0]["shape"]
    os.makedirs(out, exist_ok=True)
    name = os.path.basename(spv)
    shutil.copy(spv, os.path.join(out, name))
    dispatch.update({
        "spirv": name, "entry_point": "main", "grid": [S // br, H, B],
        "workgroup_size": [threads, 1, 1], "shared_memory_bytes": 0,
        "requires": ["cooperative_matrix", "cooperative_matrix2", "float16", "storage16",
                     "vulkan_memory_model"]})
    with open(os.path.join(out, os.path.basename(src)), "w") as f:
        json.dump(manifest, f, indent=2)


if __name__ == "__main__":
    main()
