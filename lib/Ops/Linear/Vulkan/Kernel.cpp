//===- Kernel.cpp - gated linear recurrences (recurrent) on Vulkan --------===//
//
// `ejk.gla`, `ejk.lightning_attention` and `ejk.recurrent` (Problem.h). One
// dispatch; workgroup = (head_dim_v block, head, sequence). Thread t
// owns column t / TK of the block and the keys t % TK, t % TK + TK, ... of
// it (Kernel.h), its entries S[k, v] of the f32 state in registers. The
// workgroup walks its sequence's chunks of C steps in order (last to first
// with reverse); per chunk, with a = g + gk + gamma (the key log gate):
//
//   stage    (whole workgroup, coalesced along the head dims)
//            scale * q, k and exp(a)             [C, kPad]
//            v (and exp(gv))                     [C, block_v]
//   barrier
//   scan     each thread, over the chunk's steps, its entries in registers:
//              S = exp(a_t) exp(gv_t) * S + k_t * v_t
//              o_t = sum over the TK lanes of q_t * S   (shuffle xor)
//            lane 0 of the column writes o_t to shared memory
//   barrier
//   output   (whole workgroup) o stored, coalesced along head_dim_v
//
// The next chunk's stage writes only what the scan has finished reading,
// and its barrier orders the output's reads before the next scan's writes,
// so two barriers a chunk suffice. The recurrence is the op's own, one step
// at a time: every decay exp(g) is in (0, 1] for gates <= 0, so nothing
// overflows however strong the decay (g = -inf is a zero decay).
//
// The walk this kernel shares with the other recurrent kernel (workgroups,
// packed sequences, stages, chunk loop, output, states) is InOrderScan.h.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/Kernel.h"
#include "Attention/Vulkan/Scores.h"
#include "Linear/HeadDecay.h"
#include "Linear/Sequences.h"
#include "Linear/Vulkan/ChunkParallel.h"
#include "Linear/Vulkan/CoopInOrder.h"
#include "Linear/Vulkan/CoopSplit.h"
#include "Linear/Vulkan/Gla.h"
#include "Linear/Vulkan/InOrderScan.h"
#include "Linear/Vulkan/SlotKernel.h"
#include "StateSpace/Vulkan/Kernels.h"

#include "ejk/Ops/Linear/Config.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

class VulkanGlaBuilder
    : public InOrderScanBuilder<VulkanGlaBuilder, VulkanGlaPlan, GlaBuffers> {
public:
  using InOrderScanBuilder::InOrderScanBuilder;

private:
  friend InOrderScanBuilder;

  /// The state decays over key dims per step (`g`, `gk`), not only by the
  /// head's constant.
  bool stepKeyGates() const { return p.hasG || p.hasGk; }
  bool keyDecayStaged() const { return stepKeyGates(); }

  /// The head's constant log decay (GammaForm).
  Value loadGamma() { return emitHeadDecay(e, p, buf.gGamma, head, seqId); }

  /// exp(gv) per value, and the head's constant decay.
  void allocExtraStages(int64_t /*keyElems*/, int64_t valueElems) {
    if (p.hasGv)
      valueDecayS = allocWorkgroup(e, valueElems);
    if (p.hasGamma()) {
      gamma = loadGamma();
      // Without per-step key gates the key decay is one constant per head.
      if (!stepKeyGates())
        gammaDecay = e.exp(gamma);
    }
  }

  /// The chunk's scaled queries, keys and decays (zero past head_dim_k)
  /// and values; steps past the sequence read its last step (never used).
  void stage(Value c0) {
    Value lastIndex = e.sub(seqLen, one);
    auto rowAt = [&](Value t) { return rowOf(e.min(e.add(c0, t), lastIndex)); };
    int64_t kPad = l.kPad();
    forEachShared(e, l.threads, thread, l.chunk * kPad, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(kPad));
      Value k = arith::RemUIOp::create(e.b, i, e.index(kPad));
      Value row = rowAt(t);
      Value kc = e.min(k, e.index(p.dimK - 1));
      Value valid;
      if (kPad > p.dimK)
        valid = cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK));
      auto masked = [&](Value x) {
        return valid ? e.select(valid, x, e.constF32(0.0f)) : x;
      };
      Value q = e.toF32(memref::LoadOp::create(
          e.b, buf.query, ValueRange{batchIdx, row, head, kc}));
      memref::StoreOp::create(e.b, masked(e.fmul(q, e.constF32(p.scale))), qS,
                              i);
      Value key = e.toF32(memref::LoadOp::create(
          e.b, buf.key, ValueRange{batchIdx, row, kvHead, kc}));
      memref::StoreOp::create(e.b, masked(key), kS, i);
      if (stepKeyGates()) {
        // a = g + gk (+ gamma); stepKeyGates() says one of g, gk exists.
        Value a;
        for (Value gate : {buf.g, buf.gk}) {
          if (!gate)
            continue;
          Value x = e.toF32(memref::LoadOp::create(
              e.b, gate, ValueRange{batchIdx, row, head, kc}));
          a = a ? e.fadd(a, x) : x;
        }
        if (gamma)
          a = e.fadd(a, gamma);
        memref::StoreOp::create(e.b, e.exp(a), decayS, i);
      }
    });
    forEachShared(e, l.threads, thread, l.chunk * l.blockV, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(l.blockV));
      Value c = arith::RemUIOp::create(e.b, i, e.index(l.blockV));
      Value lastCol = e.index(p.dimV - 1);
      Value col = e.min(e.add(v0, c), lastCol);
      Value row = rowAt(t);
      Value v = e.toF32(memref::LoadOp::create(
          e.b, buf.value, ValueRange{batchIdx, row, kvHead, col}));
      memref::StoreOp::create(e.b, v, vS, i);
      if (p.hasGv)
        memref::StoreOp::create(
            e.b,
            e.exp(e.toF32(memref::LoadOp::create(
                e.b, buf.gv, ValueRange{batchIdx, row, head, col}))),
            valueDecayS, i);
    });
  }

  /// The recurrence over the chunk's `len` steps (the same for every
  /// thread, so that the shuffles see whole subgroups).
  SmallVector<Value> recur(Value len, ValueRange state) {
    int64_t kPad = l.kPad();
    return e.forLoop(zero, len, one, state, [&](Value t, ValueRange s) {
      Value vIdx = e.add(e.mul(t, e.index(l.blockV)), myLocal);
      Value vt = memref::LoadOp::create(e.b, vS, vIdx);
      // The column's value decay, folded into every entry's key decay.
      Value valueDecay;
      if (p.hasGv)
        valueDecay = memref::LoadOp::create(e.b, valueDecayS, vIdx);
      Value rowBase = e.mul(t, e.index(kPad));
      Value partial = e.constF32(0.0f);
      SmallVector<Value> next;
      for (int64_t j = 0; j < l.keysPerThread; ++j) {
        Value idx = e.add(rowBase, myKeys[j]);
        Value kv = e.fmul(memref::LoadOp::create(e.b, kS, idx), vt);
        Value decay = stepKeyGates()
                          ? memref::LoadOp::create(e.b, decayS, idx).getResult()
                          : gammaDecay;
        if (valueDecay)
          decay = decay ? e.fmul(decay, valueDecay) : valueDecay;
        Value sn = decay ? math::FmaOp::create(e.b, decay, s[j], kv).getResult()
                         : e.fadd(s[j], kv);
        partial = math::FmaOp::create(e.b, memref::LoadOp::create(e.b, qS, idx),
                                      sn, partial);
        next.push_back(sn);
      }
      Value o = reduceAcrossLanes(e, partial, /*isMax=*/false,
                                  l.threadsPerColumn, l.subgroupSize);
      emitIf(e, isLane0, [&] {
        memref::StoreOp::create(e.b, o, oS,
                                e.add(e.mul(t, e.index(l.blockV)), myLocal));
      });
      return next;
    });
  }

  Value gamma, gammaDecay, valueDecayS;
};

} // namespace

