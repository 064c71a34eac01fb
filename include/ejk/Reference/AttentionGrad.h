//===- AttentionGrad.h - Reference flash attention backward -----*- C++ -*-===//
//
// The oracle for ejk.flash_attention_grad: the gradients of
// sum(out * dOut) with respect to q, k and v, where out is flashAttention's
// output under the same problem and options (Attention.h).
//
// Computed directly in double, recomputing the probabilities P from q and k
// (no saved lse is taken), per row (b, h, i) with kv head kvh:
//   dPd_j = dot(dOut[b,i,h,:], v[b,j,kvh,:])        (grad of the dropped P)
//   dp_j  = dPd_j * z_j                             (z_j: 0 or 1/(1-prob),
//                                                    the forward's mask)
//   ds_j  = p_j * (dp_j - sum_l p_l * dp_l)         (softmax backward)
//   dr_j  = ds_j * (1 - tanh^2(r_j / cap))          (soft cap; else ds_j)
//   dq[b,i,h,:]   += scale * dr_j * k[b,j,kvh,:]
//   dk[b,j,kvh,:] += scale * dr_j * q[b,i,h,:]
//   dv[b,j,kvh,:] += p_j * z_j * dOut[b,i,h,:]
// with r_j = scale * dot(q, k) the raw score. Kv-head gradients sum over the
// query heads of their group. Bias and masks only shape P; no gradient is
// produced for them. Fully masked rows contribute nothing.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_ATTENTIONGRAD_H
#define EJK_REFERENCE_ATTENTIONGRAD_H

#include "ejk/Reference/Attention.h"

#include <vector>

namespace ejk::reference {

/// The results of flashAttentionGrad.
struct AttentionGradients {
  /// [batch, seqQ, numQHeads, headDim].
  std::vector<float> dq;
  /// [batch, seqK, numKvHeads, headDim].
  std::vector<float> dk;
  /// [batch, seqK, numKvHeads, valueDim].
  std::vector<float> dv;
};

/// Flash attention backward. \p dOut is [batch, seqQ, numQHeads, valueDim].
/// On failure the status names the problem and \p grads is unspecified.
Status flashAttentionGrad(const AttentionProblem &problem,
                          const AttentionOptions &options,
                          const TensorRef<float> &dOut,
                          AttentionGradients &grads);

} // namespace ejk::reference

#endif // EJK_REFERENCE_ATTENTIONGRAD_H
