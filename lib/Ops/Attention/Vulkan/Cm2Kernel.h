//===- Cm2Kernel.h - flash attention on VK_NV_cooperative_matrix2 -*- C++
//-*-===//
//
// The forward of a flash attention as one SPIR-V module whose matrices are
// workgroup-scope (VK_NV_cooperative_matrix2): the driver chooses how the
// workgroup's subgroups split each product and where the fragments live.
// MLIR's SPIR-V dialect has none of the extension's instructions, so the
// module is written word by word (ejk/Support/SpirvWriter.h) and the
// driver puts it in place of the dispatch's serialized SPIR-V
// (docs/vulkan-pipeline.md, "VK_NV_cooperative_matrix2").
//
// The module is the one bench/vulkan/cm2_fa.py writes for the same
// parameters with --qscale --rowsum mma (test/Vulkan/cm2-emit.test
// compares them word for word).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_VULKAN_CM2KERNEL_H
#define EJK_OPS_ATTENTION_VULKAN_CM2KERNEL_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Attention/Config.h"
#include "ejk/Ops/Attention/Problem.h"
#include "ejk/Ops/DispatchRewriter.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::ejk {

/// What the kernel computes and how; sizes are baked into the module.
struct Cm2AttentionParams {
  /// [batch, seq, heads, headDim] queries, keys, values and output, f16.
  int64_t batch = 0, seq = 0, heads = 0, headDim = 0;
  int64_t blockQ = 0, blockK = 0, threads = 0;
  bool causal = false;
  /// The op's softmax scale.
  double scale = 0;
  /// Columns of the row statistics (row max, row sum, rescale factor);
  /// 0: the key block's.
  int64_t statsColumns = 0;
  /// Q, K and V through SPV_NV_tensor_addressing's tensor layouts.
  bool tensorLoads = false;
  /// V loaded after the softmax instead of with K.
  bool lateV = false;
  std::string entryPoint = "main";
};

/// The module's words.
std::vector<uint32_t> emitCm2Attention(const Cm2AttentionParams &params);

/// The variants `cm2 = N` of the attention config selects (Config.h).
struct Cm2Variant {
  bool tensorLoads, lateV;
};
std::optional<Cm2Variant> cm2Variant(int64_t value);

/// Whether the cm2 kernel runs `op` with `config` on `target`; `reason`
/// says why not.
LogicalResult verifyCm2Attention(FlashAttentionOp op,
                                 const FlashAttentionConfig &config,
                                 const TargetInfo &target, raw_ostream &reason);

/// The dispatch: an empty body, the grid (query blocks, heads, batch), the
/// workgroup size, the device features, and the module as the dispatch's
/// `ejk.spirv_binary`, which the driver serializes in place of the body's.
LogicalResult tileCm2Attention(FlashAttentionOp op,
                               const FlashAttentionConfig &config,
                               const AttentionBuffers &buffers,
                               DispatchRewriter &rewriter);

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_VULKAN_CM2KERNEL_H
