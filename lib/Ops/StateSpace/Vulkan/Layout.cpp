//===- Layout.cpp - Vulkan layouts of the Mamba scans ---------------------===//

#include "StateSpace/Vulkan/Layout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>

using namespace mlir::ejk;

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static int64_t ceilPow2(int64_t n) {
  return static_cast<int64_t>(llvm::PowerOf2Ceil(std::max<int64_t>(n, 1)));
}

std::optional<VulkanScanLayout> VulkanScanLayout::compute(
    int64_t seq, int64_t channels, int64_t groups, int64_t state,
    int64_t blockD, int64_t chunkL, int64_t stateLanes, int64_t splitL,
    const VulkanLimits &limits, llvm::raw_ostream &reason, int64_t timeLanes,
    int64_t laneBatch, int64_t doubleBuffer, int64_t timeSegments,
    int64_t channelLanes, int64_t polyExp, int64_t fetchAhead,
    int64_t carryPass) {
  if (blockD < 1 || chunkL < 1) {
    reason << "'block_d' and 'chunk_l' must be positive";
    return std::nullopt;
  }
  // Every block size is staged in shared memory or is threads, so one
  // larger than either limit can never fit; rejecting it first also keeps
  // the products below far from overflow.
  if (blockD > limits.maxInvocations || chunkL > limits.sharedBytes) {
    reason << "'block_d' (" << blockD << ") or 'chunk_l' (" << chunkL
           << ") exceeds the device's " << limits.maxInvocations
           << " invocations or " << limits.sharedBytes
           << " bytes of shared memory per workgroup";
    return std::nullopt;
  }
  VulkanScanLayout l;
  l.blockD = blockD;
  l.chunkL = chunkL;
  l.subgroupSize = limits.subgroupSize;
  // The most groups any channel block touches.
  int64_t perGroup =
      std::max<int64_t>(1, channels / std::max<int64_t>(1, groups));
  l.groupSpan = 1;
  for (int64_t d0 = 0; d0 < channels; d0 += blockD) {
    int64_t last = std::min(channels, d0 + blockD) - 1;
    l.groupSpan = std::max(l.groupSpan, last / perGroup - d0 / perGroup + 1);
  }
  l.splitL = seq;
  if (timeLanes == 0 && (laneBatch != 0 || doubleBuffer != 0)) {
    reason << "'lane_batch' and 'double_buffer' need 'time_lanes'";
    return std::nullopt;
  }
  if (doubleBuffer != 0 && doubleBuffer != 1) {
    reason << "'double_buffer' (" << doubleBuffer
           << ") must be 1 (leave it out for one u / y stage)";
    return std::nullopt;
  }
  l.laneBatch = laneBatch;
  l.doubleBuffer = doubleBuffer == 1;
  if (channelLanes == 0 &&
      (polyExp != 0 || fetchAhead != 0 || carryPass != 0)) {
    reason << "'poly_exp', 'fetch_ahead' and 'carry_pass' need "
              "'channel_lanes'";
    return std::nullopt;
  }
  if (channelLanes != 0) {
    if (channelLanes != 1) {
      reason << "'channel_lanes' (" << channelLanes
             << ") must be 1 (leave it out for the other forms)";
      return std::nullopt;
    }
    if (stateLanes != 0 || timeLanes != 0 || timeSegments != 0 ||
        laneBatch != 0 || doubleBuffer != 0) {
      reason << "'channel_lanes' keeps every state of a channel in one lane: "
                "leave 'state_lanes', 'time_lanes', 'time_segments', "
                "'lane_batch' and 'double_buffer' out";
      return std::nullopt;
    }
    if (!l.computeChannelLanes(seq, state, splitL, polyExp, fetchAhead,
                               carryPass, limits, reason))
      return std::nullopt;
    return l;
  }
  if (timeSegments != 0) {
    if (splitL != 0 || timeLanes != 0) {
      reason << "'time_segments' is one pass with the channels along the "
                "lanes: leave 'split_l' and 'time_lanes' out";
      return std::nullopt;
    }
    if (!l.computeTimeSegments(state, stateLanes, timeSegments, limits, reason))
      return std::nullopt;
    return l;
  }
  if (timeLanes != 0) {
    if (!l.computeTimeLanes(state, stateLanes, splitL, timeLanes, limits,
                            reason))
      return std::nullopt;
    return l;
  }
  l.threadsPerChannel = std::min(ceilPow2(state), limits.subgroupSize);
  if (stateLanes != 0) {
    // The lanes of a channel reduce C . h by shuffles inside one subgroup.
    if (stateLanes < 1 || !llvm::isPowerOf2_64(stateLanes) ||
        stateLanes > limits.subgroupSize) {
      reason << "'state_lanes' (" << stateLanes
             << ") must be a power of two no larger than the subgroup size ("
             << limits.subgroupSize << ")";
      return std::nullopt;
    }
    l.threadsPerChannel = stateLanes;
  }
  if (splitL != 0) {
    if (splitL < 1 || splitL >= seq) {
      reason << "'split_l' (" << splitL
             << ") must be positive and shorter than the sequence (" << seq
             << "); leave it out for one pass over the sequence";
      return std::nullopt;
    }
    l.splitL = splitL;
    l.numSplits = ceilDiv(seq, splitL);
  }
  l.statesPerThread = ceilDiv(state, l.threadsPerChannel);
  l.threads = blockD * l.threadsPerChannel;
  if (l.threads > limits.maxInvocations) {
    reason << "'block_d' (" << blockD << ") channels of " << l.threadsPerChannel
           << " threads exceed " << limits.maxInvocations
           << " invocations per workgroup";
    return std::nullopt;
  }
  if (l.threads % limits.subgroupSize != 0) {
    reason << "'block_d' (" << blockD << ") channels of " << l.threadsPerChannel
           << " threads must fill whole subgroups of " << limits.subgroupSize;
    return std::nullopt;
  }
  if (l.statesPerThread > kMaxStatesPerThread) {
    reason << "each thread would keep " << l.statesPerThread
           << " states (at most " << kMaxStatesPerThread << ")";
    return std::nullopt;
  }
  l.sharedBytes = 4 * (3 * chunkL * blockD + 2 * chunkL * l.groupSpan * state);
  l.statesSharedBytes =
      4 * (2 * chunkL * blockD + chunkL * l.groupSpan * state);
  if (l.sharedBytes > limits.sharedBytes) {
    reason << "stages " << l.sharedBytes
           << " bytes of shared memory, the device has " << limits.sharedBytes;
    return std::nullopt;
  }
  return l;
}

