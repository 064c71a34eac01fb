//===- CoopSplitKernel.h - what simple gla's split kernels share -*- C++
//-*-===//
//
// The base of the two dispatches of CoopSplit.h (the state pass,
// CoopSplitStates.cpp; the outputs, CoopSplitOutputs.cpp): the word views
// of the buffers, the head's decay, element offsets, and the 16-byte word
// moves. Operands are the inputs' own bits (f16, or bf16 on bf16 matrices:
// DispatchRewriter::setBF16Matrices); accumulators f32. A matrix that
// becomes memory in 16 bits (a state, a score tile, an output tile) goes
// through the subgroup's 16x16 part of an f32 stage behind subgroup
// barriers and leaves as one 16-byte word a lane (8 neighbouring elements
// of one row): no workgroup barrier and no per-element global store.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_COOPSPLITKERNEL_H
#define EJK_OPS_LINEAR_VULKAN_COOPSPLITKERNEL_H

#include "Common/Arithmetic.h"
#include "Linear/HeadDecay.h"
#include "Linear/Vulkan/CoopMatrices.h"
#include "Linear/Vulkan/CoopSplit.h"
#include "Linear/Vulkan/SlotKernel.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::ejk {
namespace gla_split {

struct SplitTemporaries {
  Value states;
};

class SplitBase : public SlotKernel<GlaProblem, VulkanGlaSplitLayout,
                                    GlaBuffers, SplitTemporaries> {
public:
  using SlotKernel::SlotKernel;

protected:
  void begin() { thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x); }
  Value v0;
};

class SplitKernel : public CoopMatrices<SplitBase> {
public:
  using CoopMatrices::CoopMatrices;

protected:
  static constexpr int64_t kWord = VulkanGlaSplitLayout::kWord;

  /// The word views, the input type and the f32 stage (each subgroup's
  /// 16x16 part), at the function's top level, for workgroups of
  /// `threads`.
  void beginSplit(int64_t threads) {
    workgroupThreads = threads;
    beginCoop();
    inputType = cast<MemRefType>(buf.query.getType()).getElementType();
    qView = wordView(e, buf.query, kWord);
    kView = wordView(e, buf.key, kWord);
    vView = wordView(e, buf.value, kWord);
    oView = wordView(e, buf.output, kWord);
    sView = wordView(e, tmp.states, kWord);
    tileStage = allocWorkgroupOf(e, threads / l.subgroupSize * kT * kT / 4,
                                 wordType(e));
  }

  /// The head's log decay (null without one), after head and seqId.
  void loadGamma() {
    if (p.hasGamma())
      gamma = emitHeadDecay(e, p, buf.gGamma, head, seqId);
  }

  /// exp(gamma x) for an index x (1 without a decay).
  Value decayOf(Value x) {
    if (!gamma)
      return e.constF32(1.0f);
    Value f = arith::SIToFPOp::create(e.b, e.f32, e.toI32(x));
    return e.exp(e.fmul(gamma, f));
  }

  /// Element offsets (f16 elements) of q [B, T, H, K], k [B, T, Hk, K],
  /// v [B, T, Hk, V], the output [B, T, H, V] and the states [slots, H, K,
  /// V] at step `row` of the batch row.
  Value tokenAt(Value row, int64_t heads, Value h, int64_t width) {
    Value token = e.add(e.mul(batchIdx, e.index(p.seq)), row);
    Value tokenHead = e.add(e.mul(token, e.index(heads)), h);
    return e.mul(tokenHead, e.index(width));
  }
  Value qAt(Value row, Value key) {
    return e.add(tokenAt(row, p.heads, head, p.dimK), key);
  }
  Value kAt(Value row, Value key) {
    return e.add(tokenAt(row, p.kvHeads, kvHead, p.dimK), key);
  }
  Value vAt(Value row, Value col) {
    return e.add(tokenAt(row, p.kvHeads, kvHead, p.dimV), col);
  }
  Value oAt(Value row, Value col) {
    return e.add(tokenAt(row, p.heads, head, p.dimV), col);
  }
  Value sAt(Value slot, Value col, Value key) {
    Value slotHead = e.add(e.mul(slot, e.index(p.heads)), head);
    Value colRow = e.add(e.mul(slotHead, e.index(p.dimV)), col);
    return e.add(e.mul(colRow, e.index(p.dimK)), key);
  }
  Value wordAt(Value element) {
    return arith::DivUIOp::create(e.b, element, e.index(kWord));
  }

  /// `value` (f32) as the input type's 16 bits, zero-extended to i32.
  Value bitsOf(Value value) {
    Value bits = arith::BitcastOp::create(e.b, e.b.getI16Type(),
                                          operandBits(e, value, inputType));
    return arith::ExtUIOp::create(e.b, e.b.getI32Type(), bits);
  }

  /// The low (`high` false) or high 16 bits of `lane` (i32) as f32 of the
  /// input type.
  Value halfOf(Value lane, bool high) {
    Value x = lane;
    if (high)
      x = arith::ShRUIOp::create(
          e.b, x, arith::ConstantOp::create(e.b, e.b.getI32IntegerAttr(16)));
    if (inputType.isBF16()) {
      // bf16 is the high half of an f32.
      Value shifted = arith::ShLIOp::create(
          e.b, x, arith::ConstantOp::create(e.b, e.b.getI32IntegerAttr(16)));
      return arith::BitcastOp::create(e.b, e.f32, shifted);
    }
    Value bits = arith::TruncIOp::create(e.b, e.b.getI16Type(), x);
    Value half = arith::BitcastOp::create(e.b, e.b.getF16Type(), bits);
    return arith::ExtFOp::create(e.b, e.f32, half);
  }

