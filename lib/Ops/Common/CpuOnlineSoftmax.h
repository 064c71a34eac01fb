//===- CpuOnlineSoftmax.h - one online-softmax step on the CPU --*- C++ -*-===//
//
// The running-max / running-sum update that the CPU decode kernels (paged
// attention, MLA) apply to one query row per key block.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_COMMON_CPUONLINESOFTMAX_H
#define EJK_OPS_COMMON_CPUONLINESOFTMAX_H

#include "CpuEmitter.h"

namespace mlir::ejk {

/// One online-softmax step for the row `row` of `scoreS`: `scores` are the
/// block's score vectors (e.lanes keys each, keys past the block's end
/// already -inf) and `blockMax` their lane-wise max. Stores exp(score -
/// newMax) back over the scores, updates the running max and sum in
/// maxS[row] / sumS[row], and returns alpha = exp(oldMax - newMax), the
/// rescale of what the row accumulated before. The block must hold a finite
/// score (at least one live key, finite inputs): newMax is then finite and
/// alpha = exp(-inf) = 0 on the first block.
inline Value emitOnlineSoftmaxRow(Emitter &e, ArrayRef<Value> scores,
                                  Value blockMax, Value scoreS, Value maxS,
                                  Value sumS, Value row) {
  Value oldMax = memref::LoadOp::create(e.b, maxS, row);
  Value newMax =
      e.fmaxNoNaN(oldMax, vector::ReductionOp::create(
                              e.b, vector::CombiningKind::MAXNUMF, blockMax));
  Value alpha = e.exp(e.fsub(oldMax, newMax));
  Value sum = e.splatF32(0.0f);
  for (size_t c = 0; c < scores.size(); ++c) {
    Value prob = e.exp(e.fsub(scores[c], e.broadcast(newMax)));
    sum = e.fadd(sum, prob);
    vector::StoreOp::create(e.b, prob, scoreS,
                            ValueRange{row, e.index(c * e.lanes)});
  }
  Value oldSum = memref::LoadOp::create(e.b, sumS, row);
  // One op per statement where two would be built in one call: the
  // compilers evaluate arguments in different orders (this is the order GCC
  // built them in).
  Value blockSum =
      vector::ReductionOp::create(e.b, vector::CombiningKind::ADD, sum);
  Value kept = e.fmul(oldSum, alpha);
  Value newSum = e.fadd(kept, blockSum);
  memref::StoreOp::create(e.b, newMax, maxS, row);
  memref::StoreOp::create(e.b, newSum, sumS, row);
  return alpha;
}

} // namespace mlir::ejk

#endif // EJK_OPS_COMMON_CPUONLINESOFTMAX_H
