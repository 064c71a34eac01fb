//===- MiscOps.td - Misc ops ---------------------------------*- tablegen -*-===//
//
// The other kernels: grouped matmul (MoE) and variable-length mean pooling.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_MISCOPS_TD
#define EJK_DIALECT_EJK_MISCOPS_TD

#endif // EJK_DIALECT_EJK_MISCOPS_TD
