//===- Layout.h - how a Vulkan workgroup runs attention ---------*- C++ -*-===//
//
// The thread and shared-memory layout of flash attention on a Vulkan
// device, derived from a config (block_q, block_k, num_subgroups) and the
// target. Config verification (Attention/Vulkan/Rules.cpp) and the kernel
// builders (lib/Ops/Attention/Vulkan/Kernel.cpp) both use it, so a config
// that verifies is one the builders can emit.
//
// Portable path (f32 arithmetic, any Vulkan 1.1 device): T = num_subgroups *
// subgroup_size threads; thread t = ty * TX + tx owns `rows` query rows
// (ty * rows ...) and, of every key block, the keys tx, tx + TX, ... and, of
// the output, the columns tx, tx + TX, ...; the TX threads of a row group
// are neighbours in one subgroup and combine row maxima and sums with
// subgroup shuffles. Shared memory stages a d-chunk of Q and K (padded rows
// against bank conflicts), the probabilities P and a k-chunk of V.
//
// Cooperative-matrix path (f16 inputs, VK_KHR_cooperative_matrix 16x16x16):
// each subgroup owns 16 query rows (block_q = 16 * num_subgroups), or 32
// with the register softmax (block_q = 32 * num_subgroups); Q is
// kept in matrix registers; the workgroup stages the key and value blocks
// as f16 (16-byte copies), in two alternating buffers where shared memory
// holds them and the workgroup is large (one barrier per key block), else
// in one (two barriers). Where the
// device lays its matrices out as NVIDIA's mma.sync fragments
// (`registerSoftmax`), the softmax reads and writes the matrices' elements in
// registers; elsewhere each subgroup stages its scores (f32), probabilities
// (f16) and per-row rescale factors.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_VULKAN_LAYOUT_H
#define EJK_OPS_ATTENTION_VULKAN_LAYOUT_H

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

namespace mlir::ejk {

struct VulkanAttentionLayout {
  bool cooperative = false;
  /// Cooperative path: softmax on the matrices' own elements (the device has
  /// cooperative_matrix_nv_layout), no score stage.
  bool registerSoftmax = false;
  int64_t blockQ = 0, blockK = 0, numSubgroups = 0, subgroupSize = 0;
  int64_t threads = 0;

  // Portable path.
  /// Threads along keys / value columns, and row groups.
  int64_t threadsX = 0, threadsY = 0;
  /// Query rows per thread, keys per thread per block, output columns per
  /// thread.
  int64_t rowsPerThread = 0, keysPerThread = 0, colsPerThread = 0;
  /// Head dims padded to whole chunks / whole column strides.
  int64_t paddedHeadDim = 0, paddedHeadDimV = 0;
  /// Elements of head_dim staged per step of S = Q K^T, and keys of V
  /// staged per step of O += P V.
  int64_t dChunk = 0, kChunk = 0;

  // Cooperative path (16x16x16 tiles).
  static constexpr int64_t kTile = 16;

  /// Cooperative path: row strides (elements) of the staged tiles, padded
  /// so that the rows of a 16x16 load start in different banks while
  /// staying 16-byte aligned.
  static int64_t rowStride(int64_t dim) { return dim + 8; }
  int64_t sStride() const { return blockK + 4; }
  int64_t pStride() const { return blockK + 8; }
  static int64_t alphaStride() { return kTile + 4; }
  /// Register softmax: f32 and f16 16x16 tiles of element indices, which
  /// each subgroup reads back to check the layout it relies on.
  static constexpr int64_t kLayoutProbeBytes = kTile * kTile * (4 + 2);
  /// Cooperative path: 16-row tiles of Q each subgroup owns (block_q = 16 *
  /// rowTiles * num_subgroups). Two (register softmax only) let each K^T
  /// and V tile loaded from shared memory feed two matrix products, as
  /// FlashAttention-2's warps own 32 rows.
  int64_t rowTiles = 1;
  /// Cooperative path: K/V buffers of the stage. Two where they fit and the
  /// workgroup has at least 256 threads: block j + 1 is stored into one
  /// while block j's matrices read the other, so a key block needs one
  /// barrier instead of two.
  int64_t kvStages = 1;
  /// Register softmax: each key block's P V is computed in the next
  /// iteration, beside that block's softmax (no dependence between them,
  /// so the matrix units work while the softmax runs); a buffer then holds
  /// K of one block and V of the block before.
  bool pipelined = false;
  /// Register softmax with a causal mask: a subgroup skips the matrix work
  /// of a key block past the diagonal of all its rows.
  bool causalSkip = false;
  /// Cooperative path, register softmax, dense: query blocks one workgroup
  /// runs in turn (the grid shrinks by this factor), the K/V pipeline
  /// running on from one block to the next.
  int64_t rowBlocks = 1;
  /// f16 elements of one K/V buffer (block_k rows of K, then of V).
  int64_t kvBufferElements(int64_t headDim, int64_t headDimV) const {
    return blockK * (rowStride(headDim) + rowStride(headDimV));
  }
  /// f16 elements of the stage that first holds Q, then the K/V buffers.
  int64_t kvStageElements(int64_t headDim, int64_t headDimV) const {
    int64_t q = blockQ * rowStride(headDim);
    int64_t kv = kvStages * kvBufferElements(headDim, headDimV);
    return q > kv ? q : kv;
  }

  /// Bytes of workgroup memory the kernel declares.
  int64_t sharedBytes = 0;

  /// Row strides (in elements) of the staged tiles.
  int64_t qStride() const { return dChunk + 1; }
  int64_t kStride() const { return dChunk + 1; }

  /// The layout for a problem and config, or nullopt with the reason on
  /// `reason`.
  static std::optional<VulkanAttentionLayout>
  compute(int64_t headDim, int64_t headDimV, int64_t blockQ, int64_t blockK,
          int64_t numSubgroups, int64_t subgroupSize, int64_t maxInvocations,
          int64_t sharedLimit, bool cooperative, bool registerSoftmax,
          bool hasShuffle, llvm::raw_ostream &reason);
};

class FlashAttentionOp;
class ConfigAttr;
struct TargetInfo;

/// The layout of `op` under `config` on the Vulkan `target` (which decides
/// between the portable and the cooperative-matrix path), or nullopt with
/// the reason on `reason`.
std::optional<VulkanAttentionLayout>
getVulkanAttentionLayout(FlashAttentionOp op, ConfigAttr config,
                         const TargetInfo &target, llvm::raw_ostream &reason);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_VULKAN_LAYOUT_H
