//===- StateSpaceOps.td - StateSpace ops ---------------------------------*- tablegen -*-===//
//
// The state-space scans: Mamba-1 selective scan and Mamba-2 SSD.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_STATESPACEOPS_TD
#define EJK_DIALECT_EJK_STATESPACEOPS_TD

#endif // EJK_DIALECT_EJK_STATESPACEOPS_TD