VulkanTile VulkanTile::compute(int64_t rows, int64_t cols, int64_t threads) {
  VulkanTile best;
  int64_t bestWork = 0, bestLoads = 0;
  for (int64_t tx = 1; tx <= std::min(threads, ceilPow2(cols)); tx *= 2) {
    VulkanTile t;
    t.rows = rows;
    t.cols = cols;
    t.threadsX = tx;
    t.threadsY = threads / tx;
    t.rowsPerThread = ceilDiv(rows, t.threadsY);
    t.colsPerThread = ceilDiv(cols, tx);
    int64_t work = t.accumulators();
    int64_t loads = t.rowsPerThread + t.colsPerThread;
    if (best.threadsX == 0 || work < bestWork ||
        (work == bestWork && loads <= bestLoads)) {
      best = t;
      bestWork = work;
      bestLoads = loads;
    }
  }
  return best;
}

std::optional<VulkanSsdLayout> VulkanSsdLayout::compute(
    int64_t seq, int64_t state, int64_t chunk, int64_t blockP, int64_t blockN,
    int64_t numSubgroups, int64_t splitL, int64_t parallelChunks,
    const VulkanLimits &limits, llvm::raw_ostream &reason, bool cooperative) {
  if (parallelChunks != 0 && parallelChunks != 1) {
    reason << "'chunk_parallel' (" << parallelChunks << ") must be 0 or 1";
    return std::nullopt;
  }
  if (parallelChunks && splitL != 0) {
    reason << "'chunk_parallel' runs every chunk in parallel: leave "
              "'split_l' out";
    return std::nullopt;
  }
  if (chunk < 1 || blockP < 1 || blockN < 1 || numSubgroups < 1) {
    reason << "'chunk_size', 'block_p', 'block_n' and 'num_subgroups' must "
              "be positive";
    return std::nullopt;
  }
  if (!llvm::isPowerOf2_64(numSubgroups)) {
    reason << "'num_subgroups' (" << numSubgroups << ") must be a power of two";
    return std::nullopt;
  }
  // As for the scan: sizes beyond the device's limits can never fit, and
  // rejecting them first keeps the tile products from overflowing.
  if (numSubgroups > limits.maxInvocations || chunk > limits.sharedBytes ||
      blockP > limits.sharedBytes || blockN > limits.sharedBytes) {
    reason << "'chunk_size' (" << chunk << "), 'block_p' (" << blockP
           << "), 'block_n' (" << blockN << ") or 'num_subgroups' ("
           << numSubgroups << ") exceeds the device's " << limits.maxInvocations
           << " invocations or " << limits.sharedBytes
           << " bytes of shared memory per workgroup";
    return std::nullopt;
  }
  VulkanSsdLayout l;
  l.chunk = chunk;
  l.blockP = blockP;
  l.blockN = blockN;
  l.numSubgroups = numSubgroups;
  l.subgroupSize = limits.subgroupSize;
  int64_t chunks = ceilDiv(std::max<int64_t>(seq, 1), chunk);
  l.splitChunks = chunks;
  if (splitL != 0) {
    if (splitL < 1 || splitL % chunk != 0 || splitL >= seq) {
      reason << "'split_l' (" << splitL
             << ") must be a multiple of 'chunk_size' (" << chunk
             << ") shorter than the sequence (" << seq
             << "); leave it out for one pass over the sequence";
      return std::nullopt;
    }
    l.splitChunks = splitL / chunk;
    l.numSplits = ceilDiv(chunks, l.splitChunks);
  }
  l.threads = numSubgroups * limits.subgroupSize;
  if (l.threads > limits.maxInvocations) {
    reason << numSubgroups << " subgroups of " << limits.subgroupSize
           << " exceed " << limits.maxInvocations
           << " invocations per workgroup";
    return std::nullopt;
  }
  l.cb = VulkanTile::compute(chunk, chunk, l.threads);
  l.y = VulkanTile::compute(chunk, blockP, l.threads);
  l.state = VulkanTile::compute(blockN, blockP, l.threads);
  int64_t most = std::max(
      {l.cb.accumulators(), l.y.accumulators(), l.state.accumulators()});
  if (most > kMaxAccumulators) {
    reason << "each thread would keep " << most << " accumulators (at most "
           << kMaxAccumulators << "); use more subgroups or smaller blocks";
    return std::nullopt;
  }
  if (parallelChunks)
    return l.withParallelChunks(state, limits, reason, cooperative);
  // The scan's St, X, M, B and C n-chunks, dt, a, w and exp(a); the
  // scores pre-pass stages only the B and C n-chunks.
  l.sharedBytes = 4 * (state * blockP + chunk * blockP + chunk * l.mStride() +
                       2 * chunk * l.bcStride() + 4 * chunk);
  l.statesSharedBytes =
      4 * (state * blockP + chunk * blockP + chunk * l.bcStride() + 4 * chunk);
  if (l.sharedBytes > limits.sharedBytes) {
    reason << "stages " << l.sharedBytes
           << " bytes of shared memory, the device has " << limits.sharedBytes;
    return std::nullopt;
  }
  return l;
}

