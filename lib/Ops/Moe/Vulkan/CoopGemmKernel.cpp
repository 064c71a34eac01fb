//===- CoopGemmKernel.cpp - the tile product on cooperative matrices ------===//
//
// f16 inputs (and i8 weights, converted to f16 as they are loaded: exact),
// f32 accumulation, 16x16x16 cooperative matrices
// (VK_KHR_cooperative_matrix through gpu.subgroup_mma_*). Subgroup s owns
// tiles_m x tiles_n accumulators at (s / sg_n, s % sg_n) of the subgroup
// grid (Moe/Vulkan/Layout.h). The operand stages live in one workgroup
// buffer of 16-byte vectors: one or two (A, B) stages, and after the loop
// the subgroups' f32 output stages. Per reduction step, two stages:
//
//   store the next step's A and B (16-byte vectors, already in registers)
//     to the other stage, each along its operand's contiguous dimension
//   load the step after next into registers (their latency hides behind
//     this step)
//   for each 16-deep slice of this stage: tiles_m A and tiles_n B matrices,
//     tiles_m x tiles_n multiply-adds (a stage contiguous along the
//     reduction is read as column-major matrices)
//   barrier
//
// The other stage was last read before the previous step's barrier, so one
// barrier a step suffices. One stage: store this step, barrier, load the
// next, multiply-adds, barrier.
//
// The epilogue stores each strip of 16 rows of a subgroup's accumulators
// to its f32 stage, and the subgroup's lanes pass each element to the
// GemmEpilogue.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Scores.h"
#include "Common/VulkanMatrices.h"
#include "Common/VulkanShares.h"
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
    bool bInt8 = isInt8(b.buffer);
    int64_t aStride = MoeVulkanLayout::stride(l.aRowLength());
    int64_t bStride = MoeVulkanLayout::stride(l.bRowLength());
    int64_t stageVectors = l.stageVectors();
    Value stages = allocWorkgroup(
        e, std::max(l.stages * stageVectors, l.outVectors()), vecType);
    bool twoStages = l.stages == 2;

    auto loadStep = [&](Value r0) {
      SmallVector<Value> values =
          loadVectors(a, aView, l.aRows(), l.aRowLength(), r0);
      numA = values.size();
      values.append(
          bInt8 ? loadInt8Vectors(b, bView, l.bRows(), l.bRowLength(), r0)
                : loadVectors(b, bView, l.bRows(), l.bRowLength(), r0));
      return values;
    };
    // Stores a step's vectors to the stage starting at `base` (vectors).
    auto storeStep = [&](ArrayRef<Value> loaded, Value base) {
      storeVectors(loaded.take_front(numA), stages, base, l.aRows(),
                   l.aRowLength(), aStride);
      Value bBase = e.add(base, e.index(l.aStageVectors()));
      if (bInt8)
        storeInt8Vectors(loaded.drop_front(numA), stages, bBase, l.bRows(),
                         l.bRowLength(), bStride);
      else
        storeVectors(loaded.drop_front(numA), stages, bBase, l.bRows(),
                     l.bRowLength(), bStride);
    };
    // The multiply-adds of one step from the stage starting at `base`
    // (halves).
    auto multiply = [&](SmallVector<Value> &acc, Value base) {
      Value aBase = base;
      Value bBase = e.add(base, e.index(l.aStageVectors() * kPerVector));
      for (int64_t kk = 0; kk < l.step; kk += kTile) {
        SmallVector<Value> aTiles, bTiles;
        for (int64_t i = 0; i < l.tilesM; ++i) {
          Value m = e.add(mBase, e.index(i * kTile));
          Value offset;
          if (l.order.aReductionInner) {
            Value reduction = e.index(kk);
            offset = e.add(e.mul(m, e.index(aStride)), reduction);
          } else {
            offset = e.add(e.index(kk * aStride), m);
          }
          aTiles.push_back(loadMatrix(e, aType, stages, e.add(aBase, offset),
                                      aStride, !l.order.aReductionInner));
        }
        for (int64_t j = 0; j < l.tilesN; ++j) {
          Value n = e.add(nBase, e.index(j * kTile));
          Value offset;
          if (l.order.bReductionInner) {
            Value reduction = e.index(kk);
            offset = e.add(e.mul(n, e.index(bStride)), reduction);
          } else {
            offset = e.add(e.index(kk * bStride), n);
          }
          bTiles.push_back(loadMatrix(e, bType, stages, e.add(bBase, offset),
                                      bStride, l.order.bReductionInner));
        }
        for (int64_t i = 0; i < l.tilesM; ++i)
          for (int64_t j = 0; j < l.tilesN; ++j)
            acc[i * l.tilesN + j] = gpu::SubgroupMmaComputeOp::create(
                e.b, aTiles[i], bTiles[j], acc[i * l.tilesN + j], UnitAttr(),
                UnitAttr());
      }
    };

    int64_t numAcc = l.tilesM * l.tilesN;
    Value zeroTile =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
    SmallVector<Value> inits(numAcc, zeroTile);
    Value step = e.index(l.step);
    if (twoStages) {
      // Stage 0 holds the first step; the registers the second. Every
      // thread runs this (the barrier), even for an empty range.
      Value firstStage = e.index(0);
      storeStep(loadStep(rBegin), firstStage);
      gpu::BarrierOp::create(e.b);
      inits.append(loadStep(e.add(rBegin, step)));
      // The stage this step reads (0 or 1).
      inits.push_back(e.index(0));
    } else {
      inits.append(loadStep(rBegin));
    }
    SmallVector<Value> state = maybeEmptyLoop(
        e, rBegin, rEnd, step, inits, [&](Value r0, ValueRange s) {
          SmallVector<Value> acc(s.begin(), s.begin() + numAcc);
          SmallVector<Value> loaded(s.begin() + numAcc,
                                    s.begin() + numAcc + numLoaded(bInt8));
          SmallVector<Value> next;
          if (twoStages) {
            Value current = s.back();
            Value other = e.sub(e.index(1), current);
            storeStep(loaded, e.mul(other, e.index(stageVectors)));
            next = loadStep(e.add(r0, e.mul(step, e.index(2))));
            multiply(acc, e.mul(current, e.index(stageVectors * kPerVector)));
            gpu::BarrierOp::create(e.b);
            acc.append(next);
            acc.push_back(other);
            return acc;
          }
          storeStep(loaded, e.index(0));
          gpu::BarrierOp::create(e.b);
          next = loadStep(e.add(r0, step));
          multiply(acc, e.index(0));
          gpu::BarrierOp::create(e.b);
          acc.append(next);
          return acc;
        });

    // Epilogue, 16 rows x outTiles matrices at a time, through the stages'
    // memory (the loop ended with a barrier).
    int64_t outStride = l.outStride();
    Value stageBase = e.mul(subgroup, e.index(kTile * outStride / 4));
    int64_t stripWidth = l.outTiles * kTile;
    int64_t perStrip = kTile * stripWidth;
    for (int64_t i = 0; i < l.tilesM; ++i)
      for (int64_t j0 = 0; j0 < l.tilesN; j0 += l.outTiles) {
        for (int64_t j = 0; j < l.outTiles; ++j)
          gpu::SubgroupMmaStoreMatrixOp::create(
              e.b, state[i * l.tilesN + j0 + j], stages,
              ValueRange{e.add(stageBase, e.index(j * kTile / 4))},
              e.b.getIndexAttr(outStride / 4), UnitAttr());
        gpu::BarrierOp::create(e.b);
        // Four f32 (one vector) a lane at a time.
        int64_t vectorsPerRow = stripWidth / 4;
        forEachThread(e, l.subgroupSize, lane, perStrip / 4, [&](Value idx) {
          Value row = arith::DivUIOp::create(e.b, idx, e.index(vectorsPerRow));
          Value col = arith::RemUIOp::create(e.b, idx, e.index(vectorsPerRow));
          Value vec = memref::LoadOp::create(
              e.b, stages,
              ValueRange{e.add(
                  stageBase, e.add(e.mul(row, e.index(outStride / 4)), col))});
          Value m = e.add(mBase, e.add(e.index(i * kTile), row));
          Value lane = e.mul(col, e.index(4));
          Value n = e.add(nBase, e.add(e.index(j0 * kTile), lane));
          for (int64_t c = 0; c < 4; ++c) {
            Value value = arith::BitcastOp::create(
                e.b, e.f32, vector::ExtractOp::create(e.b, vec, c));
            epilogue(m, e.add(n, e.index(c)), value);
          }
        });
        gpu::BarrierOp::create(e.b);
      }
  }

