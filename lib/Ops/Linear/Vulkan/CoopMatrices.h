//===- CoopMatrices.h - cooperative-matrix helpers of the linear kernels -*-
// C++ -*-===//
//
// What the cooperative-matrix kernels of the linear family (gla's update
// and outputs, CoopKernel.h; the delta rule's outputs,
// DeltaCoopOutputs.cpp) share over their kernel base: the 16x16
// f16 x f16 -> f32 matrix types, the subgroup of the thread, a subgroup's
// share of a grid of result tiles, the tiles of a lower triangle (simple
// gla's scores, CoopInOrder.cpp and CoopSplitOutputs.cpp), and the write of
// a result tile through the subgroup's 16x16 f32 stage.
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

#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"

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

  /// (row tile, column tile) of tile `q` of a lower triangle of `rows` tile
  /// rows, numbered row by row: the largest i with i (i + 1) / 2 <= q, then
  /// j = q - i (i + 1) / 2.
  std::pair<Value, Value> lowerTriangleTile(Value q, int64_t rows) {
    Emitter &e = this->e;
    Value i = this->zero;
    for (int64_t k = 1; k < rows; ++k) {
      Value past =
          this->cmp(arith::CmpIPredicate::sge, q, e.index(k * (k + 1) / 2));
      i = e.select(past, e.index(k), i);
    }
    Value two = e.index(2);
    Value tri = arith::DivUIOp::create(e.b, e.mul(i, e.add(i, this->one)), two);
    return {i, e.sub(q, tri)};
  }

  /// A matrix operand of a tile grid: the 16x16 block of tile row (A) or
  /// column (B) r at element `at + r step` of `memref`, rows `lead`
  /// elements apart (column-major when `transpose`).
  struct Operand {
    Value memref;
    int64_t at, step, lead;
    bool transpose;
  };

  /// One 16-deep step of the products of the subgroup's tiles of a grid of
  /// `total` tiles, `cols` a row: acc[m] += A(i) B(j) for its m-th tile
  /// (i, j).
  void mmaTiles(MutableArrayRef<Value> acc, int64_t total, int64_t cols,
                const Operand &a, const Operand &b) {
    Emitter &e = this->e;
    for (int64_t m = 0; m < int64_t(acc.size()); ++m) {
      Value tile = tileOf(m, total);
      Value i = arith::DivUIOp::create(e.b, tile, e.index(cols));
      Value j = arith::RemUIOp::create(e.b, tile, e.index(cols));
      Value aRow = e.mul(i, e.index(a.step));
      Value aAt = e.add(e.index(a.at), aRow);
      Value ma = loadMatrix(e, aType, a.memref, aAt, a.lead, a.transpose);
      Value bCol = e.mul(j, e.index(b.step));
      Value bAt = e.add(e.index(b.at), bCol);
      Value mb = loadMatrix(e, bType, b.memref, bAt, b.lead, b.transpose);
      acc[m] = mma(ma, mb, acc[m]);
    }
  }

  /// Stores the subgroup's tiles `acc` of a grid of `total` tiles (`cols`
  /// a row) into `memref` (f32, rows `lead` apart): tile (i, j) at element
  /// 16 i lead + 16 j.
  void storeTiles(ArrayRef<Value> acc, int64_t total, int64_t cols,
                  Value memref, int64_t lead) {
    Emitter &e = this->e;
    for (int64_t m = 0; m < int64_t(acc.size()); ++m) {
      Value tile = tileOf(m, total);
      Value i = arith::DivUIOp::create(e.b, tile, e.index(cols));
      Value j = arith::RemUIOp::create(e.b, tile, e.index(cols));
      Value colAt = e.mul(j, e.index(kT));
      Value at = e.add(e.mul(i, e.index(kT * lead)), colAt);
      Value matrix = acc[m];
      emitIf(e, ownsTile(m, total), [&] {
        gpu::SubgroupMmaStoreMatrixOp::create(
            e.b, matrix, memref, ValueRange{at}, e.b.getIndexAttr(lead),
            UnitAttr());
      });
    }
  }

  /// Writes the subgroup's output tiles `o` of a grid of `total` tiles
  /// (`cols` a row; tile (i, j) = chunk rows 16 i.., columns v0 + 16 j..)
  /// to the output through `stage` (writeMatrix), the rows inside the chunk
  /// and the columns inside head_dim_v.
  void writeOutputTiles(ArrayRef<Value> o, int64_t total, int64_t cols,
                        Value stage) {
    Emitter &e = this->e;
    for (int64_t m = 0; m < int64_t(o.size()); ++m) {
      Value tile = tileOf(m, total);
      Value owns = ownsTile(m, total);
      Value i = arith::DivUIOp::create(e.b, tile, e.index(cols));
      Value vt = arith::RemUIOp::create(e.b, tile, e.index(cols));
      writeMatrix(o[m], stage, [&](Value r, Value c, Value value) {
        Value t = e.add(e.mul(i, e.index(kT)), r);
        Value col = e.add(this->v0, e.add(e.mul(vt, e.index(kT)), c));
        Value inColumns =
            this->cmp(arith::CmpIPredicate::slt, col, e.index(this->p.dimV));
        Value inChunk = this->cmp(arith::CmpIPredicate::slt, t, this->len);
        Value inBlock = arith::AndIOp::create(e.b, inChunk, inColumns);
        Value inside = arith::AndIOp::create(e.b, owns, inBlock);
        emitIf(e, inside, [&] {
          Value row = this->rowOf(e.add(this->c0, t));
          Value out = e.fromF32(value, this->outputType());
          memref::StoreOp::create(
              e.b, out, this->buf.output,
              ValueRange{this->batchIdx, row, this->head, col});
        });
      });
    }
  }

  /// Writes `matrix` through the subgroup's 16x16 part of `stage` (f32):
  /// `write(r, c, value)` for each of its elements, the lanes taking
  /// 256 / subgroup size each (in order: element i = lane + i subgroup
  /// size). Every subgroup calls it the same number of times (it holds
  /// barriers), unless `withinSubgroup`: then its barriers are the
  /// subgroup's alone (subgroupBarrier) and a subgroup may call it in a
  /// branch of its own.
  void writeMatrix(Value matrix, Value stage,
                   function_ref<void(Value, Value, Value)> write,
                   bool withinSubgroup = false) {
    Emitter &e = this->e;
    auto barrier = [&] {
      if (withinSubgroup)
        subgroupBarrier();
      else
        gpu::BarrierOp::create(e.b);
    };
    Value base = e.mul(subgroup, e.index(kT * kT));
    gpu::SubgroupMmaStoreMatrixOp::create(e.b, matrix, stage, ValueRange{base},
                                          e.b.getIndexAttr(kT), UnitAttr());
    barrier();
    for (int64_t i = 0; i < kT * kT / this->l.subgroupSize; ++i) {
      Value idx = e.add(lane, e.index(i * this->l.subgroupSize));
      Value r = arith::DivUIOp::create(e.b, idx, e.index(kT));
      Value c = arith::RemUIOp::create(e.b, idx, e.index(kT));
      write(r, c, memref::LoadOp::create(e.b, stage, e.add(base, idx)));
    }
    barrier();
  }

  /// A barrier of the subgroup's invocations and the workgroup memory they
  /// share (spirv.ControlBarrier at subgroup scope; the Vulkan contract
  /// admits it): orders a subgroup's matrix store before its lanes' loads
  /// of the elements, where no other subgroup touches them.
  void subgroupBarrier() {
    spirv::ControlBarrierOp::create(
        this->e.b, spirv::Scope::Subgroup, spirv::Scope::Subgroup,
        spirv::MemorySemantics::AcquireRelease |
            spirv::MemorySemantics::WorkgroupMemory);
  }

  Type f16;
  gpu::MMAMatrixType aType, bType, cType;
  Value subgroup, lane;
};

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_COOPMATRICES_H
