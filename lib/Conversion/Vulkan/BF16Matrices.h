//===- BF16Matrices.h - bf16 operand matrices in converted kernels -*- C++ -*-//
//
// The GPU dialect's MMA matrices have no bf16, so a kernel that multiplies
// bf16 data stages its bits and types its operand matrices f16, and marks
// itself (kMatrixOperandsAttrName). After the conversion to SPIR-V, these
// functions give the marked kernels' operand matrices their real type.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_CONVERSION_VULKAN_BF16MATRICES_H
#define EJK_CONVERSION_VULKAN_BF16MATRICES_H

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

namespace mlir::ejk {

/// Makes every f16 MatrixA / MatrixB cooperative matrix of `func` (values,
/// block arguments, pointers to them) bf16. Fails, with an error on the
/// op, when such a matrix reaches an op that SPV_KHR_bfloat16 does not
/// allow on bf16 (arithmetic, constants): a kernel may only load, store,
/// convert and multiply-add them.
LogicalResult retypeBF16Matrices(spirv::FuncOp func);

/// Whether `module` has a bf16 cooperative matrix anywhere.
bool usesBF16Matrices(spirv::ModuleOp module);

} // namespace mlir::ejk

#endif // EJK_CONVERSION_VULKAN_BF16MATRICES_H
