//===- GpuStateSpaceKernels.h - Mamba scan bodies for Vulkan ----*- C++ -*-===//
//
// Builds the bodies of the dispatches that run ejk.selective_scan (Mamba-1)
// and ejk.ssd (Mamba-2) on a Vulkan device: threads laid out by
// GpuStateSpaceLayout, shared memory as `memref.alloc` in
// `#gpu.address_space<workgroup>`, positions from `ejk.workgroup_id` and
// `gpu.thread_id`. One dispatch for a scan, two for an SSD (its C B^T
// scores first); ejk-lower-to-spirv turns each into a SPIR-V kernel.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_TRANSFORMS_GPUSTATESPACEKERNELS_H
#define EJK_LIB_TRANSFORMS_GPUSTATESPACEKERNELS_H

#include "CpuEmitter.h"
#include "CpuStateSpaceKernels.h"

#include "ejk/Dialect/Ejk/GpuStateSpaceLayout.h"

namespace mlir::ejk {

struct GpuSelectiveScanPlan {
  int64_t batch, seq, channels, groups, state;
  bool softplus;
  GpuScanLayout layout;

  int64_t channelsPerGroup() const { return channels / groups; }
  /// Workgroups: channel blocks x batch.
  std::array<int64_t, 3> grid() const {
    return {(channels + layout.blockD - 1) / layout.blockD, batch, 1};
  }
};

struct GpuSsdPlan {
  int64_t batch, seq, heads, headDim, groups, state;
  bool softplus;
  GpuSsdLayout layout;

  int64_t numChunks() const { return (seq + layout.chunk - 1) / layout.chunk; }
  int64_t headsPerGroup() const { return heads / groups; }
  /// The C B^T pre-pass: chunks x groups x batch.
  std::array<int64_t, 3> scoresGrid() const {
    return {numChunks(), groups, batch};
  }
  /// The scan: head_dim blocks x heads x batch.
  std::array<int64_t, 3> grid() const {
    return {(headDim + layout.blockP - 1) / layout.blockP, heads, batch};
  }
};

/// Emits the selective-scan body at `b`'s insertion point (the buffers are
/// those of the CPU kernel; nothing target-specific about them).
void buildGpuSelectiveScanBody(OpBuilder &b, Location loc,
                               const GpuSelectiveScanPlan &plan,
                               const CpuSelectiveScanBuffers &buffers);

/// Emits the body of the pre-pass that fills `scores` ([batch, groups,
/// chunks, chunk, chunk] f32) with C_t . B_s per chunk.
void buildGpuSsdScoresBody(OpBuilder &b, Location loc, const GpuSsdPlan &plan,
                           Value bBuffer, Value cBuffer, Value scores);

/// Emits the SSD scan body; `buffers.scores` holds the pre-pass's scores.
void buildGpuSsdBody(OpBuilder &b, Location loc, const GpuSsdPlan &plan,
                     const CpuSsdBuffers &buffers);

/// Emits `body(i)` for i in [0, total) spread over the `threads` threads of
/// the workgroup (i = thread + k * threads): a loop over the whole rounds,
/// then one guarded round for the rest.
inline void forEachShared(Emitter &e, int64_t threads, Value threadId,
                          int64_t total, function_ref<void(Value)> body) {
  int64_t full = total / threads * threads;
  if (full == threads)
    body(threadId);
  else if (full > 0)
    e.forLoop(e.index(0), e.index(full), e.index(threads),
              [&](Value base) { body(e.add(base, threadId)); });
  if (full == total)
    return;
  Value i = e.add(threadId, e.index(full));
  Value inRange =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, i, e.index(total));
  auto ifOp = scf::IfOp::create(e.b, inRange, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body(i);
}

/// Emits `then` under `if cond` (no results).
inline void emitIf(Emitter &e, Value cond, function_ref<void()> then) {
  auto ifOp = scf::IfOp::create(e.b, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  then();
}

} // namespace mlir::ejk

#endif // EJK_LIB_TRANSFORMS_GPUSTATESPACEKERNELS_H
