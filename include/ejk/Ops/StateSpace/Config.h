//===- Config.h - the typed configs of the state-space ops ------*- C++ -*-===//
//
// Each `#ejk.config` entry of the state-space family is spelled once, here;
// the verifier, the config rules and the kernels all read these structs.
//
// ejk.selective_scan:
//   block_d     channels per workgroup (CPU: a multiple of the f32 lanes;
//               Vulkan: its threads, TN per channel, fill whole subgroups)
//   chunk_l     steps per chunk of the sequence: dt, dt * u and y are staged
//               per chunk while the state stays in registers
//   split_l     (Vulkan only, optional) steps of the sequence per workgroup:
//               the chunked two-dispatch scan (each split's local end state,
//               then the scan from the carried states); absent: one
//               workgroup walks the whole sequence
//   state_lanes (Vulkan only, optional) threads per channel sharing its
//               d_state states; absent: min(next_pow2(d_state), subgroup)
//   time_lanes  (Vulkan only, optional) threads per channel splitting each
//               chunk's steps (chunk_l / time_lanes consecutive steps per
//               thread, every state of the channel), joined by a subgroup
//               scan: one pass over the data, no split_l / state_lanes
//   lane_batch  (Vulkan only, optional, with time_lanes) states of a thread
//               whose lane scans are emitted together (their shuffles
//               interleaved), each lane's end state shuffled once for the
//               next lane and the next chunk; absent: one state at a time
//   double_buffer (Vulkan only, optional, with time_lanes) 1: the u / y
//               stage alternates between two buffers, one barrier a chunk
//               fewer
//   time_segments (Vulkan only, optional) subgroups splitting each chunk's
//               steps, the channels along the lanes
//   channel_lanes (Vulkan only, optional) 1: one lane = one channel with
//               every state in registers, B and C the same for the lanes,
//               no shared memory; chunk_l steps' loads issued a group ahead;
//               with split_l the two-dispatch chunked scan
//   poly_exp    (Vulkan only, optional, with channel_lanes) states of a lane
//               whose exp2 is a polynomial on the FP32 pipe instead of the
//               special-function unit
//   fetch_ahead (Vulkan only, optional, with channel_lanes) groups of
//               chunk_l steps whose delta, u and z are loaded ahead of the
//               group in use (B and C stay one group ahead); absent: 1
//   carry_pass  (Vulkan only, optional, with channel_lanes and split_l) 1:
//               a dispatch between the two folds the splits' end states
//               into each split's start state (else every split folds the
//               ones before it)
//
// ejk.ssd:
//   chunk_size     steps per SSD chunk (must equal the op's attribute if set)
//   block_p        head_dim columns per workgroup (CPU: a multiple of the
//                  lanes)
//   block_n        d_state rows per tile of the state update (divides
//                  d_state); on Vulkan also the n-chunk of B and C staged
//   num_subgroups  subgroups per workgroup (Vulkan only)
//   split_l        (Vulkan only, optional) steps of the sequence per
//                  workgroup, a multiple of chunk_size: the split scan
//                  (each split's end state first, then the scan from the
//                  carried states); absent: one workgroup walks all chunks
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_STATESPACE_CONFIG_H
#define EJK_OPS_STATESPACE_CONFIG_H

#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Ops/ConfigNames.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::ejk {

