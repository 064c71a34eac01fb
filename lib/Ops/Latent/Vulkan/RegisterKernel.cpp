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
//               issued a step ahead; a row past the end repeats the last
//               token's, whose score is masked, so no word takes a select)
//               go to workgroup memory: every K^T tile of the scores comes
//               from there, so the products take no branch and no load
//               from the buffers
//   S           subgroup g works on head tile g / groups (groups =
//               subgroups / head tiles = token tiles x parts): it sums its
//               part of the 576-deep products of one token tile (queries
//               in registers, two accumulators) and stores it: one 16x16
//               f32 tile each
//   softmax     the subgroups of a head tile each read that tile's parts
//               (their own from registers) and run the same online
//               softmax on the matrix elements (exp2 with the scale folded
//               in; l kept per lane until the end): P stays in registers
//               as the A operands of P V, the row factors scale O in place
//   O = O * alpha + P V
//               subgroup g owns latent columns g % groups of its head
//               tile; V tiles from the stage
//
// Three barriers a step (rows staged, parts stored, stage free), against
// the `cooperative = 1` kernel's four, and no per-thread softmax pass
// through workgroup memory. Where pages hold whole steps, a step's page
// is looked up once, not once per 16-byte word.
//
// `cooperative = 3` (pipelined): two stages of `block_k` rows, P V one
// step late. Phase 1 of step j: its score part (rows from stage j % 2)
// and step j - 1's P V (its P kept in registers, V from the other stage);
// a barrier; phase 2: step j + 1's rows to the other stage, step j + 2's
// issued (from a page looked up a step earlier), step j's softmax; a
// barrier. Two barriers a step, the products
// of two steps in one phase; the score parts side by side in 16 rows 136
// floats apart (conflict-free f32 matrix loads and stores). After the
// loop, the last step's P V.
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
    // A step's rows share one page when pages hold whole steps (steps start
    // at multiples of block_k).
    pageOnce = p.paged && p.pageSize % l.blockK == 0;
    // The pipelined kernel carries the next step's page (H200: DeepSeek-V3
    // bf16 318.1 -> 311.5 us); the `cooperative = 2` kernel looks it up in
    // the step that needs it (with the page ahead 259.0 -> 278.0 us,
    // docs/performance-vulkan-latent.md).
    pageAhead = pageOnce && l.pipelined;
    partTile = l.wideParts ? kTile : kTile * kTile;
    partLead = l.wideParts ? l.partStride() : kTile;
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
    kvStage = allocWorkgroupOf(
        e, l.rowStages() * l.blockK * stride / kPerVector, vecType);
    int64_t parts =
        l.wideParts ? kTile * l.partStride() : l.numSubgroups * kTile * kTile;
    sStage = allocWorkgroupOf(e, parts, e.f32);
    probeA = allocWorkgroupOf(e, kTile * kTile, f16);

    SmallVector<Value> ahead = loadRows(begin, pageOf(begin));
    writeLayoutProbe();
    gpu::BarrierOp::create(e.b);
    layoutHolds = readLayoutProbe();

    // Subgroup g works on head tile g / groups throughout: its output
    // columns are column group g % groups, and its score part is part
    // (g % groups) / token tiles of the matrix of token tile (g % groups)
    // % token tiles (groups = token tiles x parts), so one of the four
    // parts its softmax reads is its own, in registers.
    Value groups = e.index(l.groupsPerRow());
    outTile = arith::DivUIOp::create(e.b, subgroup, groups);
    Value group = arith::RemUIOp::create(e.b, subgroup, groups);
    rt = outTile;
    Value keyTiles = e.index(l.keyTiles);
    kt = arith::RemUIOp::create(e.b, group, keyTiles);
    part = arith::DivUIOp::create(e.b, group, keyTiles);
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
    if (!l.pipelined) {
      inits.append(ahead);
      // The page of the second step (pageAhead).
      if (pageAhead) {
        Value t1 = e.add(begin, step);
        inits.push_back(stepPage(t1));
      }
      SmallVector<Value> state =
          e.forLoop(begin, stop, step, inits,
                    [&](Value t0, ValueRange s) { return keyStep(t0, s); });
      finish(state);
      return;
    }
    // Pipelined: the first step's rows to stage 0, stage 1 zeroed (the
    // first step's P V, of zero P, reads it), the second step's rows
    // issued.
    Value stageElements = e.index(l.blockK * stride);
    Value zeroIndex0 = e.index(0);
    storeRows(ahead, zeroIndex0);
    zeroStage(stageElements);
    Value t1 = e.add(begin, step);
    ahead = loadRows(t1, pageOf(t1));
    gpu::BarrierOp::create(e.b);
    Value zeroHalf = arith::ConstantOp::create(e.b, e.b.getF16FloatAttr(0.0f));
    Value zeroA =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, aType, zeroHalf);
    for (int64_t k = 0; k < l.keyTiles; ++k)
      inits.push_back(zeroA);
    inits.append(ahead);
    // The page of the third step (pageAhead).
    if (pageAhead) {
      Value t2 = e.add(t1, step);
      inits.push_back(stepPage(t2));
    }
    SmallVector<Value> state =
        e.forLoop(begin, stop, step, inits, [&](Value t0, ValueRange s) {
          return keyStepPipelined(t0, s);
        });
    // The last step's P V, from its stage: (steps + 1) % 2.
    int64_t outTiles = l.outColTiles(p.latentDim);
    Value span = e.sub(stop, begin);
    Value spanUp = e.add(span, stepLess);
    Value count = e.div(spanUp, step);
    Value countNext = e.add(count, one);
    Value two = e.index(2);
    Value lastStage = arith::RemUIOp::create(e.b, countNext, two);
    Value lastBase = e.mul(lastStage, stageElements);
    SmallVector<Value> out(state.begin(), state.begin() + outTiles);
    SmallVector<Value> probs(state.begin() + outTiles + 4,
                             state.begin() + outTiles + 4 + l.keyTiles);
    accumulatePV(out, probs, lastBase);
    for (int64_t n = 0; n < outTiles; ++n)
      state[n] = out[n];
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

  /// The block table's entry (i32, as loaded; loadRows converts and
  /// clamps it) for the page that holds the rows of the step from t0
  /// (pageOnce): that of min(t0, last token). The steps' loops load it a
  /// step before loadRows needs it (pageAhead), so that no row load's
  /// address waits on a load of its own step.
  Value stepPage(Value t0) {
    Value first = e.min(t0, lastToken);
    Value pageSize = e.index(p.pageSize);
    Value pageColumn = e.div(first, pageSize);
    Value lastColumn = e.index(p.maxPagesPerSeq - 1);
    Value column = e.min(pageColumn, lastColumn);
    return memref::LoadOp::create(e.b, buf.blockTables,
                                  ValueRange{row.seq, column});
  }

  /// This thread's 16-byte share of the whole rows (latent, then RoPE) of
  /// tokens t0 .. t0 + block_k - 1 (`page`: stepPage(t0) where pageOnce,
  /// null otherwise).
  /// A token at or past `stop` reads the last token's row instead (finite
  /// data; its score is masked and its P is 0), so the words need no select.
  SmallVector<Value> loadRows(Value t0, Value page) {
    // pageOnce: the step's page looked up once; every row of the step (or,
    // past the end, the last token) lies in it, so row r's words start at
    // the step's first row plus min(r, last row) rows: one base a step, no
    // per-word token, clamp or slot arithmetic (H100: DeepSeek-V3 bf16
    // decode 290.7 -> 272.5 us, docs/performance-vulkan-latent.md).
    Value lastRow, rowBase, ropeBase;
    if (pageOnce) {
      Value first = e.min(t0, lastToken);
      Value pageSize = e.index(p.pageSize);
      Value pageColumn = e.div(first, pageSize);
      Value pageStart = e.mul(pageColumn, pageSize);
      Value entry = arith::IndexCastOp::create(e.b, e.b.getIndexType(), page);
      Value clamped = clampIndex(e, entry, 0, p.numPages - 1);
      Value pageRow = e.mul(clamped, pageSize);
      lastRow = e.sub(lastToken, first);
      Value slot0 = e.sub(first, pageStart);
      Value firstRow = e.add(pageRow, slot0);
      Value rowWords = e.index(width / kPerVector);
      rowBase = e.mul(firstRow, rowWords);
      Value latentWords = e.index(p.latentDim / kPerVector);
      ropeBase = e.add(rowBase, latentWords);
    }
    SmallVector<Value> values;
    auto share = [&](int64_t words, bool rope) {
      forClampedShare(
          e, l.threads, thread, l.blockK * words, words, [&](Value r, Value c) {
            if (pageOnce) {
              Value rowInStep = e.min(r, lastRow);
              Value rowWords = e.index(width / kPerVector);
              Value rowOffset = e.mul(rowInStep, rowWords);
              Value rowAt = e.add(rope ? ropeBase : rowBase, rowOffset);
              Value at = e.add(rowAt, c);
              values.push_back(memref::LoadOp::create(
                  e.b, rope ? ropeView : latentView, ValueRange{at}));
              return;
            }
            Value t = e.add(t0, r);
            Value clamped = e.min(t, lastToken);
            auto [latentAt, ropeAt] = cacheWords(clamped);
            Value at = e.add(rope ? ropeAt : latentAt, c);
            values.push_back(memref::LoadOp::create(
                e.b, rope ? ropeView : latentView, ValueRange{at}));
          });
    };
    share(p.latentDim / kPerVector, false);
    share(p.ropeDim / kPerVector, true);
    return values;
  }

  /// The page of the step from t0 where pageOnce (none otherwise).
  Value pageOf(Value t0) { return pageOnce ? stepPage(t0) : Value(); }

  /// Zeros in the stage of rows that starts at f16 element `base`.
  void zeroStage(Value base) {
    Value zeroVector = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(vecType, e.b.getI32IntegerAttr(0)));
    int64_t words = l.blockK * stride / kPerVector;
    Value perWord = e.index(kPerVector);
    Value baseWord = e.div(base, perWord);
    forGuardedShare(
        e, l.threads, thread, words, words, [&](int64_t, Value, Value c) {
          Value at = e.add(baseWord, c);
          memref::StoreOp::create(e.b, zeroVector, kvStage, ValueRange{at});
        });
  }

  /// The step's rows (this thread's share, from loadRows) to the stage;
  /// with `base`, to the stage that starts at f16 element `base`.
  void storeRows(ArrayRef<Value> values, Value base = Value()) {
    Value baseWord;
    if (base) {
      Value perWord = e.index(kPerVector);
      baseWord = e.div(base, perWord);
    }
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
                        if (baseWord)
                          at = e.add(at, baseWord);
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

  /// S: the subgroup's part of its score matrix, every K^T tile from the
  /// stage (at `base` f16 elements when set) at a column the part gives
  /// (latent and RoPE alike), in two accumulators; stored to its place
  /// among the parts.
  void scorePart(Value base) {
    int64_t per = productsPerPart();
    Value tileRows = e.index(kTile * stride);
    Value keyRow = e.mul(kt, tileRows);
    Value partWidth = e.index(per * kTile);
    Value partColumn = e.mul(part, partWidth);
    Value keyBase = e.add(keyRow, partColumn);
    if (base)
      keyBase = e.add(keyBase, base);
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
    // Slot (part x head tiles + head tile) x token tiles + token tile.
    Value rowTiles = e.index(l.rowTiles);
    Value keyTiles = e.index(l.keyTiles);
    Value partRows = e.mul(part, rowTiles);
    Value partRow = e.add(partRows, rt);
    Value partKeys = e.mul(partRow, keyTiles);
    Value slot = e.add(partKeys, kt);
    Value tileElements = e.index(partTile);
    Value partAt = e.mul(slot, tileElements);
    ownScores = scores;
    gpu::SubgroupMmaStoreMatrixOp::create(
        e.b, scores, sStage, ValueRange{partAt}, e.b.getIndexAttr(partLead),
        UnitAttr());
  }

  /// What the softmax of a step gives: O scaled by the row factors, P as
  /// A operands (one a token tile), the new row maxima, the factors and
  /// the step's share of l.
  struct Softmax {
    SmallVector<Value> out, probs;
    Value mNew[2], alpha[2], sum[2];
  };

  /// Softmax of head tile outTile over the step's tokens from t0: the
  /// parts summed in the same order by every subgroup that owns the tile;
  /// `o` the output tiles to scale, `state` the loop state (m, l after the
  /// output tiles).
  Softmax softmax(Value t0, ValueRange o, ValueRange state) {
    int64_t outTiles = l.outColTiles(p.latentDim);
    Softmax r;
    Value tileElements = e.index(partTile);
    Value zeroF = e.constF32(0.0f);
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
        // The subgroup's own part from registers (the same bits as the
        // stored ones, summed in the same order), the others from the
        // parts.
        Value qIndex = e.index(q);
        Value kIndex = e.index(k);
        Value isPart = cmpI(e, arith::CmpIPredicate::eq, part, qIndex);
        Value isKey = cmpI(e, arith::CmpIPredicate::eq, kt, kIndex);
        Value own = arith::AndIOp::create(e.b, isPart, isKey);
        Value partTile = e.ifElse(
            own, TypeRange{cType},
            [&] { return SmallVector<Value>{ownScores}; },
            [&] {
              Value stored = loadMatrix(e, cType, sStage, at, partLead, false);
              return SmallVector<Value>{stored};
            })[0];
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
      int64_t h = rowHalfOf(k % kLaneElements);
      blockMax[h] = e.fmaxNoNaN(blockMax[h], value);
    }
    Value shift[2];
    for (int h = 0; h < 2; ++h) {
      // The four lanes of a row are neighbours (lane % 4).
      Value rowMax = xorReduce(e, blockMax[h], /*isMax=*/true, 1, 4, sg);
      Value oldMax = state[outTiles + h];
      r.mNew[h] = e.fmaxNoNaN(oldMax, rowMax);
      shift[h] = finiteOrZero(e, r.mNew[h]);
      Value diff = e.fsub(oldMax, shift[h]);
      r.alpha[h] = math::Exp2Op::create(e.b, diff);
    }
    Value alphaTile =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, zeroF);
    for (int64_t i = 0; i < kLaneElements; ++i) {
      Value position = e.index(i);
      alphaTile = gpu::SubgroupMmaInsertThreadLocalOp::create(
          e.b, cType, r.alpha[rowHalfOf(i)], alphaTile, position);
    }
    for (int64_t n = 0; n < outTiles; ++n)
      r.out.push_back(gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{o[n], alphaTile},
          gpu::MMAElementwiseOp::MULF));
    r.sum[0] = e.constF32(0.0f);
    r.sum[1] = e.constF32(0.0f);
    Value zeroHalf = arith::ConstantOp::create(e.b, e.b.getF16FloatAttr(0.0f));
    Value zeroA =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, aType, zeroHalf);
    for (int64_t k = 0; k < l.keyTiles; ++k) {
      Value tile = zeroA;
      for (int64_t i = 0; i < kLaneElements; ++i) {
        int64_t h = rowHalfOf(i);
        Value logit = e.fsub(u[k * kLaneElements + i], shift[h]);
        Value prob = math::Exp2Op::create(e.b, logit);
        r.sum[h] = e.fadd(r.sum[h], prob);
        // A conversion: in a bf16 dispatch the matrices' lowering makes it
        // one to bf16.
        Value half = e.fromF32(prob, f16);
        Value position = e.index(i);
        tile = gpu::SubgroupMmaInsertThreadLocalOp::create(e.b, aType, half,
                                                           tile, position);
      }
      r.probs.push_back(tile);
    }
    return r;
  }

  /// O += P V over this subgroup's columns of its head tile, V tiles from
  /// the stage (at `base` f16 elements when set).
  void accumulatePV(SmallVector<Value> &out, ArrayRef<Value> probs,
                    Value base) {
    int64_t outTiles = l.outColTiles(p.latentDim);
    Value columns = colBase;
    if (base)
      columns = e.add(colBase, base);
    for (int64_t k = 0; k < l.keyTiles; ++k)
      for (int64_t n = 0; n < outTiles; ++n) {
        Value offset = e.index(k * kTile * stride + n * kTile);
        Value at = e.add(columns, offset);
        Value v = loadMatrix(e, bType, kvStage, at, stride, false);
        out[n] = gpu::SubgroupMmaComputeOp::create(e.b, probs[k], v, out[n],
                                                   UnitAttr(), UnitAttr());
      }
  }

  /// m, l (the step's sums added to l scaled by the factors) after the
  /// output tiles in `out`.
  void appendRowState(SmallVector<Value> &out, const Softmax &r,
                      ValueRange state) {
    int64_t outTiles = l.outColTiles(p.latentDim);
    out.push_back(r.mNew[0]);
    out.push_back(r.mNew[1]);
    for (int h = 0; h < 2; ++h) {
      Value kept = e.fmul(state[outTiles + 2 + h], r.alpha[h]);
      out.push_back(e.fadd(kept, r.sum[h]));
    }
  }

  SmallVector<Value> keyStep(Value t0, ValueRange state) {
    int64_t outTiles = l.outColTiles(p.latentDim);
    ValueRange rows = state.drop_front(outTiles + 4);
    if (pageAhead)
      rows = rows.drop_back();
    storeRows(SmallVector<Value>(rows));
    gpu::BarrierOp::create(e.b);
    Value next = e.index(l.blockK);
    Value t1 = e.add(t0, next);
    Value page = pageAhead ? state.back() : pageOf(t1);
    SmallVector<Value> ahead = loadRows(t1, page);
    // The page of the step after (its rows are loaded in the next step).
    Value nextPage;
    if (pageAhead) {
      Value t2 = e.add(t1, next);
      nextPage = stepPage(t2);
    }

    scorePart(Value());
    gpu::BarrierOp::create(e.b);
    Softmax r = softmax(t0, state.take_front(outTiles), state);
    SmallVector<Value> out = r.out;
    accumulatePV(out, r.probs, Value());
    // The next step rewrites the stage.
    gpu::BarrierOp::create(e.b);
    appendRowState(out, r, state);
    out.append(ahead);
    if (pageAhead)
      out.push_back(nextPage);
    return out;
  }

  /// A pipelined step (`cooperative = 3`) over tokens t0 .. t0 + block_k:
  /// its rows are in stage j % 2 (j = the step's index), the last step's
  /// in the other, with that step's P in the state. Phase 1: this step's
  /// score part and the last step's P V; phase 2: the next step's rows to
  /// the other stage (the one after issued) and this step's softmax. Two
  /// barriers a step.
  SmallVector<Value> keyStepPipelined(Value t0, ValueRange state) {
    int64_t outTiles = l.outColTiles(p.latentDim);
    Value step = e.index(l.blockK);
    Value since = e.sub(t0, begin);
    Value index = e.div(since, step);
    Value two = e.index(2);
    Value current = arith::RemUIOp::create(e.b, index, two);
    Value one = e.index(1);
    Value other = e.sub(one, current);
    Value stageElements = e.index(l.blockK * stride);
    Value currentBase = e.mul(current, stageElements);
    Value otherBase = e.mul(other, stageElements);

    scorePart(currentBase);
    SmallVector<Value> out(state.begin(), state.begin() + outTiles);
    SmallVector<Value> lastProbs(state.begin() + outTiles + 4,
                                 state.begin() + outTiles + 4 + l.keyTiles);
    accumulatePV(out, lastProbs, otherBase);
    gpu::BarrierOp::create(e.b);

    ValueRange rows = state.drop_front(outTiles + 4 + l.keyTiles);
    if (pageAhead)
      rows = rows.drop_back();
    storeRows(SmallVector<Value>(rows), otherBase);
    Value twoSteps = e.index(2 * l.blockK);
    Value t2 = e.add(t0, twoSteps);
    Value page = pageAhead ? state.back() : pageOf(t2);
    SmallVector<Value> ahead = loadRows(t2, page);
    Value nextPage;
    if (pageAhead) {
      Value t3 = e.add(t2, step);
      nextPage = stepPage(t3);
    }
    Softmax r = softmax(t0, out, state);
    gpu::BarrierOp::create(e.b);
    SmallVector<Value> next = r.out;
    appendRowState(next, r, state);
    next.append(r.probs);
    next.append(ahead);
    if (pageAhead)
      next.push_back(nextPage);
    return next;
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
  /// Whether a step's rows take one page lookup (loadRows), and whether
  /// the loops carry the next step's page (stepPage) in their state.
  bool pageOnce = false, pageAhead = false;
  /// f32 elements from one score part to the next, and between its rows.
  int64_t partTile = 0, partLead = 0;
  /// The subgroup's output head tile and first latent column.
  Value outTile, colBase;
  SmallVector<Value> laneColumns;
  Value probeA, layoutHolds;
  /// The subgroup's score part of the current step (scorePart).
  Value ownScores;
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
