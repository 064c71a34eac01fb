//===- CoopGemmKernel.cpp - the tile product on cooperative matrices ------===//
//
// f16 inputs, f32 accumulation, 16x16x16 cooperative matrices
// (VK_KHR_cooperative_matrix through gpu.subgroup_mma_*). Subgroup s owns
// tiles_m x tiles_n accumulators at (s / sg_n, s % sg_n) of the subgroup
// grid (Moe/Vulkan/Layout.h). Per reduction step:
//
//   store the step's A and B (16-byte vectors, already in registers) to the
//     stages, each along its operand's contiguous dimension
//   barrier
//   load the next step's vectors (their latency hides behind this step)
//   for each 16-deep slice: tiles_m A and tiles_n B matrices, tiles_m x
//     tiles_n multiply-adds (a stage contiguous along the reduction is read
//     as column-major matrices)
//   barrier
//
// The epilogue stores each strip of 16 rows of a subgroup's accumulators
// to its f32 stage, and the subgroup's lanes pass each element to the
// GemmEpilogue.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Scores.h"
#include "Moe/Vulkan/Kernels.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

constexpr int64_t kTile = MoeVulkanLayout::kTile;
/// f16 elements per 16-byte vector<4xi32>.
constexpr int64_t kPerVector = 8;

class CoopGemmBuilder {
public:
  CoopGemmBuilder(Emitter &e, const MoeVulkanLayout &l, Value thread)
      : e(e), l(l), thread(thread) {
    MLIRContext *context = e.b.getContext();
    Type f16 = Float16Type::get(context);
    vecType = VectorType::get({4}, e.b.getI32Type());
    aType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "AOp");
    bType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "BOp");
    cType = gpu::MMAMatrixType::get({kTile, kTile}, e.f32, "COp");
  }

  void build(const GemmOperand &a, const GemmOperand &b, Value rBegin,
             Value rEnd, const GemmEpilogue &epilogue) {
    Value subgroup =
        arith::DivUIOp::create(e.b, thread, e.index(l.subgroupSize));
    Value lane = arith::RemUIOp::create(e.b, thread, e.index(l.subgroupSize));
    Value sgRow = arith::DivUIOp::create(e.b, subgroup, e.index(l.subgroupsN));
    Value sgCol = arith::RemUIOp::create(e.b, subgroup, e.index(l.subgroupsN));
    Value mBase = e.mul(sgRow, e.index(l.tilesM * kTile));
    Value nBase = e.mul(sgCol, e.index(l.tilesN * kTile));

    Value aView = vectorView(a.buffer), bView = vectorView(b.buffer);
    int64_t aStride = MoeVulkanLayout::stride(l.aRowLength());
    int64_t bStride = MoeVulkanLayout::stride(l.bRowLength());
    Value aStage = allocWorkgroup(e, l.aRows() * aStride / kPerVector, vecType);
    Value bStage = allocWorkgroup(e, l.bRows() * bStride / kPerVector, vecType);
    Value outStage = allocWorkgroup(e, l.numSubgroups * kTile * l.outStride());

    auto loadStep = [&](Value r0) {
      SmallVector<Value> values =
          loadVectors(a, aView, l.aRows(), l.aRowLength(), r0);
      numA = values.size();
      values.append(loadVectors(b, bView, l.bRows(), l.bRowLength(), r0));
      return values;
    };

    int64_t numAcc = l.tilesM * l.tilesN;
    Value zeroTile =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
    SmallVector<Value> inits(numAcc, zeroTile);
    inits.append(loadStep(rBegin));
    SmallVector<Value> state = maybeEmptyLoop(
        e, rBegin, rEnd, e.index(l.step), inits, [&](Value r0, ValueRange s) {
          SmallVector<Value> loadedValues(s.begin() + numAcc, s.end());
          ArrayRef<Value> loaded = loadedValues;
          storeVectors(loaded.take_front(numA), aStage, l.aRows(),
                       l.aRowLength(), aStride);
          storeVectors(loaded.drop_front(numA), bStage, l.bRows(),
                       l.bRowLength(), bStride);
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> next = loadStep(e.add(r0, e.index(l.step)));
          SmallVector<Value> acc(s.begin(), s.begin() + numAcc);
          for (int64_t kk = 0; kk < l.step; kk += kTile) {
            SmallVector<Value> aTiles, bTiles;
            for (int64_t i = 0; i < l.tilesM; ++i) {
              Value m = e.add(mBase, e.index(i * kTile));
              aTiles.push_back(
                  l.order.aReductionInner
                      ? loadMatrix(
                            aType, aStage,
                            e.add(e.mul(m, e.index(aStride)), e.index(kk)),
                            aStride, /*transpose=*/false)
                      : loadMatrix(aType, aStage,
                                   e.add(e.index(kk * aStride), m), aStride,
                                   /*transpose=*/true));
            }
            for (int64_t j = 0; j < l.tilesN; ++j) {
              Value n = e.add(nBase, e.index(j * kTile));
              bTiles.push_back(
                  l.order.bReductionInner
                      ? loadMatrix(
                            bType, bStage,
                            e.add(e.mul(n, e.index(bStride)), e.index(kk)),
                            bStride, /*transpose=*/true)
                      : loadMatrix(bType, bStage,
                                   e.add(e.index(kk * bStride), n), bStride,
                                   /*transpose=*/false));
            }
            for (int64_t i = 0; i < l.tilesM; ++i)
              for (int64_t j = 0; j < l.tilesN; ++j)
                acc[i * l.tilesN + j] = gpu::SubgroupMmaComputeOp::create(
                    e.b, aTiles[i], bTiles[j], acc[i * l.tilesN + j],
                    UnitAttr(), UnitAttr());
          }
          gpu::BarrierOp::create(e.b);
          acc.append(next);
          return acc;
        });

    // Epilogue, one strip of 16 rows at a time.
    Value stageBase = e.mul(subgroup, e.index(kTile * l.outStride()));
    int64_t stripWidth = l.tilesN * kTile;
    int64_t perStrip = kTile * stripWidth;
    for (int64_t i = 0; i < l.tilesM; ++i) {
      for (int64_t j = 0; j < l.tilesN; ++j)
        gpu::SubgroupMmaStoreMatrixOp::create(
            e.b, state[i * l.tilesN + j], outStage,
            ValueRange{e.add(stageBase, e.index(j * kTile))},
            e.b.getIndexAttr(l.outStride()), UnitAttr());
      gpu::BarrierOp::create(e.b);
      forEachThread(e, l.subgroupSize, lane, perStrip, [&](Value idx) {
        Value row = arith::DivUIOp::create(e.b, idx, e.index(stripWidth));
        Value col = arith::RemUIOp::create(e.b, idx, e.index(stripWidth));
        Value v = memref::LoadOp::create(
            e.b, outStage,
            ValueRange{e.add(stageBase,
                             e.add(e.mul(row, e.index(l.outStride())), col))});
        epilogue(e.add(mBase, e.add(e.index(i * kTile), row)),
                 e.add(nBase, col), v);
      });
      gpu::BarrierOp::create(e.b);
    }
  }

