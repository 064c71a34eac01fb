//===- VulkanMatrices.h - 16-byte views and matrix loads on Vulkan -*- C++
//-*-===//
//
// What every cooperative-matrix kernel (attention forward and backward, MLA,
// paged prefill, MoE) does the same way: a dispatch buffer seen as 16-byte
// vector<4xi32> words (the same binding, which ejk-prepare-vulkan-kernels
// declares a second time), and 16x16 matrices loaded from such words or
// from a scalar stage, with offsets and leading dimensions given in the
// elements the kernel thinks in.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_COMMON_VULKANMATRICES_H
#define EJK_OPS_COMMON_VULKANMATRICES_H

#include "Common/CpuEmitter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::ejk {

/// The 16-byte word a view is made of.
inline VectorType wordType(Emitter &e) {
  return VectorType::get({4}, e.b.getI32Type());
}

/// `buffer` (a dispatch argument) as a 1-D memref of 16-byte words;
/// `perWord` of its elements make a word (8 for f16, 16 for i8).
inline Value wordView(Emitter &e, Value buffer, int64_t perWord) {
  auto type = cast<MemRefType>(buffer.getType());
  auto viewType =
      MemRefType::get({type.getNumElements() / perWord}, wordType(e));
  return UnrealizedConversionCastOp::create(e.b, TypeRange{viewType},
                                            ValueRange{buffer})
      .getResult(0);
}

/// A 16x16 matrix of `type` at element `offset` of `memref`, rows `lead`
/// elements apart (column-major when `transpose`). In a memref of words,
/// `offset` and `lead` count f16 elements (multiples of 8) and are turned
/// into words here.
inline Value loadMatrix(Emitter &e, Type type, Value memref, Value offset,
                        int64_t lead, bool transpose) {
  constexpr int64_t halvesPerWord = 8;
  if (isa<VectorType>(cast<MemRefType>(memref.getType()).getElementType())) {
    offset = arith::DivUIOp::create(e.b, offset, e.index(halvesPerWord));
    lead /= halvesPerWord;
  }
  return gpu::SubgroupMmaLoadMatrixOp::create(
      e.b, type, memref, ValueRange{offset}, e.b.getIndexAttr(lead),
      transpose ? e.b.getUnitAttr() : UnitAttr());
}

/// `value` (f32) as an element of an operand matrix the kernel writes
/// itself (attention's P): f16, or for bf16 inputs (`inputType`) the bits
/// of its bf16 rounding, typed f16 as the GPU dialect's matrices are (the
/// dispatch is marked with DispatchRewriter::setBF16Matrices).
inline Value operandBits(Emitter &e, Value value, Type inputType) {
  Type f16 = e.b.getF16Type();
  if (!inputType.isBF16())
    return e.fromF32(value, f16);
  return arith::BitcastOp::create(e.b, f16,
                                  e.fromF32(value, e.b.getBF16Type()));
}

/// A 1-D buffer of `elements` of `type` in workgroup memory.
inline Value allocWorkgroupOf(Emitter &e, int64_t elements, Type type) {
  auto space = gpu::AddressSpaceAttr::get(e.b.getContext(),
                                          gpu::AddressSpace::Workgroup);
  return memref::AllocOp::create(
      e.b,
      MemRefType::get({elements}, type, MemRefLayoutAttrInterface(), space));
}

} // namespace mlir::ejk

#endif // EJK_OPS_COMMON_VULKANMATRICES_H
