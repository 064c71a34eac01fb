//===- VulkanShares.h - a thread's share of a staged tile on Vulkan -*- C++
//-*-===//
//
// How the cooperative-matrix kernels (attention forward and backward, MLA,
// native-sparse, paged prefill) split the 16-byte words of a tile of rows
// over a workgroup: element i = thread + k * threads of `total`, at row
// i / width and word i % width, in rounds k. The loads of a round go out
// together, the stores come later; what differs between the kernels is
// only where a row lives, which their callbacks say.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_COMMON_VULKANSHARES_H
#define EJK_OPS_COMMON_VULKANSHARES_H

#include "Common/VulkanMatrices.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::ejk {

/// `body(r, c)` for each round of this thread's share of `total` elements,
/// `width` to a row. The last round's index is clamped to the last element
/// when not every thread has one: its loads then read a valid address, and
/// forGuardedShare never stores what they read.
inline void forClampedShare(Emitter &e, int64_t threads, Value thread,
                            int64_t total, int64_t width,
                            function_ref<void(Value r, Value c)> body) {
  for (int64_t base = 0; base < total; base += threads) {
    Value idx = e.add(thread, e.index(base));
    if (base + threads > total)
      idx = e.min(idx, e.index(total - 1));
    Value r = arith::DivUIOp::create(e.b, idx, e.index(width));
    Value c = arith::RemUIOp::create(e.b, idx, e.index(width));
    body(r, c);
  }
}

/// `body(k, r, c)` for each round k of this thread's share of `total`
/// elements, `width` to a row; a last round that not every thread has runs
/// under `if i < total`.
inline void
forGuardedShare(Emitter &e, int64_t threads, Value thread, int64_t total,
                int64_t width,
                function_ref<void(int64_t k, Value r, Value c)> body) {
  for (int64_t base = 0, k = 0; base < total; base += threads, ++k) {
    Value idx = e.add(thread, e.index(base));
    auto round = [&] {
      Value r = arith::DivUIOp::create(e.b, idx, e.index(width));
      Value c = arith::RemUIOp::create(e.b, idx, e.index(width));
      body(k, r, c);
    };
    if (base + threads <= total) {
      round();
      continue;
    }
    Value inRange = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, idx,
                                          e.index(total));
    auto ifOp = scf::IfOp::create(e.b, inRange, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    round();
  }
}

/// This thread's share of `count` rows of `view` (a word view of a
/// [B, S, heads, dim] f16 buffer, wordView) from sequence position
/// `seqStart` of `batch` and head `h`: 16-byte words, zero past `seqLen`.
inline SmallVector<Value>
loadSequenceRows(Emitter &e, int64_t threads, Value thread, Value view,
                 Value batch, int64_t seqLen, int64_t numHeads, Value h,
                 Value seqStart, int64_t count, int64_t dim) {
  constexpr int64_t halvesPerWord = 8;
  int64_t width = dim / halvesPerWord, total = count * width;
  Value zero = arith::ConstantOp::create(
      e.b, DenseElementsAttr::get(wordType(e), e.b.getI32IntegerAttr(0)));
  SmallVector<Value> values;
  forClampedShare(e, threads, thread, total, width, [&](Value r, Value c) {
    Value seq = e.add(seqStart, r);
    Value valid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, seq,
                                        e.index(seqLen));
    Value seqIndex = e.min(seq, e.index(seqLen - 1));
    Value heads = e.index(numHeads);
    Value row =
        e.add(e.mul(e.add(e.mul(batch, e.index(seqLen)), seqIndex), heads), h);
    Value value = memref::LoadOp::create(
        e.b, view, ValueRange{e.add(e.mul(row, e.index(width)), c)});
    values.push_back(e.select(valid, value, zero));
  });
  return values;
}

} // namespace mlir::ejk

#endif // EJK_OPS_COMMON_VULKANSHARES_H