private:
  /// A flat view of an f16 buffer as 16-byte vectors: the same binding,
  /// which ejk-prepare-vulkan-kernels declares a second time.
  Value vectorView(Value buffer) {
    auto type = cast<MemRefType>(buffer.getType());
    auto viewType =
        MemRefType::get({type.getNumElements() / kPerVector}, vecType);
    return UnrealizedConversionCastOp::create(e.b, TypeRange{viewType},
                                              ValueRange{buffer})
        .getResult(0);
  }

  /// Loads a 16x16 matrix from a vector stage; `offset` and `stride` in
  /// halves (multiples of 8).
  Value loadMatrix(Type type, Value stage, Value offset, int64_t stride,
                   bool transpose) {
    offset = arith::DivUIOp::create(e.b, offset, e.index(kPerVector));
    return gpu::SubgroupMmaLoadMatrixOp::create(
        e.b, type, stage, ValueRange{offset},
        e.b.getIndexAttr(stride / kPerVector),
        transpose ? e.b.getUnitAttr() : UnitAttr());
  }

  /// This thread's vectors of an operand's `rows` x `rowLength` step at
  /// `r0`: zero outside the operand; the addresses are clamped.
  SmallVector<Value> loadVectors(const GemmOperand &op, Value view,
                                 int64_t rows, int64_t rowLength, Value r0) {
    int64_t width = rowLength / kPerVector, total = rows * width;
    auto shape = cast<MemRefType>(op.buffer.getType()).getShape();
    Value zero = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(vecType, e.b.getI32IntegerAttr(0)));
    SmallVector<Value> values;
    for (int64_t base = 0; base < total; base += l.threads) {
      Value idx = e.add(thread, e.index(base));
      if (base + l.threads > total)
        idx = e.min(idx, e.index(total - 1));
      Value row = arith::DivUIOp::create(e.b, idx, e.index(width));
      Value col = e.mul(arith::RemUIOp::create(e.b, idx, e.index(width)),
                        e.index(kPerVector));
      auto [indices, valid] = op.locate(r0, row, col);
      Value flat = e.index(0);
      for (auto [d, index] : llvm::enumerate(indices))
        flat = e.add(e.mul(flat, e.index(shape[d])), index);
      Value value = memref::LoadOp::create(
          e.b, view,
          ValueRange{arith::DivUIOp::create(e.b, flat, e.index(kPerVector))});
      values.push_back(e.select(valid, value, zero));
    }
    return values;
  }

  /// Stores the values of loadVectors (same `rows`, `rowLength`) to `stage`,
  /// rows `stride` halves apart.
  void storeVectors(ArrayRef<Value> values, Value stage, int64_t rows,
                    int64_t rowLength, int64_t stride) {
    int64_t width = rowLength / kPerVector, total = rows * width;
    for (auto [k, element] : llvm::enumerate(values)) {
      int64_t base = static_cast<int64_t>(k) * l.threads;
      Value idx = e.add(thread, e.index(base));
      Value value = element;
      auto store = [&] {
        Value row = arith::DivUIOp::create(e.b, idx, e.index(width));
        Value col = arith::RemUIOp::create(e.b, idx, e.index(width));
        memref::StoreOp::create(
            e.b, value, stage,
            ValueRange{e.add(e.mul(row, e.index(stride / kPerVector)), col)});
      };
      if (base + l.threads <= total) {
        store();
        continue;
      }
      auto ifOp = scf::IfOp::create(
          e.b,
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, idx,
                                e.index(total)),
          /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      store();
    }
  }

  Emitter &e;
  const MoeVulkanLayout &l;
  Value thread;
  VectorType vecType;
  gpu::MMAMatrixType aType, bType, cType;
  size_t numA = 0;
};

} // namespace

void mlir::ejk::buildCoopGemm(Emitter &e, const MoeVulkanLayout &l,
                              Value thread, const GemmOperand &a,
                              const GemmOperand &b, Value rBegin, Value rEnd,
                              const GemmEpilogue &epilogue) {
  CoopGemmBuilder(e, l, thread).build(a, b, rBegin, rEnd, epilogue);
}
