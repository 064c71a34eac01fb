//===- Ring.h - ring attention's entry expander -----------------*- C++ -*-===//

#ifndef EJK_OPS_ATTENTION_RING_RING_H
#define EJK_OPS_ATTENTION_RING_RING_H

namespace mlir::ejk {

/// Registers the expander that turns an `ejk.ring_attention` entry into the
/// flash-attention block entries the ring runtime calls (Expand.cpp).
void registerRingAttentionExpander();

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_RING_RING_H
