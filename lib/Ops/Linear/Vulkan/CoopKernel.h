//===- CoopKernel.h - the cooperative chunk-parallel gla kernels -*- C++
//-*-===//
//
// What the cooperative-matrix update and outputs (`cooperative = 1`;
// CoopUpdate.cpp, CoopOutputs.cpp) share beyond ChunkKernel: the 16x16
// f16 x f16 -> f32 matrix types, the subgroup of the thread, a subgroup's
// share of a grid of result tiles, and the write of a result tile through
// the subgroup's 16x16 f32 stage.
//
// A grid of `total` result tiles is dealt to the subgroups round-robin:
// subgroup g takes tiles g, g + n, g + 2n, ... (n subgroups); a subgroup
// with fewer tiles than `slots` computes its last one again (the index is
// clamped) and does not write it.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_COOPKERNEL_H
#define EJK_OPS_LINEAR_VULKAN_COOPKERNEL_H

#include "Common/VulkanMatrices.h"
#include "Linear/Vulkan/ChunkKernel.h"

namespace mlir::ejk::chunk_parallel {

class CoopKernel : public ChunkKernel {
public:
  CoopKernel(OpBuilder &builder, Location loc, const GlaProblem &p,
             const VulkanGlaChunkLayout &l, const GlaBuffers &buf,
             const Temporaries &tmp)
      : ChunkKernel(builder, loc, p, l, buf, tmp) {
    MLIRContext *context = builder.getContext();
    f16 = Float16Type::get(context);
    aType = gpu::MMAMatrixType::get({kT, kT}, f16, "AOp");
    bType = gpu::MMAMatrixType::get({kT, kT}, f16, "BOp");
    cType = gpu::MMAMatrixType::get({kT, kT}, e.f32, "COp");
  }

protected:
  static constexpr int64_t kT = VulkanGlaChunkLayout::kMatrix;

  void beginCoop() {
    begin();
    subgroup = arith::DivUIOp::create(e.b, thread, e.index(l.subgroupSize));
    lane = arith::RemUIOp::create(e.b, thread, e.index(l.subgroupSize));
  }

  Value zeroMatrix() {
    return gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType,
                                                    e.constF32(0.0f));
  }

  Value mma(Value a, Value b, Value c) {
    return gpu::SubgroupMmaComputeOp::create(e.b, a, b, c, UnitAttr(),
                                             UnitAttr());
  }

  /// The subgroup's `slot`-th tile of a grid of `total` (clamped).
  Value tileOf(int64_t slot, int64_t total) {
    Value tile = e.add(subgroup, e.index(slot * l.subgroups()));
    return e.min(tile, e.index(total - 1));
  }

  /// Whether the subgroup's `slot`-th tile exists.
  Value ownsTile(int64_t slot, int64_t total) {
    Value tile = e.add(subgroup, e.index(slot * l.subgroups()));
    return cmp(arith::CmpIPredicate::slt, tile, e.index(total));
  }

  /// Writes `matrix` through the subgroup's 16x16 part of `stage` (f32):
  /// `write(r, c, value)` for each of its elements, the lanes taking
  /// 256 / subgroup size each. Every subgroup calls it the same number of
  /// times (it holds barriers).
  void writeMatrix(Value matrix, Value stage,
                   function_ref<void(Value, Value, Value)> write) {
    Value base = e.mul(subgroup, e.index(kT * kT));
    gpu::SubgroupMmaStoreMatrixOp::create(e.b, matrix, stage, ValueRange{base},
                                          e.b.getIndexAttr(kT), UnitAttr());
    gpu::BarrierOp::create(e.b);
    for (int64_t i = 0; i < kT * kT / l.subgroupSize; ++i) {
      Value idx = e.add(lane, e.index(i * l.subgroupSize));
      Value r = arith::DivUIOp::create(e.b, idx, e.index(kT));
      Value c = arith::RemUIOp::create(e.b, idx, e.index(kT));
      write(r, c, memref::LoadOp::create(e.b, stage, e.add(base, idx)));
    }
    gpu::BarrierOp::create(e.b);
  }

  Type f16;
  gpu::MMAMatrixType aType, bType, cType;
  Value subgroup, lane;
};

} // namespace mlir::ejk::chunk_parallel

#endif // EJK_OPS_LINEAR_VULKAN_COOPKERNEL_H
