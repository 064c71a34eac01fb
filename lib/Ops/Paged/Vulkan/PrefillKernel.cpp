//===- PrefillKernel.cpp - ragged prefill rows on cooperative matrices ----===//
//
// f16 inputs (bf16 on devices with bf16 matrices: the same kernel on the
// inputs' bits), f32 accumulation, 16x16x16 cooperative matrices
// (Prefill.h).
// Workgroup = (query block, KV head); subgroup g owns rows [16 g, 16 g + 16)
// of the block's block_q x G rows (row r = token r / G, head r % G):
//
//   find        the workgroup's sequence and block by a scan of cu_q_lens
//               (the sequences of one or no query have no block)
//   Q           staged once (16-byte loads, dead rows zero), its tiles kept
//               in registers
//   per step of prefill_block_k keys [k0, k0 + block_k) of the keys the
//   block's rows see (causal by position, window):
//     stage     K and V rows of the step's pages (16-byte loads, issued one
//               step ahead; keys past the end are zeros)
//     S = Q K^T per subgroup, through its score stage
//     softmax   subgroup_size / 16 lanes a row: scale, biases, soft cap,
//               mask; P (f16) and the row factors back as matrices
//     O = O * alpha + P V
//   out = O / l (with the sinks and v_scale), written through the stage.
//
//===----------------------------------------------------------------------===//

#include "Common/VulkanMatrices.h"
#include "Common/VulkanShares.h"
#include "Paged/RaggedRows.h"
#include "Paged/Vulkan/Emit.h"
#include "Paged/Vulkan/Prefill.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::paged;

namespace {

constexpr int64_t kTile = VulkanPrefillLayout::kTile;
/// f16 elements per 16-byte vector<4xi32>.
constexpr int64_t kPerVector = 8;

class PrefillKernel {
public:
  PrefillKernel(OpBuilder &builder, Location loc, const RaggedPagedProblem &p,
                const VulkanPrefillLayout &l, const RaggedPagedBuffers &buf)
      : e(builder, loc, 1), p(p), l(l), buf(buf), rowSource(p, buf) {
    MLIRContext *context = builder.getContext();
    f16 = Float16Type::get(context);
    vecType = VectorType::get({4}, e.b.getI32Type());
    aType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "AOp");
    bType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "BOp");
    cType = gpu::MMAMatrixType::get({kTile, kTile}, e.f32, "COp");
    width = p.headDim / kPerVector;
  }

  void build() {
    Value x = WorkgroupIdOp::create(e.b, 0);
    kvHead = WorkgroupIdOp::create(e.b, 1);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    subgroup = divU(e, thread, l.subgroupSize);
    Value lane = remU(e, thread, l.subgroupSize);
    myRow = divU(e, lane, l.lanesPerRow);
    myPart = remU(e, lane, l.lanesPerRow);
    // Views and stages are top-level ops of the body.
    qView = wordView(e, buf.queries, kPerVector);
    kView = wordView(e, buf.keyCache, kPerVector);
    vView = wordView(e, buf.valueCache, kPerVector);
    stage = allocWorkgroupOf(e, l.stageElements() / kPerVector, vecType);
    int64_t rows = l.numSubgroups * kTile;
    sStage = allocWorkgroupOf(e, rows * l.sStride(), e.f32);
    pStage = allocWorkgroupOf(e, rows * l.pStride(), f16);
    alphaStage = allocWorkgroupOf(e, rows * l.alphaStride(), e.f32);
    sBase = e.mul(subgroup, e.index(kTile * l.sStride()));
    pBase = e.mul(subgroup, e.index(kTile * l.pStride()));
    alphaBase = e.mul(subgroup, e.index(kTile * l.alphaStride()));

    Value found = findBlock(x);
    if (found)
      emitIf(e, found, [&] { attend(); });
    else
      attend();
  }

