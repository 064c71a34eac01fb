//===- Passes.h - bufferization and tiling passes ---------------*- C++ -*-===//

#ifndef EJK_TRANSFORMS_PASSES_H
#define EJK_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::ejk {

#define GEN_PASS_DECL
#include "ejk/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ejk/Transforms/Passes.h.inc"

/// Attribute names of the dispatch ABI.
constexpr StringLiteral kEntryAttrName = "ejk.entry";
constexpr StringLiteral kDispatchAttrName = "ejk.dispatch";
constexpr StringLiteral kGridAttrName = "ejk.grid";
/// On entries: how many leading arguments are inputs (the rest are outputs).
constexpr StringLiteral kNumInputsAttrName = "ejk.num_inputs";
/// On dispatches: floating-point operations and bytes moved per run.
constexpr StringLiteral kFlopsAttrName = "ejk.flops";
constexpr StringLiteral kBytesAttrName = "ejk.bytes";
/// On Vulkan dispatches: invocations per workgroup (x, y, z) and the bytes
/// of workgroup memory the kernel declares.
constexpr StringLiteral kWorkgroupSizeAttrName = "ejk.workgroup_size";
constexpr StringLiteral kSharedMemoryAttrName = "ejk.shared_memory_bytes";
/// On Vulkan dispatches: "bf16" when the operand matrices (A and B of
/// gpu.subgroup_mma_compute, typed f16 because the GPU dialect has no bf16
/// matrices) hold bf16 values; ejk-convert-to-spirv retypes them.
constexpr StringLiteral kMatrixOperandsAttrName = "ejk.matrix_operands";

} // namespace mlir::ejk

#endif // EJK_TRANSFORMS_PASSES_H
