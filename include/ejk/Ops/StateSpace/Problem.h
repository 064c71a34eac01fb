//===- Problem.h - the state-space ops, as kernels see them ----*- C++ -*-===//
//
// The sizes and options of one `ejk.selective_scan` (Mamba-1) or `ejk.ssd`
// (Mamba-2) that the config rules and every kernel builder (CPU, Vulkan)
// need, and the dispatch buffers they read and write.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_STATESPACE_PROBLEM_H
#define EJK_OPS_STATESPACE_PROBLEM_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::ejk {

class DispatchRewriter;
class SelectiveScanOp;
class SsdOp;

struct SelectiveScanProblem {
  int64_t batch, seq, channels, groups, state;
  bool softplus;

  int64_t channelsPerGroup() const { return channels / groups; }
};

/// Per element (b, t, d, n): dt * A, dtu * B, and the two multiply-adds of
/// the state update and the output; the exp is not counted.
inline int64_t selectiveScanFlops(const SelectiveScanProblem &p) {
  return 6 * p.batch * p.seq * p.channels * p.state;
}

struct SelectiveScanBuffers {
  Value u, delta, a, b, c, d, z, deltaBias, initialState;
  Value y, finalState;

  /// Every buffer the scan reads or writes (optional ones may be null).
  SmallVector<Value> all() const {
    return {u, delta, a, b, c, d, z, deltaBias, initialState, y, finalState};
  }
};

struct SsdProblem {
  int64_t batch, seq, heads, headDim, groups, state;
  bool softplus;

  int64_t headsPerGroup() const { return heads / groups; }
};

/// Work of the chunked algorithm with chunks of `chunk` steps: per head,
/// C_t St and the state update (2 L P N multiply-adds) and the causal half
/// of M X.
inline int64_t ssdScanFlops(const SsdProblem &p, int64_t chunk) {
  int64_t heads = p.batch * p.heads;
  return heads * (2 * 2 * p.seq * p.headDim * p.state +
                  p.seq * (chunk + 1) * p.headDim);
}

/// Work of the C B^T pre-pass: per group and chunk, `chunk` x `columns`
/// dot products over d_state.
inline int64_t ssdScoresFlops(const SsdProblem &p, int64_t chunk,
                              int64_t columns) {
  int64_t chunks = (p.seq + chunk - 1) / chunk;
  return 2 * p.batch * p.groups * chunks * chunk * columns * p.state;
}

struct SsdBuffers {
  Value x, dt, a, b, c, d, z, dtBias, initialState;
  Value y, finalState;
  /// C_t . B_s within each chunk (all s; the scan masks s > t), written by
  /// the pre-pass (its layout is the target's).
  Value scores;

  /// Every buffer the scan (not the pre-pass) reads or writes.
  SmallVector<Value> scanned() const {
    return {x, dt, a, c, d, z, dtBias, initialState, y, finalState, scores};
  }
  /// The buffers of the scores pre-pass.
  SmallVector<Value> prePass() const { return {b, c, scores}; }
};

SelectiveScanProblem readSelectiveScanProblem(SelectiveScanOp op);
SsdProblem readSsdProblem(SsdOp op);

/// The buffers of the op's dispatch (the rewriter notes missing ones for
/// its checkDispatchForm).
SelectiveScanBuffers findSelectiveScanBuffers(SelectiveScanOp op,
                                              DispatchRewriter &rewriter);
SsdBuffers findSsdBuffers(SsdOp op, DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_STATESPACE_PROBLEM_H