private:
  void store(Value tile, Value memref, Value offset, int64_t lead) {
    gpu::SubgroupMmaStoreMatrixOp::create(e.b, tile, memref, ValueRange{offset},
                                          e.b.getIndexAttr(lead), UnitAttr());
  }

  Value loadIndexAt(Value memref, Value i) { return loadIndex(e, memref, {i}); }

  /// Sets seq, qStart, qLen, blockStart; returns whether the workgroup has a
  /// block (null: it always has).
  Value findBlock(Value x) {
    Value zero = e.index(0), one = e.index(1);
    int64_t bq = l.blockQ;
    if (p.uniformQ) {
      int64_t perSeq = (p.uniformQ + bq - 1) / bq;
      seq = divU(e, x, perSeq);
      Value blockRows = e.index(bq);
      blockStart = e.mul(remU(e, x, perSeq), blockRows);
      qStart = e.mul(seq, e.index(p.uniformQ));
      qLen = e.index(p.uniformQ);
      kvLen = clampedKvLen(seq);
      return Value();
    }
    Value tokens = e.index(p.numTokens);
    Value live = e.index(p.numSeqs);
    if (buf.numSeqs)
      live = e.max(zero, e.min(loadIndexAt(buf.numSeqs, zero), live));
    Value first = e.max(zero, e.min(loadIndexAt(buf.cuQLens, zero), tokens));
    Value none = e.index(-1);
    // (start of slot s, blocks before it, found slot, its rows, block).
    SmallVector<Value> it = e.forLoop(
        zero, live, one, {first, zero, none, zero, zero, zero},
        [&](Value s, ValueRange c) {
          Value prev = c[0], before = c[1];
          Value next = e.max(
              prev, e.min(loadIndexAt(buf.cuQLens, e.add(s, one)), tokens));
          Value n = e.sub(next, prev);
          Value several = cmpI(e, arith::CmpIPredicate::sge, n, e.index(2));
          Value blocks =
              e.select(several, divU(e, e.add(n, e.index(bq - 1)), bq), zero);
          Value after = e.add(before, blocks);
          Value belowAfter = cmpI(e, arith::CmpIPredicate::slt, x, after);
          Value hit = arith::AndIOp::create(
              e.b, cmpI(e, arith::CmpIPredicate::sle, before, x), belowAfter);
          return SmallVector<Value>{next,
                                    after,
                                    e.select(hit, s, c[2]),
                                    e.select(hit, prev, c[3]),
                                    e.select(hit, n, c[4]),
                                    e.select(hit, e.sub(x, before), c[5])};
        });
    Value found = cmpI(e, arith::CmpIPredicate::sge, it[2], zero);
    seq = e.max(it[2], zero);
    qStart = it[3];
    qLen = it[4];
    blockStart = e.mul(it[5], e.index(bq));
    kvLen = clampedKvLen(seq);
    return found;
  }

  Value clampedKvLen(Value s) {
    Value maxContext = e.index(p.maxContext());
    Value upper = e.min(loadIndexAt(buf.kvLens, s), maxContext);
    return e.max(e.index(0), upper);
  }

  void attend() {
    Value zero = e.index(0), one = e.index(1);
    // Query i of the sequence sits at position context + i.
    context = e.sub(kvLen, qLen);
    Value rowsLeft = e.sub(qLen, blockStart);
    Value count = e.min(e.index(l.blockQ), rowsLeft);
    Value firstPos = e.add(context, blockStart);
    Value lastPos = e.sub(e.add(firstPos, count), one);
    kEnd = e.max(zero, e.min(e.add(lastPos, one), kvLen));
    Value kBegin = zero;
    if (p.window) {
      Value window = e.index(*p.window);
      kBegin = e.min(e.max(zero, e.sub(e.add(firstPos, one), window)), kEnd);
    }

    // This lane's softmax row: its token, head and position.
    Value row = e.add(e.mul(subgroup, e.index(kTile)), myRow);
    Value token = divU(e, row, l.groupSize);
    rowToken = e.add(blockStart, token);
    Value headInGroup = remU(e, row, l.groupSize);
    rowHead = e.add(e.mul(kvHead, e.index(l.groupSize)), headInGroup);
    Value tokenInside = cmpI(e, arith::CmpIPredicate::slt, token, count);
    rowLive = arith::AndIOp::create(
        e.b, cmpI(e, arith::CmpIPredicate::slt, row, e.index(l.rows)),
        tokenInside);
    rowPos = e.add(context, rowToken);

    stageQueries(count);
    gpu::BarrierOp::create(e.b);
    Value qBase = e.mul(subgroup, e.index(kTile * l.rowStride()));
    for (int64_t d = 0; d < p.headDim; d += kTile)
      qTiles.push_back(loadMatrix(e, aType, stage, e.add(qBase, e.index(d)),
                                  l.rowStride(), false));
    // K and V overwrite the staged Q.
    gpu::BarrierOp::create(e.b);

    SmallVector<Value> inits;
    Value zeroTile =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
    for (int64_t n = 0; n < p.headDim / kTile; ++n)
      inits.push_back(zeroTile);
    inits.push_back(e.negInf());
    inits.push_back(e.constF32(0.0f));
    inits.append(loadKeys(kBegin));
    SmallVector<Value> state =
        e.forLoop(kBegin, kEnd, e.index(l.blockK), inits,
                  [&](Value k0, ValueRange s) { return keyStep(k0, s); });
    finish(state);
  }

  /// Q rows of the block into the stage: row r at f16 element r * stride.
  void stageQueries(Value count) {
    int64_t rows = l.numSubgroups * kTile, total = rows * width;
    Value zeroVector = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(vecType, e.b.getI32IntegerAttr(0)));
    forGuardedShare(
        e, l.threads, thread, total, width, [&](int64_t, Value r, Value c) {
          Value token = divU(e, r, l.groupSize);
          Value tokenInside = cmpI(e, arith::CmpIPredicate::slt, token, count);
          Value live = arith::AndIOp::create(
              e.b, cmpI(e, arith::CmpIPredicate::slt, r, e.index(l.rows)),
              tokenInside);
          Value packed = e.add(qStart, e.add(blockStart, token));
          Value upper = e.min(packed, e.index(p.numTokens - 1));
          packed = e.max(e.index(0), upper);
          Value headInGroup = remU(e, r, l.groupSize);
          Value head = e.add(e.mul(kvHead, e.index(l.groupSize)), headInGroup);
          Value rowWords = e.index(width);
          Value word = e.add(
              e.mul(e.add(e.mul(packed, e.index(p.numHeads)), head), rowWords),
              c);
          Value v = memref::LoadOp::create(e.b, qView, ValueRange{word});
          v = e.select(live, v, zeroVector);
          Value at = e.add(e.mul(r, e.index(l.rowStride() / kPerVector)), c);
          memref::StoreOp::create(e.b, v, stage, ValueRange{at});
        });
  }

  /// This thread's 16-byte words of the K rows, then the V rows, of keys
  /// [k0, k0 + block_k): zeros at or past kEnd.
  SmallVector<Value> loadKeys(Value k0) {
    int64_t total = l.blockK * width;
    Value zeroVector = arith::ConstantOp::create(
        e.b, DenseElementsAttr::get(vecType, e.b.getI32IntegerAttr(0)));
    Value beforeEnd = e.sub(kEnd, e.index(1));
    Value last = e.max(e.index(0), beforeEnd);
    SmallVector<Value> keys, values;
    forClampedShare(e, l.threads, thread, total, width, [&](Value r, Value c) {
      Value t = e.add(k0, r);
      Value valid = cmpI(e, arith::CmpIPredicate::slt, t, kEnd);
      t = e.min(t, last);
      Value lastColumn = e.index(p.pagesPerSeq - 1);
      Value column = e.min(divU(e, t, p.pageSize), lastColumn);
      Value page = loadIndex(e, buf.pageIndices, {seq, column});
      Value zero = e.index(0);
      page = e.max(e.min(page, e.index(p.numPages - 1)), zero);
      Value slot = remU(e, t, p.pageSize);
      // The row (page, slot, KV head) linearized over the cache's shape.
      Value rowIndex;
      if (p.tokenMajor) {
        Value kvHeads = e.index(p.numKvHeads);
        rowIndex =
            e.add(e.mul(e.add(e.mul(page, e.index(p.pageSize)), slot), kvHeads),
                  kvHead);
      } else {
        Value pageSize = e.index(p.pageSize);
        rowIndex = e.add(
            e.mul(e.add(e.mul(page, e.index(p.numKvHeads)), kvHead), pageSize),
            slot);
      }
      Value word = e.add(e.mul(rowIndex, e.index(width)), c);
      Value k = memref::LoadOp::create(e.b, kView, ValueRange{word});
      Value v = memref::LoadOp::create(e.b, vView, ValueRange{word});
      keys.push_back(e.select(valid, k, zeroVector));
      values.push_back(e.select(valid, v, zeroVector));
    });
    numAhead = static_cast<int64_t>(keys.size());
    keys.append(values);
    return keys;
  }

  void storeKeys(ArrayRef<Value> words) {
    int64_t total = l.blockK * width;
    forGuardedShare(
        e, l.threads, thread, total, width, [&](int64_t k, Value r, Value c) {
          Value at = e.add(e.mul(r, e.index(l.rowStride() / kPerVector)), c);
          memref::StoreOp::create(e.b, words[k], stage, ValueRange{at});
          Value vAt = e.add(at, e.index(l.vOffset() / kPerVector));
          memref::StoreOp::create(e.b, words[numAhead + k], stage,
                                  ValueRange{vAt});
        });
  }

  /// The score of this lane's row for key `key`, with the op's scale,
  /// biases, soft cap and mask (-inf where the row does not see the key).
  Value logit(Value s, Value key) {
    s = e.fmul(s, e.constF32(p.softmaxScale * p.kScale));
    if (p.hasScoreBias()) {
      RaggedRow r;
      r.context = context;
      r.queryIndex = rowToken;
      s = rowSource.addScoreBias(e, r, rowHead, key, s);
    }
    if (p.softCap) {
      Value tanh =
          math::TanhOp::create(e.b, e.fmul(s, e.constF32(1.0f / *p.softCap)));
      s = e.fmul(e.constF32(*p.softCap), tanh);
    }
    Value sees = arith::AndIOp::create(
        e.b, rowLive, cmpI(e, arith::CmpIPredicate::sle, key, rowPos));
    if (p.window)
      sees =
          arith::AndIOp::create(e.b, sees,
                                cmpI(e, arith::CmpIPredicate::sgt,
                                     e.add(key, e.index(*p.window)), rowPos));
    return e.select(sees, s, e.negInf());
  }

  SmallVector<Value> keyStep(Value k0, ValueRange state) {
    int64_t outTiles = p.headDim / kTile, keyTiles = l.blockK / kTile;
    storeKeys(SmallVector<Value>(state.drop_front(outTiles + 2)));
    gpu::BarrierOp::create(e.b);
    SmallVector<Value> ahead = loadKeys(e.add(k0, e.index(l.blockK)));

    // S = Q K^T into this subgroup's score stage.
    for (int64_t j = 0; j < keyTiles; ++j) {
      Value acc = gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType,
                                                           e.constF32(0.0f));
      for (int64_t d = 0; d < outTiles; ++d) {
        Value kt = loadMatrix(e, bType, stage,
                              e.index(j * kTile * l.rowStride() + d * kTile),
                              l.rowStride(), /*transpose=*/true);
        acc = gpu::SubgroupMmaComputeOp::create(e.b, qTiles[d], kt, acc,
                                                UnitAttr(), UnitAttr());
      }
      store(acc, sStage, e.add(sBase, e.index(j * kTile)), l.sStride());
    }
    gpu::BarrierOp::create(e.b);

    // The online softmax of this lane's share of its row.
    int64_t perLane = l.blockK / l.lanesPerRow;
    SmallVector<Value> logits;
    Value blockMax = e.negInf();
    Value rowAt = e.mul(myRow, e.index(l.sStride()));
    for (int64_t j = 0; j < perLane; ++j) {
      Value col = e.add(myPart, e.index(j * l.lanesPerRow));
      Value s = memref::LoadOp::create(
          e.b, sStage, ValueRange{e.add(sBase, e.add(rowAt, col))});
      logits.push_back(logit(s, e.add(k0, col)));
      blockMax = e.fmaxNoNaN(blockMax, logits.back());
    }
    blockMax = xorReduce(e, blockMax, /*isMax=*/true, 1, l.lanesPerRow,
                         l.subgroupSize);
    Value oldMax = state[outTiles], oldSum = state[outTiles + 1];
    Value newMax = e.fmaxNoNaN(oldMax, blockMax);
    Value shift = finiteOrZero(e, newMax);
    Value alpha = e.exp(e.fsub(oldMax, shift));
    Value sum = e.constF32(0.0f);
    Value pRow = e.add(pBase, e.mul(myRow, e.index(l.pStride())));
    for (int64_t j = 0; j < perLane; ++j) {
      Value col = e.add(myPart, e.index(j * l.lanesPerRow));
      Value prob = e.exp(e.fsub(logits[j], shift));
      sum = e.fadd(sum, prob);
      Value at = e.add(pRow, col);
      memref::StoreOp::create(e.b, operandBits(e, prob, p.queryType), pStage,
                              ValueRange{at});
    }
    sum = xorReduce(e, sum, /*isMax=*/false, 1, l.lanesPerRow, l.subgroupSize);
    Value newSum = e.fadd(e.fmul(oldSum, alpha), sum);
    writeRowFactor(alpha);
    gpu::BarrierOp::create(e.b);
    Value alphaTile =
        loadMatrix(e, cType, alphaStage, alphaBase, l.alphaStride(), false);
    SmallVector<Value> probs;
    for (int64_t j = 0; j < keyTiles; ++j)
      probs.push_back(loadMatrix(e, aType, pStage,
                                 e.add(pBase, e.index(j * kTile)), l.pStride(),
                                 false));

    // O = O * alpha + P V.
    SmallVector<Value> out;
    for (int64_t n = 0; n < outTiles; ++n) {
      Value acc = gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{state[n], alphaTile},
          gpu::MMAElementwiseOp::MULF);
      for (int64_t j = 0; j < keyTiles; ++j) {
        Value v = loadMatrix(
            e, bType, stage,
            e.index(l.vOffset() + j * kTile * l.rowStride() + n * kTile),
            l.rowStride(), /*transpose=*/false);
        acc = gpu::SubgroupMmaComputeOp::create(e.b, probs[j], v, acc,
                                                UnitAttr(), UnitAttr());
      }
      out.push_back(acc);
    }
    // The next step rewrites the stages.
    gpu::BarrierOp::create(e.b);
    out.push_back(newMax);
    out.push_back(newSum);
    out.append(ahead);
    return out;
  }

  /// `value` as this lane's columns of its row of the subgroup's row-factor
  /// matrix.
  void writeRowFactor(Value value) {
    Value at = e.add(alphaBase, e.mul(myRow, e.index(l.alphaStride())));
    for (int64_t c = 0; c < kTile / l.lanesPerRow; ++c)
      memref::StoreOp::create(
          e.b, value, alphaStage,
          ValueRange{e.add(at, e.add(myPart, e.index(c * l.lanesPerRow)))});
  }

  /// O times the row's output factor, through the score stage, to the
  /// output rows this subgroup holds.
  void finish(ArrayRef<Value> state) {
    int64_t outTiles = p.headDim / kTile;
    Value max = state[outTiles], sum = state[outTiles + 1];
    Value factor;
    if (buf.sinks) {
      Value sink = loadF32(e, buf.sinks, {rowHead});
      factor = sinkedOutputScale(e, max, sum, sink, p.vScale);
    } else {
      Value has = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                        e.constF32(0.0f));
      Value nothing = e.constF32(0.0f);
      Value safeSum = e.select(has, sum, e.constF32(1.0f));
      factor = e.select(has, e.fdiv(e.constF32(p.vScale), safeSum), nothing);
    }
    Value packed = e.add(qStart, rowToken);
    Value rowAt = e.add(sBase, e.mul(myRow, e.index(l.sStride())));
    for (int64_t n = 0; n < outTiles; ++n) {
      store(state[n], sStage, sBase, l.sStride());
      gpu::BarrierOp::create(e.b);
      emitIf(e, rowLive, [&] {
        for (int64_t c = 0; c < kTile / l.lanesPerRow; ++c) {
          Value col = e.add(myPart, e.index(c * l.lanesPerRow));
          Value o = memref::LoadOp::create(e.b, sStage,
                                           ValueRange{e.add(rowAt, col)});
          SmallVector<Value> indices = rowSource.rowIndices(
              e, buf.output, packed, rowHead, e.add(col, e.index(n * kTile)));
          storeF32(e, e.fmul(o, factor), buf.output, indices);
        }
      });
      gpu::BarrierOp::create(e.b);
    }
  }

  Emitter e;
  const RaggedPagedProblem &p;
  const VulkanPrefillLayout &l;
  const RaggedPagedBuffers &buf;
  RaggedRowSource rowSource;
  Type f16;
  VectorType vecType;
  gpu::MMAMatrixType aType, bType, cType;
  /// 16-byte words of a head_dim row.
  int64_t width = 0;
  Value kvHead, thread, subgroup, myRow, myPart;
  Value qView, kView, vView, stage, sStage, pStage, alphaStage;
  Value sBase, pBase, alphaBase;
  /// The block: its sequence slot, the sequence's first packed row and
  /// queries, the block's first query index, the cached length.
  Value seq, qStart, qLen, blockStart, kvLen;
  /// kv_len - q_len, and the end of the keys the block's rows see.
  Value context, kEnd;
  /// This lane's softmax row: query index in the sequence, query head,
  /// whether it is a row of the block, its position.
  Value rowToken, rowHead, rowLive, rowPos;
  SmallVector<Value> qTiles;
  /// Words of K (and as many of V) each thread loads a step.
  int64_t numAhead = 0;
};

} // namespace

void mlir::ejk::buildVulkanPrefillBody(OpBuilder &b, Location loc,
                                       const RaggedPagedProblem &p,
                                       const VulkanPrefillLayout &layout,
                                       const RaggedPagedBuffers &buffers) {
  PrefillKernel(b, loc, p, layout, buffers).build();
}