private:
  static bool isInt8(Value buffer) {
    return cast<MemRefType>(buffer.getType())
        .getElementType()
        .isSignlessInteger(8);
  }

  /// A flat view of an f16 (or i8) buffer as 16-byte vectors: the same
  /// binding, which ejk-prepare-vulkan-kernels declares a second time.
  Value vectorView(Value buffer) {
    return wordView(e, buffer, isInt8(buffer) ? 2 * kPerVector : kPerVector);
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
      Value vectorWords = e.index(kPerVector);
      Value col =
          e.mul(arith::RemUIOp::create(e.b, idx, e.index(width)), vectorWords);
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

  /// i8 weights: this thread's 16-byte loads of 16 weights each (`rowLength`
  /// a multiple of 16, and so is the buffer's contiguous extent: no load
  /// straddles valid and invalid weights), each converted to the two f16
  /// vectors it stages as: values 2j and 2j + 1 of load j.
  SmallVector<Value> loadInt8Vectors(const GemmOperand &op, Value view,
                                     int64_t rows, int64_t rowLength,
                                     Value r0) {
    int64_t width = rowLength / (2 * kPerVector), total = rows * width;
    auto shape = cast<MemRefType>(op.buffer.getType()).getShape();
    Value zero = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(vecType, e.b.getI32IntegerAttr(0)));
    SmallVector<Value> values;
    for (int64_t base = 0; base < total; base += l.threads) {
      Value idx = e.add(thread, e.index(base));
      if (base + l.threads > total)
        idx = e.min(idx, e.index(total - 1));
      Value row = arith::DivUIOp::create(e.b, idx, e.index(width));
      Value vectorElements = e.index(2 * kPerVector);
      Value col = e.mul(arith::RemUIOp::create(e.b, idx, e.index(width)),
                        vectorElements);
      auto [indices, valid] = op.locate(r0, row, col);
      Value flat = e.index(0);
      for (auto [d, index] : llvm::enumerate(indices))
        flat = e.add(e.mul(flat, e.index(shape[d])), index);
      Value value =
          memref::LoadOp::create(e.b, view,
                                 ValueRange{arith::DivUIOp::create(
                                     e.b, flat, e.index(2 * kPerVector))});
      value = e.select(valid, value, zero);
      for (int64_t half = 0; half < 2; ++half)
        values.push_back(int8ToHalves(value, half));
    }
    return values;
  }

  /// The 8 i8 weights of words 2 half and 2 half + 1 of `words` as 8 f16
  /// packed in 4 words (exact for -128 .. 127). SPIR-V vectors have 2 to 4
  /// lanes, so the bytes spread over lanes through a vector<4xi16> bitcast
  /// (a lane per 2 weights), are sign-extended, converted and packed back.
  Value int8ToHalves(Value words, int64_t half) {
    MLIRContext *context = e.b.getContext();
    auto i16x4 = VectorType::get({4}, IntegerType::get(context, 16));
    auto f16x4 = VectorType::get({4}, Float16Type::get(context));
    auto splat = [&](int32_t v) -> Value {
      return arith::ConstantOp::create(
          e.b, DenseElementsAttr::get(vecType, e.b.getI32IntegerAttr(v)));
    };
    Value pair = vector::ExtractStridedSliceOp::create(
        e.b, words, ArrayRef<int64_t>{2 * half}, ArrayRef<int64_t>{2},
        ArrayRef<int64_t>{1});
    Value lanes = vector::BitCastOp::create(e.b, i16x4, pair);
    Value wide = arith::ExtSIOp::create(e.b, vecType, lanes);
    Value shifted = arith::ShLIOp::create(e.b, wide, splat(24));
    Value low = arith::ShRSIOp::create(e.b, shifted, splat(24));
    Value high = arith::ShRSIOp::create(e.b, wide, splat(8));
    auto halfBits = [&](Value v) -> Value {
      Value h = arith::SIToFPOp::create(e.b, f16x4, v);
      Value bits = arith::BitcastOp::create(e.b, i16x4, h);
      return arith::ExtUIOp::create(e.b, vecType, bits);
    };
    Value lowBits = halfBits(low);
    Value highBits = halfBits(high);
    Value upper = arith::ShLIOp::create(e.b, highBits, splat(16));
    return arith::OrIOp::create(e.b, lowBits, upper);
  }

  /// Stores the values of loadInt8Vectors (same `rows`, `rowLength`) to
  /// `stage` from vector `stageBase` on, rows `stride` halves apart.
  void storeInt8Vectors(ArrayRef<Value> values, Value stage, Value stageBase,
                        int64_t rows, int64_t rowLength, int64_t stride) {
    int64_t width = rowLength / (2 * kPerVector), total = rows * width;
    for (size_t k = 0; k < values.size(); k += 2) {
      int64_t base = static_cast<int64_t>(k / 2) * l.threads;
      Value idx = e.add(thread, e.index(base));
      auto store = [&] {
        Value row = arith::DivUIOp::create(e.b, idx, e.index(width));
        Value two = e.index(2);
        Value col =
            e.mul(arith::RemUIOp::create(e.b, idx, e.index(width)), two);
        Value at = e.add(stageBase,
                         e.add(e.mul(row, e.index(stride / kPerVector)), col));
        memref::StoreOp::create(e.b, values[k], stage, ValueRange{at});
        memref::StoreOp::create(e.b, values[k + 1], stage,
                                ValueRange{e.add(at, e.index(1))});
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

  /// Vectors a thread loads per step (A and B; an i8 B loads half as many
  /// 16-byte vectors, each staged as two).
  size_t numLoaded(bool bInt8) const {
    auto count = [&](int64_t rows, int64_t rowLength, int64_t perVector) {
      int64_t total = rows * (rowLength / perVector);
      return static_cast<size_t>((total + l.threads - 1) / l.threads);
    };
    size_t b = bInt8 ? 2 * count(l.bRows(), l.bRowLength(), 2 * kPerVector)
                     : count(l.bRows(), l.bRowLength(), kPerVector);
    return count(l.aRows(), l.aRowLength(), kPerVector) + b;
  }

  /// Stores the values of loadVectors (same `rows`, `rowLength`) to `stage`
  /// from vector `stageBase` on, rows `stride` halves apart.
  void storeVectors(ArrayRef<Value> values, Value stage, Value stageBase,
                    int64_t rows, int64_t rowLength, int64_t stride) {
    int64_t width = rowLength / kPerVector, total = rows * width;
    forGuardedShare(
        e, l.threads, thread, total, width,
        [&](int64_t k, Value row, Value col) {
          memref::StoreOp::create(
              e.b, values[k], stage,
              ValueRange{
                  e.add(stageBase,
                        e.add(e.mul(row, e.index(stride / kPerVector)), col))});
        });
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
