"""Group sizes and offsets the grouped matmuls must survive.

usage: moe_guards.py EJK_RUN WORKDIR [EJK_RUN_FLAGS...]

Runs ejk.grouped_matmul (f32 with 4-row tiles, so the work list has many
entries; f16 with transpose_rhs and an f32 result) and
ejk.transposed_grouped_matmul with group_offset and existing_out on inputs
that break the documented contract: negative sizes, sizes summing past the
rows, INT32_MAX and INT32_MIN sizes, offsets below 0 and past num_groups -
local_groups, all-empty groups. Each run is checked by ejk-run against the
reference evaluator (which defines the clamping); prints one line per run
and exits 1 if any differs.
"""
import os
import subprocess
import sys

import numpy as np

IR = """
func.func @fwd(%lhs: tensor<50x24xf32>, %rhs: tensor<3x24x20xf32>, %sizes: tensor<5xi32>, %offset: tensor<1xi32>, %acc: tensor<50x20xf32>) -> tensor<50x20xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes group_offset(%offset : tensor<1xi32>) existing_out(%acc : tensor<50x20xf32>) {config = #ejk.config<block_m = 4, block_n = 8, block_k = 4, num_subgroups = 1>}
      : tensor<50x24xf32>, tensor<3x24x20xf32>, tensor<5xi32> -> tensor<50x20xf32>
  return %out : tensor<50x20xf32>
}
func.func @fwd_f16(%lhs: tensor<50x24xf16>, %rhs: tensor<3x20x24xf16>, %sizes: tensor<5xi32>, %offset: tensor<1xi32>) -> tensor<50x20xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes group_offset(%offset : tensor<1xi32>) {transpose_rhs}
      : tensor<50x24xf16>, tensor<3x20x24xf16>, tensor<5xi32> -> tensor<50x20xf32>
  return %out : tensor<50x20xf32>
}
func.func @transposed(%lhs: tensor<50x24xf32>, %rhs: tensor<50x20xf32>, %sizes: tensor<5xi32>, %offset: tensor<1xi32>, %acc: tensor<3x24x20xf32>) -> tensor<3x24x20xf32> {
  %out = ejk.transposed_grouped_matmul %lhs, %rhs, %sizes group_offset(%offset : tensor<1xi32>) existing_out(%acc : tensor<3x24x20xf32>) {config = #ejk.config<block_m = 4, block_n = 8, block_k = 8, num_subgroups = 1>}
      : tensor<50x24xf32>, tensor<50x20xf32>, tensor<5xi32> -> tensor<3x24x20xf32>
  return %out : tensor<3x24x20xf32>
}
"""

CASES = [
    ([10, -3, 20, 5, 7], 1),
    ([30, 30, 30, -1, 2], 0),
    ([0, 0, 0, 0, 0], 2),
    ([5, 5, 5, 5, 5], -2),
    ([5, 5, 5, 5, 5], 4),
    ([5, 5, 5, 5, 5], 7),
    ([2147483647, 5, 5, 5, 5], 1),
    ([-2147483648, 60, 1, 1, 1], 1),
    ([1, 2, 3, 4, 5], 2),
]


def main():
    ejk_run, work = sys.argv[1], sys.argv[2]
    flags = sys.argv[3:]  # e.g. --target vulkan
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, "guards.mlir")
    # num_subgroups is Vulkan's only; the CPU takes the same small tiles.
    on_vulkan = "vulkan" in flags
    open(src, "w").write(IR if on_vulkan else IR.replace(", num_subgroups = 1", ""))
    rng = np.random.default_rng(0)
    failed = 0
    for entry in ("fwd", "fwd_f16", "transposed"):
        for sizes, offset in CASES:
            dt = np.float16 if entry == "fwd_f16" else np.float32
            lhs = rng.standard_normal((50, 24)).astype(dt)
            if entry == "transposed":
                rhs = rng.standard_normal((50, 20)).astype(dt)
                acc = rng.standard_normal((3, 24, 20)).astype(np.float32)
            else:
                shape = (3, 20, 24) if entry == "fwd_f16" else (3, 24, 20)
                rhs = rng.standard_normal(shape).astype(dt)
                acc = rng.standard_normal((50, 20)).astype(np.float32)
            arrays = [lhs, rhs, np.array(sizes, np.int32),
                      np.array([offset], np.int32)]
            if entry != "fwd_f16":
                arrays.append(acc)
            args = []
            for i, a in enumerate(arrays):
                path = os.path.join(work, f"in{i}.npy")
                np.save(path, a)
                args += ["--input", path]
            r = subprocess.run([ejk_run, src, "--entry", entry, "--check",
                                "--validate-inputs=false"] +
                               flags + args, capture_output=True, text=True)
            text = (r.stdout + r.stderr).strip()
            ok = (r.returncode == 0 and ": ok" in text and "FAILED" not in text)
            failed += not ok
            print(f"{entry} sizes={sizes} offset={offset}: "
                  + ("ok" if ok else "FAILED\n" + text))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