void mlir::ejk::buildVulkanGlaBody(OpBuilder &builder, Location loc,
                                   const VulkanGlaPlan &plan,
                                   const GlaBuffers &buffers) {
  VulkanGlaBuilder(builder, loc, plan, buffers).build();
}

LogicalResult VulkanGla::tile(Operation *op, ConfigAttr attr,
                              DispatchRewriter &rewriter) {
  GlaBuffers buf = findGlaBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  GlaConfig config = *GlaConfig::read(attr, llvm::nulls());
  if (config.chunkParallel && config.cooperative == 3) {
    GlaProblem p = readGlaProblem(op);
    Type element =
        cast<ShapedType>(op->getOperand(0).getType()).getElementType();
    std::optional<VulkanGlaSplitLayout> layout = VulkanGlaSplitLayout::compute(
        p, element, config.chunkSize, config.blockV, rewriter.target(),
        llvm::nulls());
    if (!layout)
      return op->emitOpError("has no Vulkan layout for its config");
    return tileVulkanGlaCoopSplit(op, p, *layout, buf, rewriter);
  }
  if (config.chunkParallel) {
    GlaProblem p = readGlaProblem(op);
    std::optional<VulkanGlaChunkLayout> layout = VulkanGlaChunkLayout::compute(
        p, config.chunkSize, config.blockV, config.cooperative,
        rewriter.target(), llvm::nulls());
    if (!layout)
      return op->emitOpError("has no Vulkan layout for its config");
    return tileVulkanGlaChunkParallel(op, p, *layout, buf, rewriter);
  }
  if (config.cooperative) {
    GlaProblem p = readGlaProblem(op);
    Type element =
        cast<ShapedType>(op->getOperand(0).getType()).getElementType();
    std::optional<VulkanGlaCoopLayout> layout = VulkanGlaCoopLayout::compute(
        p, element, config.chunkSize, config.blockV, config.cooperative,
        rewriter.target(), llvm::nulls());
    if (!layout)
      return op->emitOpError("has no Vulkan layout for its config");
    return tileVulkanGlaCoopInOrder(op, p, *layout, buf, rewriter);
  }
  VulkanGlaPlan plan;
  static_cast<GlaProblem &>(plan) = readGlaProblem(op);
  std::optional<VulkanGlaLayout> layout = VulkanGlaLayout::compute(
      plan, config.chunkSize, config.blockV, rewriter.target(), llvm::nulls());
  if (!layout)
    return op->emitOpError("has no Vulkan layout for its config");
  plan.layout = *layout;

  // replaceBody erases the op: read its location first.
  Location loc = op->getLoc();
  OpBuilder b = rewriter.replaceBody();
  buildVulkanGlaBody(b, loc, plan, buf);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setVulkanLaunch(dispatch, layout->threads,
                                    layout->sharedBytes);
  DispatchRewriter::setWork(dispatch, plan.flops(),
                            DispatchRewriter::bytesOf(buf.all()));
  return success();
}
