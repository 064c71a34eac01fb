//===- Layout.h - Vulkan layouts of the Mamba scans -------------*- C++ -*-===//
//
// The thread and shared-memory layouts of ejk.selective_scan and ejk.ssd on
// a Vulkan device, derived from a config and the target. Config
// verification (StateSpace/Vulkan/Rules.cpp) and the kernel builders
// (lib/Ops/StateSpace/Vulkan/SelectiveScanKernel.cpp,
// StateSpace/Vulkan/SsdKernel.cpp) both use them, so a config that verifies is
// one the builders can emit.
//
// selective_scan: a workgroup owns `block_d` channels of one batch row.
// The state lanes of a channel are TN = min(next_pow2(d_state),
// subgroup_size) neighbouring threads of one subgroup (thread t: channel
// t / TN, states t % TN, t % TN + TN, ...), so y = C_t . h_t is a sum over
// TN lanes by shuffle xor. The workgroup stages a chunk of `chunk_l` steps
// of dt (after bias and softplus), u, y and of the B/C rows of the groups
// its channels touch in shared memory. With `split_l` (the chunked scan) a
// workgroup owns `split_l` steps of the sequence instead of all of it: a
// first dispatch computes each split's end state from zero and its step
// sum, the second carries the states of the earlier splits into its own
// and scans it; both use this layout. With `time_lanes` the lanes of a
// channel split each chunk's steps instead of its states (one pass, a
// subgroup scan joins the lanes' pieces; SelectiveScanLanes.cpp).
//
// ssd: a pre-pass workgroup per (chunk, group, batch) computes the chunk's
// C B^T scores once per group; a scan workgroup owns `block_p` columns of
// one head of one batch row and walks the chunks in order; the state St =
// S^T ([d_state, block_p]) lives in shared memory. Register tiles, each
// `rows x cols` over the T = num_subgroups * subgroup_size threads of
// either dispatch (thread t: tx = t % TX, ty = t / TX, rows ty * rpt ..
// ty * rpt + rpt - 1, columns tx, tx + TX, ...):
//   cb     chunk x chunk     C B^T (the pre-pass)
//   y      chunk x block_p   C St, then M X; the output
//   state  block_n x block_p the state update of one n-chunk
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_STATESPACE_VULKAN_LAYOUT_H
#define EJK_OPS_STATESPACE_VULKAN_LAYOUT_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

namespace mlir::ejk {

/// The facts of a Vulkan device a layout depends on.
struct VulkanLimits {
  int64_t subgroupSize = 32;
  int64_t maxInvocations = 1024;
  int64_t sharedBytes = 32 * 1024;
};

struct VulkanScanLayout {
  int64_t blockD = 0, chunkL = 0;
  /// Steps per workgroup and splits of the sequence (the chunked scan);
  /// splitL = seq and numSplits = 1 without `split_l`.
  int64_t splitL = 0, numSplits = 1;
  /// Threads per channel, states per thread, threads per workgroup.
  int64_t threadsPerChannel = 0, statesPerThread = 0, threads = 0;
  int64_t subgroupSize = 0;
  /// Groups of B and C that one channel block touches at most (staged).
  int64_t groupSpan = 0;
  /// Bytes of workgroup memory the scan declares, and the split end states
  /// (dt, u and B only).
  int64_t sharedBytes = 0, statesSharedBytes = 0;

  /// The time-lanes scan (`time_lanes`): the `timeLanes` threads of a
  /// channel (threadsPerChannel) each own `itemsPerThread` consecutive
  /// steps of a chunk and every state; 0 without it. Its stages are
  /// transposed (steps fastest), rows `timeStride` apart.
  int64_t timeLanes = 0, itemsPerThread = 0, timeStride = 0;
  /// With `state_lanes` beside `time_lanes`: the SL groups of time lanes
  /// of a channel each own the states sLane, sLane + SL, ... (1 without
  /// it), and the B and C rows `bcStride` words apart (timeStride for one
  /// group; chosen so the groups' loads of a step hit distinct banks).
  int64_t timeStateLanes = 1, bcStride = 0;
  /// `lane_batch`: states whose lane scans are emitted together, each
  /// lane's end state shuffled once (0 without it: one state at a time,
  /// the lane before's prefix shuffled). `double_buffer`: the u / y stage
  /// alternates between two buffers (one barrier a chunk fewer).
  int64_t laneBatch = 0;
  bool doubleBuffer = false;
  /// The time-segments scan (`time_segments` = W; SelectiveScanSegments.cpp):
  /// the `blockD` channels lie along a subgroup's lanes (times
  /// `timeStateLanes` groups of states), the W segments of `itemsPerThread`
  /// steps of a chunk across subgroups; 0 without it. Each segment's
  /// decay product and state from zero go through shared memory, the
  /// groups' rows `segmentStride` words apart (0 without it).
  int64_t timeSegments = 0, segmentStride = 0;
  /// The channel-lanes scan (`channel_lanes`; SelectiveScanChannels.cpp):
  /// one lane = one channel with every state in registers, B and C the same
  /// for the lanes, no shared memory; the loads of `chunkL` steps issued a
  /// group ahead (itemsPerThread = chunkL). `polyExp`: states of a lane
  /// whose exp2 runs as a polynomial on the FP32 pipe (`poly_exp`).
  bool channelLanes = false;
  int64_t polyExp = 0;
  /// Groups of steps whose delta, u and z are in flight ahead of the one in
  /// use (`fetch_ahead`; 1 without it: everything one group ahead).
  int64_t fetchAhead = 1;
  /// `carry_pass`: a dispatch between the split's two folds the end states
  /// into each split's start state (`carryThreads` threads a workgroup, one
  /// per (channel, state)); without it each split folds the ones before.
  bool carryPass = false;
  int64_t carryThreads = 0;

