//===- CoopMatrices.h - cooperative-matrix helpers of the linear kernels -*-
// C++ -*-===//
//
// What the cooperative-matrix kernels of the linear family (gla's update
// and outputs, CoopKernel.h; the delta rule's outputs,
// DeltaCoopOutputs.cpp) share over their kernel base: the 16x16
// f16 x f16 -> f32 matrix types, the subgroup of the thread, a subgroup's
// share of a grid of result tiles, and the write of a result tile through
// the subgroup's 16x16 f32 stage.
//
// A grid of `total` result tiles is dealt to the subgroups round-robin:
// subgroup g takes tiles g, g + n, g + 2n, ... (n subgroups); a subgroup
// with fewer tiles than `slots` computes its last one again (the index is
// clamped) and does not write it.
//
// `Base` has the emitter `e`, the layout `l` (subgroupSize, subgroups()),
// the thread id `thread`, `cmp` and `begin()`.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_COOPMATRICES_H
#define EJK_OPS_LINEAR_VULKAN_COOPMATRICES_H

#include "Common/VulkanMatrices.h"

namespace mlir::ejk {

template <typename Base> class CoopMatrices : public Base {
public:
  template <typename... Args>
  CoopMatrices(OpBuilder &builder, Args &&...args)
      : Base(builder, std::forward<Args>(args)...) {
    MLIRContext *context = builder.getContext();
    f16 = Float16Type::get(context);
    aType = gpu::MMAMatrixType::get({kT, kT}, f16, "AOp");
    bType = gpu::MMAMatrixType::get({kT, kT}, f16, "BOp");
    cType = gpu::MMAMatrixType::get({kT, kT}, this->e.f32, "COp");
  }

protected:
  static constexpr int64_t kT = 16;

  void beginCoop() {
    this->begin();
    subgroup = arith::DivUIOp::create(this->e.b, this->thread,
                                      this->e.index(this->l.subgroupSize));
    lane = arith::RemUIOp::create(this->e.b, this->thread,
                                  this->e.index(this->l.subgroupSize));
  }

  Value zeroMatrix() {
    return gpu::SubgroupMmaConstantMatrixOp::create(this->e.b, cType,
                                                    this->e.constF32(0.0f));
  }

  Value mma(Value a, Value b, Value c) {
    return gpu::SubgroupMmaComputeOp::create(this->e.b, a, b, c, UnitAttr(),
                                             UnitAttr());
  }

  /// The subgroup's `slot`-th tile of a grid of `total` (clamped).
  Value tileOf(int64_t slot, int64_t total) {
    Value tile =
        this->e.add(subgroup, this->e.index(slot * this->l.subgroups()));
    return this->e.min(tile, this->e.index(total - 1));
  }

  /// Whether the subgroup's `slot`-th tile exists.
  Value ownsTile(int64_t slot, int64_t total) {
    Value tile =
        this->e.add(subgroup, this->e.index(slot * this->l.subgroups()));
    return this->cmp(arith::CmpIPredicate::slt, tile, this->e.index(total));
  }

  /// Writes `matrix` through the subgroup's 16x16 part of `stage` (f32):
  /// `write(r, c, value)` for each of its elements, the lanes taking
  /// 256 / subgroup size each. Every subgroup calls it the same number of
  /// times (it holds barriers).
  void writeMatrix(Value matrix, Value stage,
                   function_ref<void(Value, Value, Value)> write) {
    Emitter &e = this->e;
    Value base = e.mul(subgroup, e.index(kT * kT));
    gpu::SubgroupMmaStoreMatrixOp::create(e.b, matrix, stage, ValueRange{base},
                                          e.b.getIndexAttr(kT), UnitAttr());
    gpu::BarrierOp::create(e.b);
    for (int64_t i = 0; i < kT * kT / this->l.subgroupSize; ++i) {
      Value idx = e.add(lane, e.index(i * this->l.subgroupSize));
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

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_COOPMATRICES_H
