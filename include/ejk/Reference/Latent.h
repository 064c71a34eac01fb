//===- Latent.h - Reference multi-head latent attention ---------*- C++ -*-===//
//
// The oracle for ejk.mla and ejk.paged_mla over host f32 buffers, sums in
// double. Guards as the kernels do: a context length is clamped to
// [0, max_pages_per_seq * page_size], a query start to [0, num_tokens] and
// a page index to [0, num_pages).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_LATENT_H
#define EJK_REFERENCE_LATENT_H

#include "ejk/Reference/Tensor.h"

#include <vector>

namespace ejk::reference {

/// qLatent [B, Sq, H, L], qRope [B, Sq, H, R], kvLatent [B, Sk, L], kRope
/// [B, Sk, R]; `causal` is bottom-right. out gets [B, Sq, H, L], lse
/// [B, H, Sq] (-inf for a row with no key). Messages start with "mla: ".
Status mla(const TensorRef<float> &qLatent, const TensorRef<float> &qRope,
           const TensorRef<float> &kvLatent, const TensorRef<float> &kRope,
           float softmaxScale, bool causal, std::vector<float> &out,
           std::vector<float> &lse);

/// qLatent [T, H, L], qRope [T, H, R], kvCache [P, page, L + R],
/// contextLens [S], blockTables [S, M], queryStartLoc [S + 1] (see
/// ejk.paged_mla). out gets [T, H, L], lse [T, H]. Messages start with
/// "paged_mla: ".
Status pagedMla(const TensorRef<float> &qLatent, const TensorRef<float> &qRope,
                const TensorRef<float> &kvCache,
                const TensorRef<float> &contextLens,
                const TensorRef<float> &blockTables,
                const TensorRef<float> &queryStartLoc, float softmaxScale,
                std::vector<float> &out, std::vector<float> &lse);

} // namespace ejk::reference

#endif // EJK_REFERENCE_LATENT_H