  /// At most this many states per thread (kept in registers).
  static constexpr int64_t kMaxStatesPerThread = 32;
  /// At most this many steps per thread of the time-lanes scan.
  static constexpr int64_t kMaxItems = 32;
  /// At most this many (step, state) pairs per thread of the time-segments
  /// scan: each keeps a decay product and a state from zero in registers.
  static constexpr int64_t kMaxSegmentPairs = 128;
  /// At most this many steps of delta, u and z in flight per thread of the
  /// channel-lanes scan (`fetch_ahead` x `chunk_l`; 2-3 registers each).
  static constexpr int64_t kMaxStepsAhead = 32;

  /// Whether the sequence is split across workgroups.
  bool isSplit() const { return numSplits > 1; }
  /// Whether the lanes of a channel split time (`time_lanes`).
  bool isTimeLanes() const { return timeLanes > 0; }
  /// Whether the subgroups of a workgroup split time (`time_segments`).
  bool isTimeSegments() const { return timeSegments > 0; }
  /// Whether a lane owns a whole channel (`channel_lanes`).
  bool isChannelLanes() const { return channelLanes; }
  /// Word of (state group g, state k of the group, channel c) in one
  /// segment's P (or H) block, or in one carry block, of the time-segments
  /// scan's shared memory.
  int64_t segmentWord(int64_t g, int64_t k, int64_t c) const {
    return g * segmentStride + k * blockD + c;
  }
  /// Position of step `t` of a chunk in a row of the time-lanes stages:
  /// one word of padding per 32 steps, so the 32 lanes reading step
  /// lane * items + i hit 32 banks for a power-of-two item count.
  static int64_t timeSlot(int64_t t) { return t + t / 32; }

  /// `stateLanes` 0: the default lanes; `splitL` 0: no split;
  /// `timeLanes` 0: no time lanes; `laneBatch` 0 and `doubleBuffer` 0:
  /// absent (both need time lanes); `timeSegments` 0: no time segments;
  /// `channelLanes`, `polyExp`, `fetchAhead` and `carryPass` 0: absent.
  static std::optional<VulkanScanLayout>
  compute(int64_t seq, int64_t channels, int64_t groups, int64_t state,
          int64_t blockD, int64_t chunkL, int64_t stateLanes, int64_t splitL,
          const VulkanLimits &limits, llvm::raw_ostream &reason,
          int64_t timeLanes = 0, int64_t laneBatch = 0,
          int64_t doubleBuffer = 0, int64_t timeSegments = 0,
          int64_t channelLanes = 0, int64_t polyExp = 0, int64_t fetchAhead = 0,
          int64_t carryPass = 0);

private:
  /// The B/C row stride of the time-lanes scan with state groups, from
  /// `least` words: the first of 32 candidates whose loads of a step see
  /// the fewest bank conflicts (time-lanes fields set).
  int64_t stateGroupStride(int64_t least) const;
  /// The time-lanes fields and shared memory of this layout (blocks,
  /// groupSpan set), or false with the reason.
  bool computeTimeLanes(int64_t state, int64_t stateLanes, int64_t splitL,
                        int64_t timeLanes, const VulkanLimits &limits,
                        llvm::raw_ostream &reason);
  /// The time-segments fields and shared memory (blocks, groupSpan set),
  /// or false with the reason.
  bool computeTimeSegments(int64_t state, int64_t stateLanes, int64_t segments,
                           const VulkanLimits &limits,
                           llvm::raw_ostream &reason);
  /// The channel-lanes fields (blocks set; splitL / numSplits from
  /// `splitL`), or false with the reason.
  bool computeChannelLanes(int64_t seq, int64_t state, int64_t splitL,
                           int64_t polyExp, int64_t fetchAhead,
                           int64_t carryPass, const VulkanLimits &limits,
                           llvm::raw_ostream &reason);
};

/// A `rows x cols` register tile spread over `threads` threads.
struct VulkanTile {
  int64_t rows = 0, cols = 0;
  int64_t threadsX = 0, threadsY = 0;
  int64_t rowsPerThread = 0, colsPerThread = 0;