std::optional<VulkanSsdLayout>
VulkanSsdLayout::withParallelChunks(int64_t state, const VulkanLimits &limits,
                                    llvm::raw_ostream &reason,
                                    bool cooperative) const {
  VulkanSsdLayout l = *this;
  l.parallelChunks = true;
  l.passThreads = std::min<int64_t>(1024, limits.maxInvocations);
  if (cooperative)
    return l;
  l.chunkState = VulkanTile::compute(blockP, state, threads);
  if (l.chunkState.accumulators() > kMaxAccumulators) {
    reason << "each thread would keep " << l.chunkState.accumulators()
           << " accumulators of a chunk's state (block_p x d_state; at most "
           << kMaxAccumulators << "); use more subgroups or a smaller block_p";
    return std::nullopt;
  }
  // The outputs: X, M, the C and state n-chunks, dt, a and exp(a).
  l.sharedBytes = 4 * (chunk * blockP + chunk * mStride() + chunk * bcStride() +
                       blockP * bcStride() + 3 * chunk);
  if (l.sharedBytes > limits.sharedBytes) {
    reason << "the chunk outputs stage " << l.sharedBytes
           << " bytes of shared memory, the device has " << limits.sharedBytes;
    return std::nullopt;
  }
  // The chunk states: dt, a, w and steps of X and B, at most 32 at a time
  // (fewer when they do not fit).
  auto statesBytes = [&](int64_t steps) {
    return 4 * (3 * chunk + steps * (blockP + state));
  };
  l.stateSteps = std::min<int64_t>(chunk, 32);
  while (l.stateSteps > 1 && statesBytes(l.stateSteps) > limits.sharedBytes)
    l.stateSteps /= 2;
  while (chunk % l.stateSteps != 0)
    l.stateSteps /= 2;
  l.statesSharedBytes = statesBytes(l.stateSteps);
  if (l.statesSharedBytes > limits.sharedBytes) {
    reason << "the chunk states stage " << l.statesSharedBytes
           << " bytes of shared memory, the device has " << limits.sharedBytes;
    return std::nullopt;
  }
  return l;
}

