//===- LaneSelect.cpp - native sparse selection, one subgroup a token -----===//
//
// The select dispatch of Kernels.h on Vulkan with `subgroup_select = 1`:
// one workgroup of one subgroup per (token, KV head, batch) instead of one
// thread per token. The portable form runs every head's block scores, the
// softmax, the compression output and the top-k of a token as one thread's
// loops (about 16k dependent loads a token at T4096 H16/4 D128, 64 blocks:
// 7.3 ms on an H200 with few warps in flight); here
//
//   - lane l holds compressed blocks c = l, l + W, ... (W lanes): their
//     scores (q . kc over head_dim, q read once for all of them), their
//     probabilities and the group's summed probabilities, in registers;
//   - the row max is a subgroup max; the row sum, the compression output
//     (lanes over head_dim) and nothing else walk the blocks in order,
//     each block's value broadcast from its lane by a shuffle, so every
//     sum is added in the portable form's order: the same bits, the same
//     selected blocks;
//   - top-k: each round, each lane's best (key, block) and then a subgroup
//     arg-max (larger key, then the smaller block: ejKernel's order); every
//     lane ends with the same winner, whose lane sets its sum to -inf.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Scores.h"
#include "Sparse/Kernels.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

class LaneSelectBuilder {
public:
  LaneSelectBuilder(OpBuilder &builder, Location loc, const NativeSparsePlan &p)
      : e(builder, loc, 1), p(p), lanes(p.subgroupSize),
        perLane((std::max<int64_t>(p.numBlocks(), 1) + lanes - 1) / lanes),
        dimsPerLane((p.headDim + lanes - 1) / lanes) {}

