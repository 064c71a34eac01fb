// RUN: not ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,subgroup_shuffle subgroup-size=32 cooperative-matrix=false shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches 2>&1 | FileCheck %s
// bf16 linear attention on a device without 16-bit integers: the heuristic
// tier's config is refused in the op's words (bf16 is read as i16 bit
// patterns), where the dispatch used to be refused in its own name by
// ejk-prepare-vulkan-kernels.

// CHECK: error: 'ejk.gla' op config #ejk.config<{{.*}}> from the heuristic tier is invalid for this target: bf16 buffers, read as 16-bit integers, need the device feature 'int16'
func.func @gla(%q: tensor<1x64x2x32xbf16>, %v: tensor<1x64x2x32xbf16>) -> tensor<1x64x2x32xbf16> {
  %o = ejk.gla %q, %q, %v g(%q : tensor<1x64x2x32xbf16>) : tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16> -> tensor<1x64x2x32xbf16>
  return %o : tensor<1x64x2x32xbf16>
}

// -----

// CHECK: error: 'ejk.delta_attention' op config #ejk.config<{{.*}}> from the heuristic tier is invalid for this target: bf16 buffers, read as 16-bit integers, need the device feature 'int16'
func.func @delta(%q: tensor<1x64x2x32xbf16>, %v: tensor<1x64x2x32xbf16>, %beta: tensor<1x64x2xbf16>) -> tensor<1x64x2x32xbf16> {
  %o = ejk.delta_attention %q, %q, %v, %beta decay(%beta : tensor<1x64x2xbf16>) : tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16>, tensor<1x64x2x32xbf16>, tensor<1x64x2xbf16> -> tensor<1x64x2x32xbf16>
  return %o : tensor<1x64x2x32xbf16>
}
