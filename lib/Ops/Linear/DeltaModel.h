//===- DeltaModel.h - ejk.delta_attention's op model ------------*- C++ -*-===//

#ifndef EJK_OPS_LINEAR_DELTAMODEL_H
#define EJK_OPS_LINEAR_DELTAMODEL_H

namespace mlir {
class DialectRegistry;
namespace ejk {

/// Registers the OpModel of `ejk.delta_attention` (its kernels on both
/// targets) and attaches its TunableModel; called by registerLinearFamily.
void registerDeltaAttentionModel(DialectRegistry &registry);

} // namespace ejk
} // namespace mlir

#endif // EJK_OPS_LINEAR_DELTAMODEL_H
