//===- GemmKernel.cpp - the portable tile product of the grouped matmuls --===//
//
// f32 arithmetic for every input type (f16 and bf16 are widened as they
// are staged, i8 weights converted), any Vulkan 1.1 device. Per reduction
// step:
//
//   stage A [step][tile_m] and B [step][tile_n] (f32, 0 outside the
//     operands), each thread reading along its operand's contiguous
//     dimension
//   barrier
//   acc[i][j] += A[r][row_i] * B[r][col_j] for r < step   (registers)
//   barrier
//
// then the epilogue of each accumulator (Moe/Vulkan/Layout.h gives the
// thread layout).
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Scores.h"
#include "Moe/Vulkan/Kernels.h"

using namespace mlir;
using namespace mlir::ejk;

/// Stages one operand's step at `r0` into `stage` ([step][extent] f32).
static void stageOperand(Emitter &e, const MoeVulkanLayout &l, Value thread,
                         const GemmOperand &op, bool reductionInner,
                         int64_t extent, Value stage, Value r0) {
  int64_t step = l.step;
  forEachThread(e, l.threads, thread, extent * step, [&](Value i) {
    Value outer, inner, at;
    if (reductionInner) {
      outer = arith::DivUIOp::create(e.b, i, e.index(step));
      inner = arith::RemUIOp::create(e.b, i, e.index(step));
      at = e.add(e.mul(inner, e.index(extent)), outer);
    } else {
      outer = arith::DivUIOp::create(e.b, i, e.index(extent));
      inner = arith::RemUIOp::create(e.b, i, e.index(extent));
      at = i;
    }
    auto [indices, valid] = op.locate(r0, outer, inner);
    Value v = memref::LoadOp::create(e.b, op.buffer, indices);
    // i8 weights: their integer value (exact); the scale is the epilogue's.
    v = isa<IntegerType>(v.getType()) ? arith::SIToFPOp::create(e.b, e.f32, v)
                                      : e.toF32(v);
    memref::StoreOp::create(e.b, e.select(valid, v, e.constF32(0.0f)), stage,
                            ValueRange{at});
  });
}

void mlir::ejk::buildPortableGemm(Emitter &e, const MoeVulkanLayout &l,
                                  Value thread, const GemmOperand &a,
                                  const GemmOperand &b, Value rBegin,
                                  Value rEnd, const GemmEpilogue &epilogue) {
  Value aStage = allocWorkgroup(e, l.step * l.tileM);
  Value bStage = allocWorkgroup(e, l.step * l.tileN);
  Value tx = arith::RemUIOp::create(e.b, thread, e.index(l.threadsX));
  Value ty = arith::DivUIOp::create(e.b, thread, e.index(l.threadsX));
  SmallVector<Value> rows, cols;
  Value row0 = e.mul(ty, e.index(l.rowsPerThread));
  for (int64_t i = 0; i < l.rowsPerThread; ++i)
    rows.push_back(e.add(row0, e.index(i)));
  for (int64_t j = 0; j < l.colsPerThread; ++j)
    cols.push_back(e.add(tx, e.index(j * l.threadsX)));
  int64_t numCols = l.colsPerThread;

  SmallVector<Value> inits(l.rowsPerThread * numCols, e.constF32(0.0f));
  SmallVector<Value> acc = maybeEmptyLoop(
      e, rBegin, rEnd, e.index(l.step), inits, [&](Value r0, ValueRange acc) {
        stageOperand(e, l, thread, a, l.order.aReductionInner, l.tileM, aStage,
                     r0);
        stageOperand(e, l, thread, b, l.order.bReductionInner, l.tileN, bStage,
                     r0);
        gpu::BarrierOp::create(e.b);
        Value one = e.index(1);
        Value steps = e.index(l.step);
        SmallVector<Value> next = e.forLoop(
            e.index(0), steps, one, acc, [&](Value r, ValueRange acc) {
              SmallVector<Value> out(acc.begin(), acc.end()), bv;
              Value aBase = e.mul(r, e.index(l.tileM));
              Value bBase = e.mul(r, e.index(l.tileN));
              for (Value c : cols)
                bv.push_back(memref::LoadOp::create(
                    e.b, bStage, ValueRange{e.add(bBase, c)}));
              for (auto [i, m] : llvm::enumerate(rows)) {
                Value av = memref::LoadOp::create(e.b, aStage,
                                                  ValueRange{e.add(aBase, m)});
                for (int64_t j = 0; j < numCols; ++j)
                  out[i * numCols + j] =
                      math::FmaOp::create(e.b, av, bv[j], out[i * numCols + j]);
              }
              return out;
            });
        gpu::BarrierOp::create(e.b);
        return next;
      });
  for (auto [i, m] : llvm::enumerate(rows))
    for (auto [j, n] : llvm::enumerate(cols))
      epilogue(m, n, acc[i * numCols + j]);
}