std::optional<VulkanSsdLayout> VulkanSsdLayout::withCooperative(
    int64_t state, bool f16Inputs, bool hasCooperative, bool padded,
    const VulkanLimits &limits, llvm::raw_ostream &reason) const {
  constexpr int64_t tile = 16;
  if (!parallelChunks) {
    reason << "'cooperative' needs 'chunk_parallel' = 1";
    return std::nullopt;
  }
  if (!f16Inputs || !hasCooperative) {
    reason << "'cooperative' needs f16 x, B and C and a device with 16x16x16 "
              "f16 cooperative matrices";
    return std::nullopt;
  }
  if (chunk % tile != 0 || blockP % tile != 0 || blockN % tile != 0 ||
      state % tile != 0 || tile * tile % subgroupSize != 0) {
    reason << "'cooperative' needs 'chunk_size' (" << chunk << "), 'block_p' ("
           << blockP << "), 'block_n' (" << blockN << ") and d_state (" << state
           << ") in whole 16x16 tiles";
    return std::nullopt;
  }
  int64_t outputTiles = (chunk / tile) * (blockP / tile);
  int64_t stateTiles = (blockP / tile) * (state / tile);
  if (outputTiles % numSubgroups != 0 || stateTiles % numSubgroups != 0) {
    reason << "'cooperative' shares " << outputTiles << " output and "
           << stateTiles << " state tiles among " << numSubgroups
           << " subgroups: each count must be a multiple";
    return std::nullopt;
  }
  VulkanSsdLayout l = *this;
  l.cooperative = true;
  l.matrixPad = padded ? 8 : 0;
  // Outputs: X, M, exp(a) C, the state n-chunk (f16); Y, dt, a, exp(a).
  l.sharedBytes =
      2 * (chunk * l.matrixStride(blockP) + chunk * l.matrixStride(chunk) +
           (chunk + blockP) * l.matrixStride(blockN)) +
      4 * (chunk * blockP + 3 * chunk);
  // Chunk states: dt, a, w; X w and B (f16); a tile per subgroup.
  l.statesSharedBytes =
      4 * 3 * chunk +
      2 * chunk * (l.matrixStride(blockP) + l.matrixStride(state)) +
      4 * numSubgroups * tile * tile;
  int64_t most = std::max(l.sharedBytes, l.statesSharedBytes);
  if (most > limits.sharedBytes) {
    reason << "the cooperative chunk kernels stage " << most
           << " bytes of shared memory, the device has " << limits.sharedBytes;
    return std::nullopt;
  }
  return l;
}

/// Most distinct words any of 32 banks serves when the lanes of a
/// subgroup load step i of their B (or C) rows: lane q is time lane q % TL
/// of state group (q / TL) % SL, rows `stride` words apart.
static int64_t bankConflicts(int64_t stride, int64_t lanes, int64_t groups,
                             int64_t items, int64_t subgroup) {
  int64_t worst = 1;
  for (int64_t i = 0; i < items; ++i) {
    std::array<llvm::SmallVector<int64_t, 4>, 32> banks;
    for (int64_t q = 0; q < subgroup; ++q) {
      int64_t word = (q / lanes) % groups * stride +
                     VulkanScanLayout::timeSlot(q % lanes * items + i);
      llvm::SmallVector<int64_t, 4> &bank = banks[word % 32];
      if (!llvm::is_contained(bank, word))
        bank.push_back(word);
    }
    for (const auto &bank : banks)
      worst = std::max<int64_t>(worst, bank.size());
  }
  return worst;
}

int64_t VulkanScanLayout::stateGroupStride(int64_t least) const {
  int64_t best = least, fewest = INT64_MAX;
  for (int64_t stride = least; stride < least + 32; ++stride) {
    int64_t conflicts = bankConflicts(stride, timeLanes, timeStateLanes,
                                      itemsPerThread, subgroupSize);
    if (conflicts < fewest) {
      fewest = conflicts;
      best = stride;
    }
  }
  return best;
}