  int64_t accumulators() const { return rowsPerThread * colsPerThread; }
  /// The split of `threads` (a power of two) that loads the fewest
  /// operands per step, preferring more threads along columns.
  static VulkanTile compute(int64_t rows, int64_t cols, int64_t threads);
};

struct VulkanSsdLayout {
  int64_t chunk = 0, blockP = 0, blockN = 0;
  /// Chunks per workgroup and splits of the sequence (the split scan); all
  /// chunks and 1 without `split_l`.
  int64_t splitChunks = 0, numSplits = 1;
  int64_t numSubgroups = 0, subgroupSize = 0, threads = 0;
  VulkanTile cb, y, state;
  /// Bytes of workgroup memory the scan declares, and the split end
  /// states (no M, no C). With parallel chunks: the outputs dispatch and
  /// the chunk-states dispatch.
  int64_t sharedBytes = 0, statesSharedBytes = 0;
  /// The parallel-chunks SSD (`chunk_parallel = 1`): each chunk's own
  /// state B^T (w X) on the `chunkState` tile (block_p x d_state, X and B
  /// staged `stateSteps` steps at a time), a pass over the chunk states,
  /// then each chunk's outputs on the `y` tile (C and the carried-in state
  /// staged in n-chunks of block_n).
  bool parallelChunks = false;
  VulkanTile chunkState;
  int64_t stateSteps = 0;
  /// Threads of a workgroup of the pass over the chunk states: the device's
  /// most, at most 1024 (one thread per state entry, no shared memory; on
  /// the H200 1024-thread workgroups ran mamba2's pass in 18 us, 512 in 34).
  int64_t passThreads = 0;
  /// Parallel chunks on 16x16x16 f16 cooperative matrices
  /// (`cooperative = 1`): the chunk states stage X w and B (f16, the whole
  /// chunk) and a 16 x 16 f32 tile per subgroup; the outputs stage X, M,
  /// exp(a) C and the state (f16; C and the state in n-chunks of block_n)
  /// and Y (f32).
  bool cooperative = false;
  /// Halves of padding at the end of each row of the cooperative kernels'
  /// f16 matrix stages (`cooperative = 2`: 8, as the attention kernels pad
  /// theirs against bank conflicts; else 0).
  int64_t matrixPad = 0;
  /// Row stride (halves) of a cooperative f16 stage of rows of `width`.
  int64_t matrixStride(int64_t width) const { return width + matrixPad; }

  bool isSplit() const { return numSplits > 1; }

  /// Row stride of the staged B and C n-chunks (padded against bank
  /// conflicts).
  int64_t bcStride() const { return blockN + 1; }
  /// Row stride of M (padded: threads of different rows read one column).
  int64_t mStride() const { return chunk + 1; }

  /// Accumulators a thread may keep in registers on each tile.
  static constexpr int64_t kMaxAccumulators = 64;

  /// `splitL` 0: no split; `parallelChunks` 0 or 1.
  static std::optional<VulkanSsdLayout>
  compute(int64_t seq, int64_t state, int64_t chunk, int64_t blockP,
          int64_t blockN, int64_t numSubgroups, int64_t splitL,
          int64_t parallelChunks, const VulkanLimits &limits,
          llvm::raw_ostream &reason, bool cooperative = false);

  /// This parallel-chunks layout on cooperative matrices, or nullopt with
  /// the reason; `f16Inputs`: x, B and C are f16, `hasCooperative`: the
  /// device has 16x16x16 f16 matrices, `padded`: the f16 stages' rows
  /// padded (matrixPad).
  std::optional<VulkanSsdLayout>
  withCooperative(int64_t state, bool f16Inputs, bool hasCooperative,
                  bool padded, const VulkanLimits &limits,
                  llvm::raw_ostream &reason) const;

private:
  /// This layout (of the one-pass scan's blocks) for parallel chunks.
  /// `cooperative`: only what both chunk kernels share (withCooperative
  /// adds the rest).
  std::optional<VulkanSsdLayout> withParallelChunks(int64_t state,
                                                    const VulkanLimits &limits,
                                                    llvm::raw_ostream &reason,
                                                    bool cooperative) const;
};

class SelectiveScanOp;
class SsdOp;
class ConfigAttr;
struct TargetInfo;

/// The layout of `op` under `config` on the Vulkan `target`, or nullopt
/// with the reason on `reason`.
std::optional<VulkanScanLayout> getVulkanScanLayout(SelectiveScanOp op,
                                                    ConfigAttr config,
                                                    const TargetInfo &target,
                                                    llvm::raw_ostream &reason);
std::optional<VulkanSsdLayout> getVulkanSsdLayout(SsdOp op, ConfigAttr config,
                                                  const TargetInfo &target,
                                                  llvm::raw_ostream &reason);

} // namespace mlir::ejk

#endif // EJK_OPS_STATESPACE_VULKAN_LAYOUT_H
