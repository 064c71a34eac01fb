//===- EjkOps.td - ejk ops ---------------------------------*- tablegen -*-===//
//
// Every op of the dialect, one file per op family. Each family shares one
// tiling strategy (lib/Transforms) and one file of verifiers (dialects/ejk/lib).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_EJKOPS_TD
#define EJK_DIALECT_EJK_EJKOPS_TD

include "ejk/Dialect/Ejk/EjkBase.td"
include "ejk/Dialect/Ejk/EjkAttrs.td"
include "ejk/Dialect/Ejk/EjkInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

include "ejk/Dialect/Ejk/AttentionOps.td"
include "ejk/Dialect/Ejk/BlockSparseGradOps.td"
include "ejk/Dialect/Ejk/SparseOps.td"
include "ejk/Dialect/Ejk/PagedOps.td"
include "ejk/Dialect/Ejk/LinearOps.td"
include "ejk/Dialect/Ejk/StateSpaceOps.td"
include "ejk/Dialect/Ejk/MiscOps.td"
include "ejk/Dialect/Ejk/HostOps.td"

#endif // EJK_DIALECT_EJK_EJKOPS_TD