bool VulkanScanLayout::computeTimeLanes(int64_t state, int64_t stateLanes,
                                        int64_t splitL, int64_t lanes,
                                        const VulkanLimits &limits,
                                        llvm::raw_ostream &reason) {
  if (splitL != 0) {
    reason << "'time_lanes' is one pass over the sequence: leave 'split_l' "
              "out";
    return false;
  }
  if (lanes < 1 || !llvm::isPowerOf2_64(lanes) || lanes > limits.subgroupSize) {
    reason << "'time_lanes' (" << lanes
           << ") must be a power of two no larger than the subgroup size ("
           << limits.subgroupSize << ")";
    return false;
  }
  int64_t groups = stateLanes == 0 ? 1 : stateLanes;
  if (groups < 1 || !llvm::isPowerOf2_64(groups) ||
      lanes * groups > limits.subgroupSize || state % groups != 0) {
    reason << "'state_lanes' (" << groups
           << ") with 'time_lanes' must be a power of two dividing d_state ("
           << state << ") whose product with 'time_lanes' (" << lanes
           << ") is at most the subgroup size (" << limits.subgroupSize << ")";
    return false;
  }
  if (chunkL % lanes != 0 || chunkL / lanes > kMaxItems) {
    reason << "'chunk_l' (" << chunkL << ") must be 'time_lanes' (" << lanes
           << ") times at most " << kMaxItems << " steps per thread";
    return false;
  }
  if (state / groups > kMaxStatesPerThread) {
    reason << "'time_lanes' keeps " << state / groups
           << " states of a channel in each thread (at most "
           << kMaxStatesPerThread << ")";
    return false;
  }
  if (laneBatch != 0 && (laneBatch < 1 || laneBatch > state / groups)) {
    reason << "'lane_batch' (" << laneBatch
           << ") must be between 1 and the states a thread keeps ("
           << state / groups << ")";
    return false;
  }
  timeLanes = lanes;
  timeStateLanes = groups;
  itemsPerThread = chunkL / lanes;
  threadsPerChannel = lanes * groups;
  statesPerThread = state / groups;
  threads = blockD * threadsPerChannel;
  if (threads > limits.maxInvocations || threads % limits.subgroupSize != 0) {
    reason << "'block_d' (" << blockD << ") channels of " << threadsPerChannel
           << " threads must fill whole subgroups of " << limits.subgroupSize
           << " and at most " << limits.maxInvocations << " invocations";
    return false;
  }
  // dt, u (then y) per channel and the B, C rows per state, steps fastest;
  // rows an odd number of words apart against bank conflicts.
  timeStride = timeSlot(chunkL - 1) + 1;
  if (timeStride % 2 == 0)
    ++timeStride;
  bcStride = groups == 1 ? timeStride : stateGroupStride(timeStride);
  // With `double_buffer` the u / y stage is twice.
  int64_t channelStages = doubleBuffer ? 3 : 2;
  sharedBytes = 4 * (channelStages * timeStride * blockD +
                     2 * bcStride * groupSpan * state);
  if (sharedBytes > limits.sharedBytes) {
    reason << "stages " << sharedBytes << " bytes of shared memory, the device "
           << "has " << limits.sharedBytes;
    return false;
  }
  return true;
}

