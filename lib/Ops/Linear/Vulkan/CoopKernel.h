//===- CoopKernel.h - the cooperative chunk-parallel gla kernels -*- C++
//-*-===//
//
// The base of gla's cooperative-matrix update and outputs (`cooperative`
// = 1, 2; CoopUpdate.cpp, CoopOutputs.cpp): ChunkKernel with the matrix
// helpers of CoopMatrices.h.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_COOPKERNEL_H
#define EJK_OPS_LINEAR_VULKAN_COOPKERNEL_H

#include "Linear/Vulkan/ChunkKernel.h"
#include "Linear/Vulkan/CoopMatrices.h"

namespace mlir::ejk::chunk_parallel {

class CoopKernel : public CoopMatrices<ChunkKernel> {
public:
  using CoopMatrices::CoopMatrices;

protected:
  static constexpr int64_t kT = VulkanGlaChunkLayout::kMatrix;
  static_assert(kT == CoopMatrices::kT, "16x16 matrices");
};

} // namespace mlir::ejk::chunk_parallel

#endif // EJK_OPS_LINEAR_VULKAN_COOPKERNEL_H