  /// Two 16-bit values in one i32 lane, the first in the low half.
  Value pairOf(Value lo, Value hi) {
    Value high = arith::ShLIOp::create(
        e.b, hi, arith::ConstantOp::create(e.b, e.b.getI32IntegerAttr(16)));
    return arith::OrIOp::create(e.b, lo, high);
  }

  /// `matrix` (f32 accumulator) leaves as words: through the subgroup's
  /// part of the f32 stage (subgroup barriers only), lane l takes row l / 2,
  /// columns 8 (l mod 2).. of it and calls `store(row, col, word)` with
  /// their 16-byte word in the input type. A subgroup may call it alone.
  void tileWords(Value matrix, function_ref<void(Value, Value, Value)> store,
                 bool transpose = false) {
    // The tile's 256 floats are 64 words: row r in words 4 r.. 4 r + 3.
    constexpr int64_t perWord = 4, words = kT * kT / perWord;
    Value base = e.mul(subgroup, e.index(words));
    gpu::SubgroupMmaStoreMatrixOp::create(
        e.b, matrix, tileStage, ValueRange{base},
        e.b.getIndexAttr(kT / perWord),
        transpose ? e.b.getUnitAttr() : UnitAttr());
    subgroupBarrier();
    auto floats = VectorType::get({perWord}, e.f32);
    Value first = e.add(base, e.mul(lane, e.index(2)));
    SmallVector<Value> bits;
    for (int64_t w = 0; w < 2; ++w) {
      Value word =
          memref::LoadOp::create(e.b, tileStage, e.add(first, e.index(w)));
      Value four = vector::BitCastOp::create(e.b, floats, word);
      for (int64_t f = 0; f < perWord; ++f)
        bits.push_back(bitsOf(vector::ExtractOp::create(e.b, four, f)));
    }
    SmallVector<Value> lanes;
    for (int64_t h = 0; h < kWord; h += 2)
      lanes.push_back(pairOf(bits[h], bits[h + 1]));
    Value word = vector::FromElementsOp::create(e.b, wordType(e), lanes);
    Value row = arith::DivUIOp::create(e.b, lane, e.index(2));
    Value half = arith::RemUIOp::create(e.b, lane, e.index(2));
    store(row, e.mul(half, e.index(kWord)), word);
    subgroupBarrier();
  }

  /// A round of a chunk's [C, width words] block: this thread's word
  /// (row, word), and whether it is inside the block (null: always).
  struct Round {
    Value row, word, inside;
  };

  SmallVector<Round> rounds(int64_t width) {
    SmallVector<Round> out;
    int64_t total = l.chunk * width;
    int64_t threads = workgroupThreads;
    for (int64_t r = 0; r * threads < total; ++r) {
      Value i = e.add(thread, e.index(r * threads));
      Round x;
      if ((r + 1) * threads > total) {
        x.inside = cmp(arith::CmpIPredicate::slt, i, e.index(total));
        i = e.min(i, e.index(total - 1));
      }
      x.row = arith::DivUIOp::create(e.b, i, e.index(width));
      x.word = arith::RemUIOp::create(e.b, i, e.index(width));
      out.push_back(x);
    }
    return out;
  }

  /// `word` of round `r` into `stage` (rows `stride` f16 elements apart).
  void stageWord(const Round &r, Value word, Value stage, int64_t stride) {
    Value at = e.add(e.mul(r.row, e.index(stride / kWord)), r.word);
    auto store = [&] { memref::StoreOp::create(e.b, word, stage, at); };
    if (r.inside)
      emitIf(e, r.inside, store);
    else
      store();
  }

  /// The words of `rounds` in rows t0.. of `view`: round r's at element
  /// at(t0 + r.row, col0 + r.word kWord) (col0 null: 0).
  SmallVector<Value> loadRounds(ArrayRef<Round> rounds, Value t0, Value col0,
                                Value view,
                                function_ref<Value(Value, Value)> at) {
    SmallVector<Value> words;
    for (const Round &r : rounds) {
      Value col = e.mul(r.word, e.index(kWord));
      if (col0)
        col = e.add(col0, col);
      Value row = e.add(t0, r.row);
      words.push_back(memref::LoadOp::create(e.b, view, wordAt(at(row, col))));
    }
    return words;
  }

  Type inputType;
  int64_t workgroupThreads = 0;
  Value gamma;
  /// Each subgroup's 16x16 f32 tile as 64 words (tileWords).
  Value qView, kView, vView, oView, sView, tileStage;
};

/// The state pass (CoopSplitStates.cpp): workgroup (V block x key block,
/// head, batch row).
void buildGlaSplitStates(OpBuilder &b, Location loc, const GlaProblem &p,
                         const VulkanGlaSplitLayout &l, const GlaBuffers &buf,
                         const SplitTemporaries &tmp);

/// The outputs (CoopSplitOutputs.cpp): workgroup (chunk slot, head, V
/// block).
void buildGlaSplitOutputs(OpBuilder &b, Location loc, const GlaProblem &p,
                          const VulkanGlaSplitLayout &l, const GlaBuffers &buf,
                          const SplitTemporaries &tmp);

} // namespace gla_split
} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_COOPSPLITKERNEL_H
