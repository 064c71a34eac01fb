//===- Kernels.h - Mamba scan bodies for Vulkan -----------------*- C++ -*-===//
//
// Builds the bodies of the dispatches that run ejk.selective_scan (Mamba-1)
// and ejk.ssd (Mamba-2) on a Vulkan device: threads laid out by
// StateSpace/Vulkan/Layout.h, shared memory as `memref.alloc` in
// `#gpu.address_space<workgroup>`, positions from `ejk.workgroup_id` and
// `gpu.thread_id`. One dispatch for a scan, two for an SSD (its C B^T
// scores first); ejk-lower-to-spirv turns each into a SPIR-V kernel.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_STATESPACE_VULKAN_KERNELS_H
#define EJK_OPS_STATESPACE_VULKAN_KERNELS_H

#include "Common/CpuEmitter.h"
#include "Common/VulkanMatrices.h"
#include "ejk/Ops/StateSpace/Problem.h"

#include "StateSpace/Vulkan/Layout.h"

namespace mlir::ejk {

struct VulkanSelectiveScanPlan : SelectiveScanProblem {
  VulkanScanLayout layout;

  int64_t channelBlocks() const {
    return (channels + layout.blockD - 1) / layout.blockD;
  }
  /// Workgroups of the scan: channel blocks x batch x splits.
  std::array<int64_t, 3> grid() const {
    return {channelBlocks(), batch, layout.numSplits};
  }
  /// Workgroups of the split end states: every split but the last.
  std::array<int64_t, 3> statesGrid() const {
    return {channelBlocks(), batch, layout.numSplits - 1};
  }
};

/// The temporaries that carry states between the splits of a chunked
/// selective scan: each split's end state from a zero start,
/// `[batch, splits - 1, channels, d_state]`, and the sum of its step sizes
/// (dt after bias and softplus), `[batch, splits - 1, channels]`; f32.
struct SelectiveScanSplitBuffers {
  Value endStates, stepSums;
};

struct VulkanSsdPlan : SsdProblem {
  VulkanSsdLayout layout;

