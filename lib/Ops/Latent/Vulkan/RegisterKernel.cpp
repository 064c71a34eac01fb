//===- RegisterKernel.cpp - MLA decode with the softmax in registers ------===//
//
// The cooperative-matrix MLA kernel of `cooperative = 2` (Mla.h): f16 or
// bf16 inputs, f32 accumulation, 16x16x16 matrices laid out as NVIDIA's
// mma.sync fragments (cooperative_matrix_nv_layout; a layout probe at the
// start of every workgroup turns the output into NaN where the device lays
// them out otherwise). Workgroup = (split x head chunk, row),
// kMlaCoopSubgroups subgroups over `block_h` heads (16-row tiles). Per
// step of `block_k` tokens:
//
//   stage       the step's whole cache rows (latent | RoPE, 16-byte loads
//               issued a step ahead; zeros past the end) go to workgroup
//               memory: every K^T tile of the scores comes from there, so
//               the products take no branch and no load from the buffers
//   S           subgroup (part, head tile, token tile) sums its part of
//               the 576-deep products (queries in registers, two
//               accumulators) and stores it: one 16x16 f32 tile each
//   softmax     the subgroups of a head tile each read that tile's parts
//               and run the same online softmax on the matrix elements
//               (exp2 with the scale folded in; l kept per lane until the
//               end): P stays in registers as the A operands of P V, the
//               row factors scale O in place
//   O = O * alpha + P V
//               subgroup g owns latent columns of head tile g / (subgroups
//               / head tiles); V tiles from the stage
//
// Three barriers a step (rows staged, parts stored, stage free), against
// the `cooperative = 1` kernel's four, and no per-thread softmax pass
// through workgroup memory.
//
//===----------------------------------------------------------------------===//

#include "Common/VulkanShares.h"
#include "Latent/Vulkan/MlaCoopCommon.h"
#include "Paged/Vulkan/Emit.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <functional>
#include <limits>

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::latent;
using paged::cmpI;
using paged::emitIf;
using paged::finiteOrZero;
using paged::storeF32;
using paged::xorReduce;

namespace {

/// Elements of a 16x16 matrix one lane of 32 holds.
constexpr int64_t kLaneElements = kTile * kTile / 32;
constexpr double kLog2E = 1.4426950408889634;
constexpr double kLn2 = 0.6931471805599453;

class MlaRegisterKernel : MlaCoopKernelBase {
public:
  MlaRegisterKernel(OpBuilder &builder, Location loc, const VulkanMlaPlan &plan,
                    const MlaBuffers &buffers, Value partialO, Value partialLse,
                    int64_t subgroupSize)
      : MlaCoopKernelBase(builder, loc, plan, buffers, partialO, partialLse,
                          subgroupSize) {
    stride = VulkanMlaLayout::rowStageStride(p.latentDim, p.ropeDim);
  }

