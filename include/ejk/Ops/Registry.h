//===- Registry.h - every op family, registered at once ---------*- C++ -*-===//
//
// Tools and tests call `registerAllOpFamilies` on the registry they build
// their context from: it attaches each family's interface models to the
// dialect's ops and records the families' OpModels (ejk/Ops/OpModel.h).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_REGISTRY_H
#define EJK_OPS_REGISTRY_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::ejk {

/// Registers every op family (lib/Ops/Registry.cpp, the only list a new
/// family edits).
void registerAllOpFamilies(DialectRegistry &registry);

/// One function per family, each in its folder.
void registerAttentionFamily(DialectRegistry &registry);
void registerStateSpaceFamily(DialectRegistry &registry);
void registerMoeFamily(DialectRegistry &registry);
void registerPoolingFamily(DialectRegistry &registry);
/// ejk.paged_attention (lib/Ops/Paged).
void registerPagedFamily(DialectRegistry &registry);
/// ejk.gla (lib/Ops/Linear).
void registerLinearFamily(DialectRegistry &registry);
/// ejk.mla and ejk.paged_mla (lib/Ops/Latent).
void registerLatentFamily(DialectRegistry &registry);
/// ejk.native_sparse_attention (lib/Ops/Sparse).
void registerSparseFamily(DialectRegistry &registry);

} // namespace mlir::ejk

#endif // EJK_OPS_REGISTRY_H
