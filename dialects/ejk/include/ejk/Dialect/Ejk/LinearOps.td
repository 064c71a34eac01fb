//===- LinearOps.td - Linear ops ---------------------------------*- tablegen -*-===//
//
// The chunked linear-recurrent attention: gated linear attention, lightning attention, the delta rule, a generic recurrence.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_LINEAROPS_TD
#define EJK_DIALECT_EJK_LINEAROPS_TD

#endif // EJK_DIALECT_EJK_LINEAROPS_TD