  void build() {
    Value x = WorkgroupIdOp::create(e.b, 0);
    Value chunks = e.index(l.headChunks);
    Value chunk = arith::RemUIOp::create(e.b, x, chunks);
    split = arith::DivUIOp::create(e.b, x, chunks);
    Value rowY = WorkgroupIdOp::create(e.b, 1);
    Value rowZ = WorkgroupIdOp::create(e.b, 2);
    row = findRow(e, p, buf, rowY, rowZ);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    Value sgSize = e.index(sg);
    subgroup = arith::DivUIOp::create(e.b, thread, sgSize);
    lane = arith::RemUIOp::create(e.b, thread, sgSize);
    Value four = e.index(4);
    quad = arith::DivUIOp::create(e.b, lane, four);
    pair = arith::RemUIOp::create(e.b, lane, four);
    Value blockH = e.index(l.blockH);
    head0 = e.mul(chunk, blockH);

    // Splits start on step boundaries.
    Value splits = e.index(l.numSplits), step = e.index(l.blockK);
    Value one = e.index(1);
    Value splitsLess = e.sub(splits, one);
    Value rounded = e.add(row.end, splitsLess);
    Value share = e.div(rounded, splits);
    Value stepLess = e.sub(step, one);
    Value shareUp = e.add(share, stepLess);
    Value steps = e.div(shareUp, step);
    Value per = e.mul(steps, step);
    Value splitStart = e.mul(split, per);
    begin = e.min(row.end, splitStart);
    Value splitEnd = e.add(begin, per);
    stop = e.min(row.end, splitEnd);
    Value beforeStop = e.sub(stop, one);
    Value zeroIndex = e.index(0);
    lastToken = e.max(zeroIndex, beforeStop);

    createWordViews();
    kvStage = allocWorkgroupOf(e, l.blockK * stride / kPerVector, vecType);
    sStage = allocWorkgroupOf(e, l.numSubgroups * kTile * kTile, e.f32);
    probeA = allocWorkgroupOf(e, kTile * kTile, f16);

    SmallVector<Value> ahead = loadRows(begin);
    writeLayoutProbe();
    gpu::BarrierOp::create(e.b);
    layoutHolds = readLayoutProbe();

    // Scores: subgroup g computes part g / matrices of (head tile, token
    // tile) matrix g % matrices. Output: head tile g / groups, column
    // group g % groups.
    int64_t matrices = l.rowTiles * l.keyTiles;
    Value matrixCount = e.index(matrices);
    Value f = arith::RemUIOp::create(e.b, subgroup, matrixCount);
    part = arith::DivUIOp::create(e.b, subgroup, matrixCount);
    Value keyTiles = e.index(l.keyTiles);
    kt = arith::RemUIOp::create(e.b, f, keyTiles);
    rt = arith::DivUIOp::create(e.b, f, keyTiles);
    Value groups = e.index(l.groupsPerRow());
    outTile = arith::DivUIOp::create(e.b, subgroup, groups);
    Value group = arith::RemUIOp::create(e.b, subgroup, groups);
    Value groupWidth = e.index(l.outColTiles(p.latentDim) * kTile);
    colBase = e.mul(group, groupWidth);
    // This lane's columns in a 16x16 tile, (i % 4) of its elements.
    for (int64_t i = 0; i < 4; ++i)
      laneColumns.push_back(columnOf(i));
    queryTiles = loadQueryTiles();

    SmallVector<Value> inits;
    Value zero =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
    for (int64_t n = 0; n < l.outColTiles(p.latentDim); ++n)
      inits.push_back(zero);
    inits.push_back(e.negInf());       // m of row quad (log2 units)
    inits.push_back(e.negInf());       // m of row quad + 8
    inits.push_back(e.constF32(0.0f)); // this lane's share of l, row quad
    inits.push_back(e.constF32(0.0f)); // ... row quad + 8
    inits.append(ahead);
    SmallVector<Value> state =
        e.forLoop(begin, stop, step, inits,
                  [&](Value t0, ValueRange s) { return keyStep(t0, s); });
    finish(state);
  }

private:
  /// Column of element `i` of a lane's share of a 16x16 matrix (NVIDIA's
  /// mma.sync order: elements 0-3 in row quad, columns 2 pair, 2 pair + 1,
  /// 2 pair + 8, 2 pair + 9; elements 4-7 the same in row quad + 8).
  Value columnOf(int64_t i) {
    Value offset = e.index(i % 2 + 8 * ((i / 2) % 2));
    Value two = e.index(2);
    Value base = e.mul(pair, two);
    return e.add(base, offset);
  }
  static int64_t rowHalfOf(int64_t i) { return i / 4; }

