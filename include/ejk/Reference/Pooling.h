//===- Pooling.h - Reference mean pooling and its backward ------*- C++ -*-===//
//
// The oracles for ejk.mean_pooling and ejk.mean_pooling_grad over host f32
// buffers, sums in double. Dense: tokens [batch, seq, hidden]; packed:
// tokens [total, hidden] with cuSeqlens [batch + 1], sequence b being the
// rows [start_b, end_b), start_b = clamp(cu[b], 0, total), end_b =
// clamp(cu[b + 1], start_b, total) (the kernels' guard). An empty sequence
// pools to 0; packed rows of no sequence get a zero gradient.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_POOLING_H
#define EJK_REFERENCE_POOLING_H

#include "ejk/Reference/Tensor.h"

#include <optional>
#include <vector>

namespace ejk::reference {

/// The row range [begin, end) of each packed sequence, guarded as above.
std::vector<std::pair<int64_t, int64_t>>
sequenceRowRanges(const std::vector<int64_t> &cuSeqlens, int64_t total);

/// What is wrong with `cuSeqlens` for `total` packed rows ("" when valid:
/// starting at 0, non-decreasing, ending at most at `total`); the operand
/// is named `name` in the message.
std::string checkCuSeqlens(const std::vector<int64_t> &cuSeqlens, int64_t total,
                           const std::string &name = "cu_seqlens");

/// out is [batch, hidden]. Messages start with "mean_pooling: ".
Status meanPooling(const TensorRef<float> &input,
                   const std::optional<TensorRef<float>> &cuSeqlens,
                   std::vector<float> &out);

/// gradOutput [batch, hidden]; gradInput takes `tokenShape` ([batch, seq,
/// hidden] or [total, hidden]). Messages start with "mean_pooling_grad: ".
Status meanPoolingGrad(const TensorRef<float> &gradOutput,
                       const std::optional<TensorRef<float>> &cuSeqlens,
                       const std::vector<int64_t> &tokenShape,
                       std::vector<float> &gradInput);

} // namespace ejk::reference

#endif // EJK_REFERENCE_POOLING_H