struct SelectiveScanConfig {
  static constexpr llvm::StringLiteral kBlockD = "block_d";
  static constexpr llvm::StringLiteral kChunkL = "chunk_l";
  static constexpr llvm::StringLiteral kSplitL = "split_l";
  static constexpr llvm::StringLiteral kStateLanes = "state_lanes";
  static constexpr llvm::StringLiteral kTimeLanes = "time_lanes";
  static constexpr llvm::StringLiteral kLaneBatch = "lane_batch";
  static constexpr llvm::StringLiteral kDoubleBuffer = "double_buffer";
  static constexpr llvm::StringLiteral kTimeSegments = "time_segments";
  static constexpr llvm::StringLiteral kChannelLanes = "channel_lanes";
  static constexpr llvm::StringLiteral kPolyExp = "poly_exp";
  static constexpr llvm::StringLiteral kFetchAhead = "fetch_ahead";
  static constexpr llvm::StringLiteral kCarryPass = "carry_pass";

  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {
        kBlockD,       kChunkL,    kSplitL,       kStateLanes,
        kTimeLanes,    kLaneBatch, kDoubleBuffer, kTimeSegments,
        kChannelLanes, kPolyExp,   kFetchAhead,   kCarryPass};
    return all;
  }

  int64_t blockD = 0, chunkL = 0;
  std::optional<int64_t> splitL = std::nullopt, stateLanes = std::nullopt,
                         timeLanes = std::nullopt, laneBatch = std::nullopt,
                         doubleBuffer = std::nullopt,
                         timeSegments = std::nullopt,
                         channelLanes = std::nullopt, polyExp = std::nullopt,
                         fetchAhead = std::nullopt, carryPass = std::nullopt;

  /// Reads `config`; fails with `reason` on an unknown or missing entry.
  static std::optional<SelectiveScanConfig> read(ConfigAttr config,
                                                 llvm::raw_ostream &reason) {
    if (failed(checkConfigNames(config, names(), reason)))
      return std::nullopt;
    std::optional<int64_t> d = config.lookup(kBlockD);
    std::optional<int64_t> l = config.lookup(kChunkL);
    if (!d || !l) {
      reason << "config needs '" << kBlockD << "' and '" << kChunkL << "'";
      return std::nullopt;
    }
    return SelectiveScanConfig{*d,
                               *l,
                               config.lookup(kSplitL),
                               config.lookup(kStateLanes),
                               config.lookup(kTimeLanes),
                               config.lookup(kLaneBatch),
                               config.lookup(kDoubleBuffer),
                               config.lookup(kTimeSegments),
                               config.lookup(kChannelLanes),
                               config.lookup(kPolyExp),
                               config.lookup(kFetchAhead),
                               config.lookup(kCarryPass)};
  }

  ConfigAttr toAttr(MLIRContext *context) const {
    llvm::SmallVector<std::pair<llvm::StringRef, int64_t>> values = {
        {kBlockD, blockD}, {kChunkL, chunkL}};
    if (splitL)
      values.emplace_back(kSplitL, *splitL);
    if (stateLanes)
      values.emplace_back(kStateLanes, *stateLanes);
    if (timeLanes)
      values.emplace_back(kTimeLanes, *timeLanes);
    if (laneBatch)
      values.emplace_back(kLaneBatch, *laneBatch);
    if (doubleBuffer)
      values.emplace_back(kDoubleBuffer, *doubleBuffer);
    if (timeSegments)
      values.emplace_back(kTimeSegments, *timeSegments);
    if (channelLanes)
      values.emplace_back(kChannelLanes, *channelLanes);
    if (polyExp)
      values.emplace_back(kPolyExp, *polyExp);
    if (fetchAhead)
      values.emplace_back(kFetchAhead, *fetchAhead);
    if (carryPass)
      values.emplace_back(kCarryPass, *carryPass);
    return ConfigAttr::get(context, values);
  }
};

struct SsdConfig {
  static constexpr llvm::StringLiteral kChunkSize = "chunk_size";
  static constexpr llvm::StringLiteral kBlockP = "block_p";
  static constexpr llvm::StringLiteral kBlockN = "block_n";
  static constexpr llvm::StringLiteral kNumSubgroups = "num_subgroups";
  static constexpr llvm::StringLiteral kSplitL = "split_l";
  /// Vulkan: 1 runs the chunks in parallel (per-chunk states, a short
  /// pass over them, per-chunk outputs) instead of one sequential scan.
  static constexpr llvm::StringLiteral kChunkParallel = "chunk_parallel";
  /// Vulkan, with chunk_parallel: 1 runs the chunk matrices on 16x16x16
  /// f16 cooperative matrices (f16 inputs).
  static constexpr llvm::StringLiteral kCooperative = "cooperative";

  static llvm::ArrayRef<llvm::StringRef> names() {
    static const llvm::StringRef all[] = {
        kChunkSize, kBlockP,        kBlockN,     kNumSubgroups,
        kSplitL,    kChunkParallel, kCooperative};
    return all;
  }

  int64_t chunkSize = 0, blockP = 0, blockN = 0;
  std::optional<int64_t> numSubgroups = std::nullopt, splitL = std::nullopt,
                         parallelChunks = std::nullopt,
                         cooperative = std::nullopt;

  /// Reads `config`; fails with `reason` on an unknown or missing entry.
  static std::optional<SsdConfig> read(ConfigAttr config,
                                       llvm::raw_ostream &reason) {
    if (failed(checkConfigNames(config, names(), reason)))
      return std::nullopt;
    std::optional<int64_t> p = config.lookup(kBlockP);
    std::optional<int64_t> n = config.lookup(kBlockN);
    std::optional<int64_t> chunk = config.lookup(kChunkSize);
    if (!p || !n || !chunk) {
      reason << "config needs '" << kBlockP << "', '" << kBlockN << "' and '"
             << kChunkSize << "'";
      return std::nullopt;
    }
    SsdConfig c;
    c.chunkSize = *chunk;
    c.blockP = *p;
    c.blockN = *n;
    c.numSubgroups = config.lookup(kNumSubgroups);
    c.splitL = config.lookup(kSplitL);
    c.parallelChunks = config.lookup(kChunkParallel);
    c.cooperative = config.lookup(kCooperative);
    return c;
  }

  ConfigAttr toAttr(MLIRContext *context) const {
    llvm::SmallVector<std::pair<llvm::StringRef, int64_t>> values = {
        {kChunkSize, chunkSize}, {kBlockP, blockP}, {kBlockN, blockN}};
    if (numSubgroups)
      values.emplace_back(kNumSubgroups, *numSubgroups);
    if (splitL)
      values.emplace_back(kSplitL, *splitL);
    if (parallelChunks)
      values.emplace_back(kChunkParallel, *parallelChunks);
    if (cooperative)
      values.emplace_back(kCooperative, *cooperative);
    return ConfigAttr::get(context, values);
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_STATESPACE_CONFIG_H