  /// Every workgroup writes a 16x16 tile whose element (r, c) holds
  /// 16 r + c, as f32 (the score stage) and as f16 (bf16 bits for bf16).
  void writeLayoutProbe() {
    for (int64_t base = 0; base < kTile * kTile; base += l.threads) {
      Value offset = e.index(base);
      Value idx = e.add(thread, offset);
      Value limit = e.index(kTile * kTile);
      Value inRange = cmpI(e, arith::CmpIPredicate::slt, idx, limit);
      emitIf(e, inRange, [&] {
        Value i32 = arith::IndexCastUIOp::create(e.b, e.b.getI32Type(), idx);
        Value value = arith::UIToFPOp::create(e.b, e.f32, i32);
        memref::StoreOp::create(e.b, value, sStage, ValueRange{idx});
        Value bits = operandBits(e, value, p.elementType);
        memref::StoreOp::create(e.b, bits, probeA, ValueRange{idx});
      });
    }
  }

  /// Whether every lane of the subgroup finds its elements where columnOf
  /// and rowHalfOf say, in f32 accumulators and in A matrices.
  Value readLayoutProbe() {
    Value start = e.index(0);
    Value c = loadMatrix(e, cType, sStage, start, kTile, false);
    Value a = loadMatrix(e, aType, probeA, start, kTile, false);
    Value holds = e.constF32(1.0f);
    Value tileSize = e.index(kTile);
    for (int64_t i = 0; i < kLaneElements; ++i) {
      Value half = e.index(kTile / 2 * rowHalfOf(i));
      Value r = e.add(quad, half);
      Value rowOffset = e.mul(r, tileSize);
      Value column = columnOf(i);
      Value at = e.add(rowOffset, column);
      Value i32 = arith::IndexCastUIOp::create(e.b, e.b.getI32Type(), at);
      Value expected = arith::UIToFPOp::create(e.b, e.f32, i32);
      Value position = e.index(i);
      Value fromC =
          gpu::SubgroupMmaExtractThreadLocalOp::create(e.b, e.f32, c, position);
      Value rawA =
          gpu::SubgroupMmaExtractThreadLocalOp::create(e.b, f16, a, position);
      Value fromA = operandValue(rawA);
      for (Value element : {fromC, fromA}) {
        Value same = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ,
                                           element, expected);
        Value none = e.constF32(0.0f);
        holds = e.select(same, holds, none);
      }
    }
    // min over the subgroup: max of the negation.
    Value zeroF = e.constF32(0.0f);
    Value negated = e.fsub(zeroF, holds);
    negated = xorReduce(e, negated, /*isMax=*/true, 1, sg, sg);
    Value minusOne = e.constF32(-1.0f);
    return arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ, negated,
                                 minusOne);
  }

  /// An element of an operand matrix as f32: an extension, which the bf16
  /// matrices' lowering (DispatchRewriter::setBF16Matrices) reads as one
  /// from bf16.
  Value operandValue(Value raw) { return e.toF32(raw); }

  /// f16 element offsets of head `h`'s latent and RoPE queries.
  Value queryOffset(Value h, int64_t dims) {
    Value heads = e.index(p.numHeads);
    Value rowIndex = row.y;
    if (!p.paged) {
      Value seqQ = e.index(p.seqQ);
      Value batchRows = e.mul(row.z, seqQ);
      rowIndex = e.add(batchRows, row.y);
    }
    Value rowHeads = e.mul(rowIndex, heads);
    Value rowHead = e.add(rowHeads, h);
    Value rowSize = e.index(dims);
    return e.mul(rowHead, rowSize);
  }

  /// Word offsets of cache token `t`'s latent row and RoPE key.
  std::pair<Value, Value> cacheWords(Value t) {
    if (!p.paged) {
      Value seqK = e.index(p.seqK);
      Value batchTokens = e.mul(row.z, seqK);
      Value token = e.add(batchTokens, t);
      Value latentWords = e.index(p.latentDim / kPerVector);
      Value ropeWords = e.index(p.ropeDim / kPerVector);
      Value latentAt = e.mul(token, latentWords);
      Value ropeAt = e.mul(token, ropeWords);
      return {latentAt, ropeAt};
    }
    Value pageSize = e.index(p.pageSize);
    Value slot = arith::RemUIOp::create(e.b, t, pageSize);
    Value lastColumn = e.index(p.maxPagesPerSeq - 1);
    Value pageColumn = e.div(t, pageSize);
    Value column = e.min(pageColumn, lastColumn);
    Value page = loadIndex(e, buf.blockTables, {row.seq, column});
    page = clampIndex(e, page, 0, p.numPages - 1);
    Value pageSlots = e.mul(page, pageSize);
    Value cacheSlot = e.add(pageSlots, slot);
    Value rowWords = e.index(width / kPerVector);
    Value at = e.mul(cacheSlot, rowWords);
    Value latentWords = e.index(p.latentDim / kPerVector);
    Value ropeAt = e.add(at, latentWords);
    return {at, ropeAt};
  }

  /// This thread's 16-byte share of the whole rows (latent, then RoPE) of
  /// tokens t0 .. t0 + block_k - 1: zeros for tokens at or past `stop`.
  SmallVector<Value> loadRows(Value t0) {
    Value zeroVector = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(vecType, e.b.getI32IntegerAttr(0)));
    SmallVector<Value> values;
    auto share = [&](int64_t words, bool rope) {
      forClampedShare(
          e, l.threads, thread, l.blockK * words, words, [&](Value r, Value c) {
            Value t = e.add(t0, r);
            Value valid = cmpI(e, arith::CmpIPredicate::slt, t, stop);
            Value clamped = e.min(t, lastToken);
            auto [latentAt, ropeAt] = cacheWords(clamped);
            Value at = e.add(rope ? ropeAt : latentAt, c);
            Value v = memref::LoadOp::create(e.b, rope ? ropeView : latentView,
                                             ValueRange{at});
            values.push_back(e.select(valid, v, zeroVector));
          });
    };
    share(p.latentDim / kPerVector, false);
    share(p.ropeDim / kPerVector, true);
    return values;
  }

  void storeRows(ArrayRef<Value> values) {
    int64_t k0 = 0;
    Value rowWords = e.index(stride / kPerVector);
    auto share = [&](int64_t words, int64_t firstWord) {
      int64_t rounds = 0;
      forGuardedShare(e, l.threads, thread, l.blockK * words, words,
                      [&](int64_t k, Value r, Value c) {
                        Value rowAt = e.mul(r, rowWords);
                        Value first = e.index(firstWord);
                        Value inRow = e.add(c, first);
                        Value at = e.add(rowAt, inRow);
                        memref::StoreOp::create(e.b, values[k0 + k], kvStage,
                                                ValueRange{at});
                        rounds = std::max(rounds, k + 1);
                      });
      k0 += rounds;
    };
    share(p.latentDim / kPerVector, 0);
    share(p.ropeDim / kPerVector, p.latentDim / kPerVector);
  }

  int64_t productsPerPart() const { return width / kTile / l.scoreSplit; }

  /// The subgroup's query tiles for its part (kept in registers for the
  /// whole kernel): head tile `rt`, products of part `part`.
  SmallVector<Value> loadQueryTiles() {
    Value tileHeads = e.index(kTile);
    Value tileHead = e.mul(rt, tileHeads);
    Value h = e.add(head0, tileHead);
    Value qLatent = queryOffset(h, p.latentDim);
    Value qRope = queryOffset(h, p.ropeDim);
    int64_t latentSteps = p.latentDim / kTile, per = productsPerPart();
    auto tilesOf = [&](int64_t q) {
      SmallVector<Value> tiles;
      for (int64_t k = q * per; k < (q + 1) * per; ++k) {
        bool latent = k < latentSteps;
        Value offset = e.index(latent ? k * kTile : (k - latentSteps) * kTile);
        Value at = e.add(latent ? qLatent : qRope, offset);
        tiles.push_back(loadMatrix(e, aType, latent ? qlView : qrView, at,
                                   latent ? p.latentDim : p.ropeDim, false));
      }
      return tiles;
    };
    // if part == 0 then tiles(0) else (if part == 1 then tiles(1) ...).
    SmallVector<Type> types(per, aType);
    std::function<SmallVector<Value>(int64_t)> chain = [&](int64_t q) {
      if (q == l.scoreSplit - 1)
        return tilesOf(q);
      Value index = e.index(q);
      Value isPart = cmpI(e, arith::CmpIPredicate::eq, part, index);
      return e.ifElse(
          isPart, types, [&] { return tilesOf(q); },
          [&] { return chain(q + 1); });
    };
    return chain(0);
  }

  SmallVector<Value> keyStep(Value t0, ValueRange state) {
    int64_t outTiles = l.outColTiles(p.latentDim);
    storeRows(SmallVector<Value>(state.drop_front(outTiles + 4)));
    gpu::BarrierOp::create(e.b);
    Value next = e.index(l.blockK);
    Value t1 = e.add(t0, next);
    SmallVector<Value> ahead = loadRows(t1);

    // S: the subgroup's part of its score matrix, every K^T tile from the
    // stage at a column the part gives (latent and RoPE alike), in two
    // accumulators.
    int64_t per = productsPerPart();
    Value tileRows = e.index(kTile * stride);
    Value keyRow = e.mul(kt, tileRows);
    Value partWidth = e.index(per * kTile);
    Value partColumn = e.mul(part, partWidth);
    Value keyBase = e.add(keyRow, partColumn);
    Value zeroF = e.constF32(0.0f);
    Value acc[2];
    acc[0] = gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, zeroF);
    acc[1] = acc[0];
    for (int64_t j = 0; j < per; ++j) {
      Value offset = e.index(j * kTile);
      Value at = e.add(keyBase, offset);
      Value key = loadMatrix(e, bType, kvStage, at, stride, /*transpose=*/true);
      acc[j % 2] = gpu::SubgroupMmaComputeOp::create(
          e.b, queryTiles[j], key, acc[j % 2], UnitAttr(), UnitAttr());
    }
    Value scores = acc[0];
    if (per > 1)
      scores = gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{acc[0], acc[1]}, gpu::MMAElementwiseOp::ADDF);
    Value tileElements = e.index(kTile * kTile);
    Value partAt = e.mul(subgroup, tileElements);
    gpu::SubgroupMmaStoreMatrixOp::create(e.b, scores, sStage,
                                          ValueRange{partAt},
                                          e.b.getIndexAttr(kTile), UnitAttr());
    gpu::BarrierOp::create(e.b);

    // Softmax of head tile outTile over the step's tokens: the parts
    // summed in the same order by every subgroup that owns the tile.
    Value c = e.constF32(static_cast<float>(p.softmaxScale * kLog2E));
    Value limit = e.sub(stop, t0);
    SmallVector<Value> u;
    for (int64_t k = 0; k < l.keyTiles; ++k) {
      SmallVector<Value> sums(kLaneElements, Value());
      for (int64_t q = 0; q < l.scoreSplit; ++q) {
        Value qTile = e.index((q * l.rowTiles) * l.keyTiles + k);
        Value rowTileOffset = e.index(l.keyTiles);
        Value tileOfRow = e.mul(outTile, rowTileOffset);
        Value tile = e.add(tileOfRow, qTile);
        Value at = e.mul(tile, tileElements);
        Value partTile = loadMatrix(e, cType, sStage, at, kTile, false);
        for (int64_t i = 0; i < kLaneElements; ++i) {
          Value position = e.index(i);
          Value s = gpu::SubgroupMmaExtractThreadLocalOp::create(
              e.b, e.f32, partTile, position);
          sums[i] = sums[i] ? e.fadd(sums[i], s) : s;
        }
      }
      for (int64_t i = 0; i < kLaneElements; ++i) {
        Value tileKey = e.index(k * kTile);
        Value key = e.add(laneColumns[i % 4], tileKey);
        Value valid = cmpI(e, arith::CmpIPredicate::slt, key, limit);
        Value scaled = e.fmul(sums[i], c);
        Value none = e.negInf();
        u.push_back(e.select(valid, scaled, none));
      }
    }
    Value blockMax[2] = {e.negInf(), e.negInf()};
    for (auto [k, value] : llvm::enumerate(u)) {
      int64_t r = rowHalfOf(k % kLaneElements);
      blockMax[r] = e.fmaxNoNaN(blockMax[r], value);
    }
    Value shift[2], alpha[2], mNew[2];
    for (int r = 0; r < 2; ++r) {
      // The four lanes of a row are neighbours (lane % 4).
      Value rowMax = xorReduce(e, blockMax[r], /*isMax=*/true, 1, 4, sg);
      Value oldMax = state[outTiles + r];
      mNew[r] = e.fmaxNoNaN(oldMax, rowMax);
      shift[r] = finiteOrZero(e, mNew[r]);
      Value diff = e.fsub(oldMax, shift[r]);
      alpha[r] = math::Exp2Op::create(e.b, diff);
    }
    Value alphaTile =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, zeroF);
    for (int64_t i = 0; i < kLaneElements; ++i) {
      Value position = e.index(i);
      alphaTile = gpu::SubgroupMmaInsertThreadLocalOp::create(
          e.b, cType, alpha[rowHalfOf(i)], alphaTile, position);
    }
    SmallVector<Value> out;
    for (int64_t n = 0; n < outTiles; ++n)
      out.push_back(gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{state[n], alphaTile},
          gpu::MMAElementwiseOp::MULF));
    Value sum[2] = {e.constF32(0.0f), e.constF32(0.0f)};
    Value zeroHalf = arith::ConstantOp::create(e.b, e.b.getF16FloatAttr(0.0f));
    Value zeroA =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, aType, zeroHalf);
    SmallVector<Value> probs;
    for (int64_t k = 0; k < l.keyTiles; ++k) {
      Value tile = zeroA;
      for (int64_t i = 0; i < kLaneElements; ++i) {
        int64_t r = rowHalfOf(i);
        Value logit = e.fsub(u[k * kLaneElements + i], shift[r]);
        Value prob = math::Exp2Op::create(e.b, logit);
        sum[r] = e.fadd(sum[r], prob);
        // A conversion: in a bf16 dispatch the matrices' lowering makes it
        // one to bf16.
        Value half = e.fromF32(prob, f16);
        Value position = e.index(i);
        tile = gpu::SubgroupMmaInsertThreadLocalOp::create(e.b, aType, half,
                                                           tile, position);
      }
      probs.push_back(tile);
    }

    // O += P V over this subgroup's columns of its head tile.
    for (int64_t k = 0; k < l.keyTiles; ++k)
      for (int64_t n = 0; n < outTiles; ++n) {
        Value offset = e.index(k * kTile * stride + n * kTile);
        Value at = e.add(colBase, offset);
        Value v = loadMatrix(e, bType, kvStage, at, stride, false);
        out[n] = gpu::SubgroupMmaComputeOp::create(e.b, probs[k], v, out[n],
                                                   UnitAttr(), UnitAttr());
      }
    // The next step rewrites the stage.
    gpu::BarrierOp::create(e.b);
    out.push_back(mNew[0]);
    out.push_back(mNew[1]);
    for (int r = 0; r < 2; ++r) {
      Value kept = e.fmul(state[outTiles + 2 + r], alpha[r]);
      out.push_back(e.fadd(kept, sum[r]));
    }
    out.append(ahead);
    return out;
  }

  /// O / l to the output (or this split's partials), lse = m ln 2 + log l;
  /// NaN where the layout probe failed.
  void finish(ArrayRef<Value> state) {
    int64_t outTiles = l.outColTiles(p.latentDim);
    Value nan = e.constF32(std::numeric_limits<float>::quiet_NaN());
    Value inverse[2];
    Value tileHeads = e.index(kTile);
    Value tileHead = e.mul(outTile, tileHeads);
    Value firstHead = e.add(head0, tileHead);
    Value rowHead = e.add(firstHead, quad);
    Value zero = e.index(0);
    Value groups = e.index(l.groupsPerRow());
    Value group = arith::RemUIOp::create(e.b, subgroup, groups);
    Value isGroup0 = cmpI(e, arith::CmpIPredicate::eq, group, zero);
    Value isPair0 = cmpI(e, arith::CmpIPredicate::eq, pair, zero);
    Value writesLse = arith::AndIOp::create(e.b, isGroup0, isPair0);
    Value lseTarget = partialO ? partialLse : buf.lse;
    for (int r = 0; r < 2; ++r) {
      Value sum =
          xorReduce(e, state[outTiles + 2 + r], /*isMax=*/false, 1, 4, sg);
      Value zeroF = e.constF32(0.0f);
      Value has =
          arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum, zeroF);
      Value oneF = e.constF32(1.0f);
      Value safeSum = e.select(has, sum, oneF);
      Value reciprocal = e.fdiv(oneF, safeSum);
      Value inv = e.select(has, reciprocal, zeroF);
      inverse[r] = e.select(layoutHolds, inv, nan);
      if (!lseTarget)
        continue;
      Value half = e.index(kTile / 2 * r);
      Value head = e.add(rowHead, half);
      emitIf(e, writesLse, [&] {
        Value logSum = math::LogOp::create(e.b, safeSum);
        Value ln2 = e.constF32(static_cast<float>(kLn2));
        Value shift = finiteOrZero(e, state[outTiles + r]);
        Value base = e.fmul(shift, ln2);
        Value value = e.fadd(base, logSum);
        Value none = e.negInf();
        Value lse = e.select(has, value, none);
        lse = e.select(layoutHolds, lse, nan);
        if (partialO)
          memref::StoreOp::create(e.b, lse, partialLse,
                                  ValueRange{row.z, row.y, head, split});
        else
          memref::StoreOp::create(e.b, lse, buf.lse, lseIndices(p, row, head));
      });
    }
    for (int64_t n = 0; n < outTiles; ++n)
      for (int64_t i = 0; i < kLaneElements; ++i) {
        int64_t r = rowHalfOf(i);
        Value position = e.index(i);
        Value o = gpu::SubgroupMmaExtractThreadLocalOp::create(
            e.b, e.f32, state[n], position);
        Value value = e.fmul(o, inverse[r]);
        Value half = e.index(kTile / 2 * r);
        Value head = e.add(rowHead, half);
        Value tileColumn = e.index(n * kTile);
        Value inGroup = e.add(laneColumns[i % 4], tileColumn);
        Value d = e.add(colBase, inGroup);
        if (partialO)
          memref::StoreOp::create(e.b, value, partialO,
                                  ValueRange{row.z, row.y, head, split, d});
        else
          storeF32(e, value, buf.output, headIndices(p, row, head, d));
      }
  }

  Value quad, pair, lastToken;
  /// The subgroup's output head tile and first latent column.
  Value outTile, colBase;
  SmallVector<Value> laneColumns;
  Value probeA, layoutHolds;
};

} // namespace

void mlir::ejk::buildVulkanMlaRegisterBody(OpBuilder &b, Location loc,
                                           const VulkanMlaPlan &plan,
                                           const MlaBuffers &buf,
                                           Value partialO, Value partialLse,
                                           int64_t subgroupSize) {
  MlaRegisterKernel(b, loc, plan, buf, partialO, partialLse, subgroupSize)
      .build();
}