  int64_t numChunks() const { return (seq + layout.chunk - 1) / layout.chunk; }
  /// The C B^T pre-pass: chunks x groups x batch.
  std::array<int64_t, 3> scoresGrid() const {
    return {numChunks(), groups, batch};
  }
  int64_t headDimBlocks() const {
    return (headDim + layout.blockP - 1) / layout.blockP;
  }
  /// The scan: head_dim blocks x (heads x splits, head fastest) x batch;
  /// with parallel chunks, the chunk states and the chunk outputs: head_dim
  /// blocks x (heads x chunks, head fastest) x batch.
  std::array<int64_t, 3> grid() const {
    if (layout.parallelChunks)
      return {headDimBlocks(), heads * numChunks(), batch};
    return {headDimBlocks(), heads * layout.numSplits, batch};
  }
  /// The pass over the chunk states (parallel chunks): one thread per state
  /// entry of a head, `passThreads` per workgroup.
  std::array<int64_t, 3> passGrid() const {
    return {(headDim * state + layout.passThreads - 1) / layout.passThreads,
            heads, batch};
  }
  /// The split end states: every split but the last.
  std::array<int64_t, 3> statesGrid() const {
    return {headDimBlocks(), heads * (layout.numSplits - 1), batch};
  }
};

/// What carries states between the splits of a split SSD: each split's
/// end state from a zero start, `[batch, splits - 1, heads, head_dim,
/// d_state]`, and the log of its decay, A[h] * (sum of dt over the
/// split), `[batch, splits - 1, heads]`; f32.
struct SsdSplitBuffers {
  Value endStates, logDecays;
};

/// The temporaries of the parallel-chunks SSD: each chunk's state, first
/// its own contribution B^T (w X) from zero, then (after the pass) the
/// state before the chunk, `[batch, chunks, heads, head_dim, d_state]`, and
/// each chunk's log decay A * (sum of dt over the chunk),
/// `[batch, chunks, heads]`; f32.
struct SsdChunkBuffers {
  Value states, logDecays;
};

/// Emits the selective-scan body at `b`'s insertion point; on a split
/// layout, the scan of one split from the states `split` carries in.
void buildVulkanSelectiveScanBody(OpBuilder &b, Location loc,
                                  const VulkanSelectiveScanPlan &plan,
                                  const SelectiveScanBuffers &buffers,
                                  const SelectiveScanSplitBuffers &split = {});

/// Emits the time-lanes scan (`time_lanes`; SelectiveScanLanes.cpp): one
/// pass, the lanes of a channel splitting each chunk's steps.
void buildVulkanSelectiveScanLanesBody(OpBuilder &b, Location loc,
                                       const VulkanSelectiveScanPlan &plan,
                                       const SelectiveScanBuffers &buffers);

/// Emits the time-segments scan (`time_segments`;
/// SelectiveScanSegments.cpp): one pass, the channels along the lanes and
/// each chunk's steps split across subgroups.
void buildVulkanSelectiveScanSegmentsBody(OpBuilder &b, Location loc,
                                          const VulkanSelectiveScanPlan &plan,
                                          const SelectiveScanBuffers &buffers);

/// Emits the channel-lanes scan (`channel_lanes`;
/// SelectiveScanChannels.cpp): a lane = a channel with all its states, no
/// shared memory; on a split layout, the scan of one split from the states
/// `split` carries in.
void buildVulkanSelectiveScanChannelsBody(
    OpBuilder &b, Location loc, const VulkanSelectiveScanPlan &plan,
    const SelectiveScanBuffers &buffers,
    const SelectiveScanSplitBuffers &split = {});

/// The states dispatch of a split channel-lanes scan: each split's end
/// state from zero and its step sum into `split`.
void buildVulkanSelectiveScanChannelsStatesBody(
    OpBuilder &b, Location loc, const VulkanSelectiveScanPlan &plan,
    const SelectiveScanBuffers &buffers,
    const SelectiveScanSplitBuffers &split);

/// The carry dispatch of a split channel-lanes scan with `carry_pass`
/// (between the two): one thread per (channel, state), the splits' end
/// states folded in order from `initialState` (or 0, when null), each
/// entry of `split.endStates` replaced by the start state of the next
/// split. Reads A and `split.stepSums`.
void buildVulkanSelectiveScanCarryBody(OpBuilder &b, Location loc,
                                       const VulkanSelectiveScanPlan &plan,
                                       Value a, Value initialState,
                                       const SelectiveScanSplitBuffers &split);

/// Emits the first dispatch of a split scan: each split's end state from
/// zero and its step sum into `split` (reads u, delta, A, B, delta_bias).
void buildVulkanSelectiveScanStatesBody(OpBuilder &b, Location loc,
                                        const VulkanSelectiveScanPlan &plan,
                                        const SelectiveScanBuffers &buffers,
                                        const SelectiveScanSplitBuffers &split);

/// Emits the body of the pre-pass that fills `scores` ([batch, groups,
/// chunks, chunk, chunk] f32) with C_t . B_s per chunk.
void buildVulkanSsdScoresBody(OpBuilder &b, Location loc,
                              const VulkanSsdPlan &plan, Value bBuffer,
                              Value cBuffer, Value scores);

/// Emits the SSD scan body; `buffers.scores` holds the pre-pass's scores.
/// On a split layout, the scan of one split from the states `split`
/// carries in.
void buildVulkanSsdBody(OpBuilder &b, Location loc, const VulkanSsdPlan &plan,
                        const SsdBuffers &buffers,
                        const SsdSplitBuffers &split = {});

/// Emits the first dispatch of a split SSD: each split's end state from
/// zero and its log decay into `split` (reads x, dt, A, B, dt_bias).
void buildVulkanSsdStatesBody(OpBuilder &b, Location loc,
                              const VulkanSsdPlan &plan,
                              const SsdBuffers &buffers,
                              const SsdSplitBuffers &split);

/// The builder of a parallel-chunks dispatch body: emits it at `b`'s
/// insertion point from `buffers` and the temporaries `chunks`.
using SsdChunkBodyBuilder = void(OpBuilder &b, Location loc,
                                 const VulkanSsdPlan &plan,
                                 const SsdBuffers &buffers,
                                 const SsdChunkBuffers &chunks);

/// Parallel chunks, first dispatch: each chunk's state from zero and its
/// log decay into `chunks` (reads x, dt, A, B, dt_bias).
SsdChunkBodyBuilder buildVulkanSsdChunkStatesBody;

/// Parallel chunks, second dispatch: the states carried over the chunks in
/// order, S_c = exp(log decay_c) S_{c-1} + chunk state_c, from
/// `initialState` (or 0); each chunk's entry of `chunks.states` is replaced
/// by the state before it, the last state goes to `finalState` (either may
/// be null).
void buildVulkanSsdStatePassBody(OpBuilder &b, Location loc,
                                 const VulkanSsdPlan &plan, Value initialState,
                                 Value finalState,
                                 const SsdChunkBuffers &chunks);

/// Parallel chunks, last dispatch: each chunk's outputs from the state
/// before it, C B^T (`buffers.scores`) and X, with the D skip and the gate.
SsdChunkBodyBuilder buildVulkanSsdChunkOutputsBody;

/// The same two dispatches on 16x16x16 f16 cooperative matrices (f32
/// accumulation), for f16 inputs on a device that has them
/// (`cooperative = 1`).
SsdChunkBodyBuilder buildVulkanSsdCoopChunkStatesBody;
SsdChunkBodyBuilder buildVulkanSsdCoopChunkOutputsBody;

/// softplus(x) = x > 20 ? x : log1p(exp(x)), as the reference.
inline Value scanSoftplus(Emitter &e, Value x) {
  Value big = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, x,
                                    e.constF32(20.0f));
  Value soft = math::Log1pOp::create(e.b, e.exp(x));
  return e.select(big, x, soft);
}