  void build(Value query, Value gCmp, Value kc, Value vc, Value selected,
             Value oCmp) {
    Value t = WorkgroupIdOp::create(e.b, 0);
    kvh = WorkgroupIdOp::create(e.b, 1);
    b = WorkgroupIdOp::create(e.b, 2);
    lane = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    Value one = e.index(1);
    qb = e.div(t, e.index(p.blockSize));
    Value seen = e.add(qb, one);
    Value blockSize = e.index(p.blockSize);
    done = e.div(e.add(t, one), blockSize);
    for (int64_t j = 0; j < perLane; ++j) {
      Value c = e.add(lane, e.index(j * lanes));
      blocks.push_back(c);
      inSeen.push_back(cmp(arith::CmpIPredicate::slt, c, seen));
      inDone.push_back(cmp(arith::CmpIPredicate::slt, c, done));
    }

    SmallVector<Value> sums(perLane, e.constF32(0.0f));
    Value groupHeads = e.index(p.group());
    sums = e.forLoop(e.index(0), groupHeads, one, sums,
                     [&](Value g, ValueRange carried) {
                       Value h = e.add(e.mul(kvh, e.index(p.group())), g);
                       return head(query, gCmp, kc, vc, oCmp, t, h, carried);
                     });
    topK(selected, t, sums);
  }

private:
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(e.b, pred, x, y);
  }

  /// This lane's value of block `c` (uniform over the subgroup) among
  /// `values` (one per block of the lane), then lane c % W's value of it.
  Value broadcastBlock(ArrayRef<Value> values, Value c) {
    Value slot = e.div(c, e.index(lanes));
    Value mine = values[0];
    for (int64_t j = 1; j < perLane; ++j)
      mine = e.select(cmp(arith::CmpIPredicate::eq, slot, e.index(j)),
                      values[j], mine);
    Value from = e.toI32(arith::RemSIOp::create(e.b, c, e.index(lanes)));
    return gpu::ShuffleOp::create(e.b, mine, from, e.constI32(lanes),
                                  gpu::ShuffleMode::IDX)
        .getShuffleResult();
  }

  /// One head of the group: the compression branch into `oCmp`, and the
  /// group's sums (`carried`) plus this head's probabilities.
  SmallVector<Value> head(Value query, Value gCmp, Value kc, Value vc,
                          Value oCmp, Value t, Value h, ValueRange carried) {
    // Scores of this lane's blocks (rows past the last block read the last
    // one and are never used), each in head_dim order as the portable form.
    int64_t lastBlock = std::max<int64_t>(p.numBlocks(), 1) - 1;
    SmallVector<Value> rows;
    for (Value c : blocks)
      rows.push_back(e.min(c, e.index(lastBlock)));
    SmallVector<Value> zeros(perLane, e.constF32(0.0f));
    Value one = e.index(1);
    Value headDim = e.index(p.headDim);
    SmallVector<Value> dots = e.forLoop(
        e.index(0), headDim, one, zeros, [&](Value d, ValueRange acc) {
          Value q = e.toF32(
              memref::LoadOp::create(e.b, query, ValueRange{b, t, h, d}));
          SmallVector<Value> next;
          for (int64_t j = 0; j < perLane; ++j) {
            Value k =
                memref::LoadOp::create(e.b, kc, ValueRange{b, kvh, rows[j], d});
            next.push_back(math::FmaOp::create(e.b, q, k, acc[j]));
          }
          return next;
        });
    SmallVector<Value> scores;
    for (Value dot : dots)
      scores.push_back(e.fmul(dot, e.constF32(p.softmaxScale)));

    // lse over the completed blocks (0 without one, as ejKernel): the max
    // over the subgroup, the sum in block order.
    Value localMax = e.negInf();
    for (int64_t j = 0; j < perLane; ++j)
      localMax =
          e.fmaxNoNaN(localMax, e.select(inDone[j], scores[j], e.negInf()));
    Value m = reduceAcrossLanes(e, localMax, /*isMax=*/true, lanes, lanes);
    Value zero = e.index(0);
    Value l = guardedLoop(
        e, zero, done, {e.constF32(0.0f)}, [&](Value c, ValueRange it) {
          Value s = broadcastBlock(scores, c);
          return SmallVector<Value>{e.fadd(it[0], e.exp(e.fsub(s, m)))};
        })[0];
    Value any = cmp(arith::CmpIPredicate::sgt, done, zero);
    Value zeroF = e.constF32(0.0f);
    Value logL = math::LogOp::create(e.b, e.select(any, l, e.constF32(1.0f)));
    Value lse = e.select(any, e.fadd(e.select(any, m, zeroF), logL), zeroF);

    // Probabilities; the group's sums count the token's own block as 1.
    SmallVector<Value> probs, sums;
    for (int64_t j = 0; j < perLane; ++j) {
      Value prob = e.exp(e.fsub(scores[j], lse));
      probs.push_back(prob);
      Value own = cmp(arith::CmpIPredicate::eq, blocks[j], qb);
      Value add = e.select(own, e.constF32(1.0f), prob);
      sums.push_back(e.select(inSeen[j], e.fadd(carried[j], add), carried[j]));
    }

    // The gated compression output, lanes over head_dim, blocks in order.
    Value gate =
        e.toF32(memref::LoadOp::create(e.b, gCmp, ValueRange{b, t, h}));
    SmallVector<Value> dims;
    for (int64_t k = 0; k < dimsPerLane; ++k) {
      Value lastDim = e.index(p.headDim - 1);
      dims.push_back(e.min(e.add(lane, e.index(k * lanes)), lastDim));
    }
    SmallVector<Value> acc = guardedLoop(
        e, zero, done, SmallVector<Value>(dimsPerLane, zeroF),
        [&](Value c, ValueRange it) {
          Value prob = broadcastBlock(probs, c);
          SmallVector<Value> next;
          for (int64_t k = 0; k < dimsPerLane; ++k) {
            Value v =
                memref::LoadOp::create(e.b, vc, ValueRange{b, kvh, c, dims[k]});
            next.push_back(math::FmaOp::create(e.b, prob, v, it[k]));
          }
          return next;
        });
    Type outType = cast<MemRefType>(oCmp.getType()).getElementType();
    for (int64_t k = 0; k < dimsPerLane; ++k) {
      Value d = e.add(lane, e.index(k * lanes));
      Value value = e.fromF32(e.fmul(acc[k], gate), outType);
      auto inside = scf::IfOp::create(
          e.b, cmp(arith::CmpIPredicate::slt, d, e.index(p.headDim)),
          /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPoint(inside.thenBlock()->getTerminator());
      memref::StoreOp::create(e.b, value, oCmp, ValueRange{b, t, h, d});
    }
    return sums;
  }

  /// Top-k by repeated arg-max over key_c = sum_c + f32(c) * 1e-8 (f32, as
  /// ejKernel): strictly larger wins, equal keys go in increasing c; a
  /// taken block's sum becomes -inf; slots past the token's blocks get -1.
  void topK(Value selected, Value t, ArrayRef<Value> sums) {
    Value tie = e.constF32(1e-8f);
    SmallVector<Value> cs;
    for (Value c : blocks)
      cs.push_back(e.toI32(c));
    Value one = e.index(1);
    Value slots = e.index(p.slots());
    e.forLoop(e.index(0), slots, one, sums, [&](Value i, ValueRange current) {
      Value bestKey = e.negInf();
      Value bestBlock = e.constI32(-1);
      for (int64_t j = 0; j < perLane; ++j) {
        Value cf = arith::SIToFPOp::create(e.b, e.f32, cs[j]);
        Value unseen = e.negInf();
        Value key =
            e.select(inSeen[j], e.fadd(current[j], e.fmul(cf, tie)), unseen);
        Value better =
            arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, key, bestKey);
        bestKey = e.select(better, key, bestKey);
        bestBlock = e.select(better, cs[j], bestBlock);
      }
      for (int64_t offset = lanes / 2; offset >= 1; offset /= 2) {
        Value otherKey = shuffleXor(bestKey, offset);
        Value otherBlock = shuffleXor(bestBlock, offset);
        Value larger = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT,
                                             otherKey, bestKey);
        Value equal = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ,
                                            otherKey, bestKey);
        Value earlier = cmp(arith::CmpIPredicate::slt, otherBlock, bestBlock);
        Value takes = arith::OrIOp::create(
            e.b, larger, arith::AndIOp::create(e.b, equal, earlier));
        bestKey = e.select(takes, otherKey, bestKey);
        bestBlock = e.select(takes, otherBlock, bestBlock);
      }
      auto first = scf::IfOp::create(
          e.b, cmp(arith::CmpIPredicate::eq, lane, e.index(0)),
          /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard guard(e.b);
        e.b.setInsertionPoint(first.thenBlock()->getTerminator());
        memref::StoreOp::create(e.b, bestBlock, selected,
                                ValueRange{b, t, kvh, i});
      }
      SmallVector<Value> next;
      for (int64_t j = 0; j < perLane; ++j) {
        Value taken = cmp(arith::CmpIPredicate::eq, cs[j], bestBlock);
        next.push_back(e.select(taken, e.negInf(), current[j]));
      }
      return next;
    });
  }

  Value shuffleXor(Value value, int64_t offset) {
    Value width = e.constI32(lanes);
    return gpu::ShuffleOp::create(e.b, value, e.constI32(offset), width,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }

  Emitter e;
  const NativeSparsePlan &p;
  int64_t lanes, perLane, dimsPerLane;
  Value kvh, b, lane, qb, done;
  /// This lane's blocks, and whether each is one of the token's blocks
  /// (0 .. qb) and one of its completed blocks.
  SmallVector<Value> blocks, inSeen, inDone;
};

} // namespace

void mlir::ejk::buildLaneSelect(OpBuilder &builder, Location loc,
                                const NativeSparsePlan &p, Value query,
                                Value gCmp, Value kc, Value vc, Value selected,
                                Value oCmp) {
  LaneSelectBuilder(builder, loc, p).build(query, gCmp, kc, vc, selected, oCmp);
}
