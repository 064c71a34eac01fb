//===- NativeSparse.h - native sparse attention on the Vulkan -----*- C++
//-*-===//
//
// The config rules and kernel builder of `ejk.native_sparse_attention` on
// this target, as the family's TargetKernel (ejk/Ops/OpModel.h) calls them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_SPARSE_VULKAN_NATIVESPARSE_H
#define EJK_OPS_SPARSE_VULKAN_NATIVESPARSE_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

namespace mlir::ejk {

struct VulkanNativeSparseAttention {
  static SmallVector<ConfigAttr>
  configSpace(NativeSparseAttentionOp op, const TargetInfo &target, bool full);
  static ConfigAttr heuristicConfig(NativeSparseAttentionOp op,
                                    const TargetInfo &target);
  static LogicalResult verifyConfig(NativeSparseAttentionOp op,
                                    ConfigAttr config, const TargetInfo &target,
                                    raw_ostream &reason);
  static LogicalResult tile(NativeSparseAttentionOp op, ConfigAttr config,
                            DispatchRewriter &rewriter);
};

} // namespace mlir::ejk

#endif // EJK_OPS_SPARSE_VULKAN_NATIVESPARSE_H