/// y * silu(z) = y * z * sigmoid(z), z widened to f32.
inline Value siluGate(Emitter &e, Value y, Value zValue) {
  Value z = e.toF32(zValue);
  Value neg = arith::NegFOp::create(e.b, z);
  Value expNeg = e.exp(neg);
  Value denom = e.fadd(e.constF32(1.0f), expNeg);
  Value sigmoid = e.fdiv(e.constF32(1.0f), denom);
  return e.fmul(y, e.fmul(z, sigmoid));
}

/// Emits `then` under `if cond` (no results).
inline void emitIf(Emitter &e, Value cond, function_ref<void()> then) {
  auto ifOp = scf::IfOp::create(e.b, cond, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  then();
}

/// Emits `body(i)` for i in [0, total) spread over the `threads` threads of
/// the workgroup (i = thread + k * threads): a loop over the whole rounds,
/// then one guarded round for the rest.
inline void forEachShared(Emitter &e, int64_t threads, Value threadId,
                          int64_t total, function_ref<void(Value)> body) {
  int64_t full = total / threads * threads;
  if (full == threads)
    body(threadId);
  else if (full > 0) {
    Value step = e.index(threads);
    Value end = e.index(full);
    e.forLoop(e.index(0), end, step,
              [&](Value base) { body(e.add(base, threadId)); });
  }
  if (full == total)
    return;
  Value i = e.add(threadId, e.index(full));
  Value inRange =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, i, e.index(total));
  emitIf(e, inRange, [&] { body(i); });
}

/// A staging round of `rows x cols` elements spread over a workgroup's
/// `threads` threads, unrolled: element k of this thread is i = thread +
/// k * threads (row i / cols, column i % cols). Loads are issued by
/// `fetch` (into registers, in flight during the compute that follows)
/// and used later by `forEach`, on the same elements.
struct RoundElements {
  Emitter &e;
  int64_t threads;
  Value thread;

  /// Elements of a round of `total` each thread handles.
  int64_t count(int64_t total) const { return (total + threads - 1) / threads; }

  /// Row and column of element k, clamped into the round (loads) when
  /// `clamp`.
  std::pair<Value, Value> element(int64_t k, int64_t rows, int64_t cols,
                                  bool clamp) {
    Value i = e.add(thread, e.index(k * threads));
    if (clamp)
      i = e.min(i, e.index(rows * cols - 1));
    return {arith::DivUIOp::create(e.b, i, e.index(cols)),
            arith::RemUIOp::create(e.b, i, e.index(cols))};
  }

  /// This thread's `value(row, col)` of each of its elements.
  SmallVector<Value> fetch(int64_t rows, int64_t cols,
                           function_ref<Value(Value, Value)> value) {
    SmallVector<Value> out;
    for (int64_t k = 0; k < count(rows * cols); ++k) {
      auto [r, c] = element(k, rows, cols, (k + 1) * threads > rows * cols);
      out.push_back(value(r, c));
    }
    return out;
  }

  /// For each element k of this thread: `prepare(k, row, col)`, then
  /// `body(row, col, prepared)`, the body only for elements inside the
  /// round.
  void forEach(int64_t rows, int64_t cols,
               function_ref<Value(int64_t, Value, Value)> prepare,
               function_ref<void(Value, Value, Value)> body) {
    int64_t total = rows * cols;
    for (int64_t k = 0; k < count(total); ++k) {
      bool partial = (k + 1) * threads > total;
      auto [r, c] = element(k, rows, cols, partial);
      Value value = prepare(k, r, c);
      if (!partial) {
        body(r, c, value);
        continue;
      }
      Value i = e.add(thread, e.index(k * threads));
      Value end = e.index(total);
      Value inside =
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, i, end);
      emitIf(e, inside, [&, r = r, c = c] { body(r, c, value); });
    }
  }
};

/// The selective scans' 16-byte views of B and C, `vec` elements a word:
/// one view when they are one buffer, no C view for the end-state pass
/// (`statesOnly`, which reads no C).
inline std::pair<Value, Value>
selectiveScanBCWords(Emitter &e, const SelectiveScanBuffers &buf, int64_t vec,
                     bool statesOnly) {
  Value bWords = wordView(e, buf.b, vec);
  Value cWords;
  if (!statesOnly)
    cWords = buf.c == buf.b ? bWords : wordView(e, buf.c, vec);
  return {bWords, cWords};
}

} // namespace mlir::ejk

#endif // EJK_OPS_STATESPACE_VULKAN_KERNELS_H