bool VulkanScanLayout::computeChannelLanes(int64_t seq, int64_t state,
                                           int64_t splitL, int64_t polyExp,
                                           int64_t fetchAhead,
                                           int64_t carryPass,
                                           const VulkanLimits &limits,
                                           llvm::raw_ostream &reason) {
  if (splitL != 0) {
    if (splitL < 1 || splitL >= seq) {
      reason << "'split_l' (" << splitL
             << ") must be positive and shorter than the sequence (" << seq
             << "); leave it out for one pass over the sequence";
      return false;
    }
    this->splitL = splitL;
    numSplits = ceilDiv(seq, splitL);
  }
  if (state > kMaxStatesPerThread) {
    reason << "'channel_lanes' keeps all " << state
           << " states of a channel in one thread (at most "
           << kMaxStatesPerThread << ")";
    return false;
  }
  // A group's B and C rows are in registers one group ahead.
  if (chunkL * state > kMaxSegmentPairs) {
    reason << "'channel_lanes' fetches 'chunk_l' (" << chunkL << ") steps x "
           << state << " states of B and C a group ahead (at most "
           << kMaxSegmentPairs << " pairs)";
    return false;
  }
  if (polyExp < 0 || polyExp > state) {
    reason << "'poly_exp' (" << polyExp << ") must be at most d_state ("
           << state << ")";
    return false;
  }
  int64_t ahead = fetchAhead == 0 ? 1 : fetchAhead;
  if (ahead < 1 || ahead > kMaxStepsAhead || ahead * chunkL > kMaxStepsAhead) {
    reason << "'fetch_ahead' (" << ahead << ") groups of 'chunk_l' (" << chunkL
           << ") steps of delta, u and z in flight: at most " << kMaxStepsAhead
           << " steps";
    return false;
  }
  if (carryPass != 0 && (carryPass != 1 || splitL == 0)) {
    reason << "'carry_pass' (" << carryPass
           << ") must be 1, with 'split_l' (it joins the splits)";
    return false;
  }
  channelLanes = true;
  this->polyExp = polyExp;
  this->fetchAhead = ahead;
  this->carryPass = carryPass == 1;
  carryThreads = std::min<int64_t>(256, limits.maxInvocations);
  threadsPerChannel = 1;
  statesPerThread = state;
  itemsPerThread = chunkL;
  threads = blockD;
  sharedBytes = 0;
  statesSharedBytes = 0;
  return true;
}

bool VulkanScanLayout::computeTimeSegments(int64_t state, int64_t stateLanes,
                                           int64_t segments,
                                           const VulkanLimits &limits,
                                           llvm::raw_ostream &reason) {
  if (segments < 1 || segments > limits.maxInvocations ||
      chunkL % segments != 0) {
    reason << "'time_segments' (" << segments
           << ") must be positive and divide 'chunk_l' (" << chunkL << ")";
    return false;
  }
  int64_t groups = stateLanes == 0 ? 1 : stateLanes;
  // The groups of a channel sum their y by shuffle xor over lanes blockD,
  // 2 blockD, ...: one segment's lanes must lie in one subgroup.
  if (groups < 1 || !llvm::isPowerOf2_64(groups) || state % groups != 0 ||
      (groups > 1 && (!llvm::isPowerOf2_64(blockD) ||
                      blockD * groups > limits.subgroupSize))) {
    reason << "'state_lanes' (" << groups
           << ") with 'time_segments' must be a power of two dividing d_state ("
           << state << "); with more than one, 'block_d' (" << blockD
           << ") must be a power of two whose product with it is at most the "
              "subgroup size ("
           << limits.subgroupSize << ")";
    return false;
  }
  int64_t items = chunkL / segments;
  if (state / groups > kMaxStatesPerThread ||
      items * (state / groups) > kMaxSegmentPairs) {
    reason << "'time_segments' keeps " << items << " steps x " << state / groups
           << " states of decay products and states in "
           << "each thread (at most " << kMaxSegmentPairs << " pairs, "
           << kMaxStatesPerThread << " states)";
    return false;
  }
  timeSegments = segments;
  timeStateLanes = groups;
  itemsPerThread = items;
  statesPerThread = state / groups;
  threadsPerChannel = groups * segments;
  threads = blockD * groups * segments;
  if (threads > limits.maxInvocations ||
      (groups > 1 && threads % limits.subgroupSize != 0)) {
    reason << "'block_d' (" << blockD << ") channels x " << groups
           << " state groups x " << segments << " segments must be at most "
           << limits.maxInvocations << " invocations (whole subgroups of "
           << limits.subgroupSize << " with state groups)";
    return false;
  }
  // A group's rows: statesPerThread x blockD words, padded so that group g
  // starts g * blockD banks on (the blockD * groups lanes of a segment read
  // distinct banks).
  segmentStride = statesPerThread * blockD;
  if (groups > 1)
    while (segmentStride % 32 != blockD % 32)
      ++segmentStride;
  // P and H of every segment but the last, and the carry, each twice (by
  // the chunk's parity: one barrier a chunk).
  int64_t block = groups * segmentStride;
  sharedBytes = 4 * (2 * 2 * (segments - 1) * block + 2 * block);
  if (sharedBytes > limits.sharedBytes) {
    reason << "segments " << sharedBytes
           << " bytes of shared memory, the device has " << limits.sharedBytes;
    return false;
  }
  return true;
}
