//===- PagedOps.td - Paged ops ---------------------------------*- tablegen -*-===//
//
// The paged and ragged attention: paged decode, ragged mixed prefill+decode, prefill over a paged cache.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_PAGEDOPS_TD
#define EJK_DIALECT_EJK_PAGEDOPS_TD

#endif // EJK_DIALECT_EJK_PAGEDOPS_TD
