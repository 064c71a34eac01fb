//===- AttentionGrad.cpp - Reference flash attention backward -------------===//
//
// Naive loops in double; see AttentionGrad.h for the formulas.
//
//===----------------------------------------------------------------------===//

#include "ejk/Reference/AttentionGrad.h"

#include <cmath>
#include <limits>
#include <string>

using namespace ejk::reference;

/// Names \p what (a buffer or option) as this op's messages do.
static std::string opName(const std::string &what) {
  return "flash_attention_grad: " + what;
}

/// Flat offset of [i0, i1, i2, 0] in a row-major tensor of \p shape.
static int64_t rowOffset(const std::vector<int64_t> &shape, int64_t i0,
                         int64_t i1, int64_t i2) {
  return ((i0 * shape[1] + i1) * shape[2] + i2) * shape[3];
}

/// Rounds a double accumulator to the f32 result buffer.
static void storeAsFloat(const std::vector<double> &from,
                         std::vector<float> &to) {
  for (size_t n = 0; n < from.size(); ++n)
    to[n] = static_cast<float>(from[n]);
}

Status ejk::reference::flashAttentionGrad(const AttentionProblem &problem,
                                          const AttentionOptions &options,
                                          const TensorRef<float> &dOut,
                                          AttentionGradients &grads) {
  AttentionDims dims;
  if (Status s = verifyAttention(problem, options, dims); !s)
    return s;
  if (!options.normalizeOutput)
    return Status::error(
        opName("normalizeOutput = false has no backward here"));
  if (Status s =
          checkShape(opName("dOut"), dOut,
                     {dims.batch, dims.seqQ, dims.numQHeads, dims.valueDim});
      !s)
    return s;
  if (Status s = allocateOutput(opName("dq"), problem.q.shape, 0.0f, grads.dq);
      !s)
    return s;
  if (Status s = allocateOutput(opName("dk"), problem.k.shape, 0.0f, grads.dk);
      !s)
    return s;
  if (Status s = allocateOutput(opName("dv"), problem.v.shape, 0.0f, grads.dv);
      !s)
    return s;

  // Accumulate in double; round once at the end.
  std::vector<double> dq(grads.dq.size(), 0.0);
  std::vector<double> dk(grads.dk.size(), 0.0);
  std::vector<double> dv(grads.dv.size(), 0.0);
  const double scale = effectiveSoftmaxScale(options, dims.headDim);
  const int64_t headDim = dims.headDim;
  const int64_t valueDim = dims.valueDim;

  AttentionRow row;
  std::vector<double> dp;
  for (int64_t b = 0; b < dims.batch; ++b) {
    for (int64_t h = 0; h < dims.numQHeads; ++h) {
      const int64_t kvHead = h / dims.groupSize();
      for (int64_t i = 0; i < dims.seqQ; ++i) {
        computeAttentionRow(problem, options, dims, b, h, i, row);
        if (row.lse == -std::numeric_limits<double>::infinity())
          continue;
        const int64_t qOffset = rowOffset(problem.q.shape, b, i, h);
        const float *dOutRow = dOut.data + rowOffset(dOut.shape, b, i, h);

        dp.assign(dims.seqK, 0.0);
        // Gradient w.r.t. the pre-dropout probabilities, and its
        // p-weighted sum (the softmax Jacobian's rank-one part).
        double rowSum = 0.0;
        for (int64_t j = 0; j < dims.seqK; ++j) {
          const float *vRow =
              problem.v.data + rowOffset(problem.v.shape, b, j, kvHead);
          double dot = 0.0;
          for (int64_t d = 0; d < valueDim; ++d)
            dot += static_cast<double>(dOutRow[d]) * vRow[d];
          dp[j] = dot * row.dropoutScale[j];
          if (row.prob[j] != 0.0)
            rowSum += row.prob[j] * dp[j];
        }

        for (int64_t j = 0; j < dims.seqK; ++j) {
          const double p = row.prob[j];
          // Excluded keys (and underflowed ones) have no gradient.
          if (p == 0.0)
            continue;
          const int64_t kOffset = rowOffset(problem.k.shape, b, j, kvHead);
          const int64_t vOffset = rowOffset(problem.v.shape, b, j, kvHead);
          const double weight = p * row.dropoutScale[j];
          for (int64_t d = 0; d < valueDim; ++d)
            dv[vOffset + d] += weight * dOutRow[d];

          const double dScore = p * (dp[j] - rowSum) * row.softCapGrad[j];
          for (int64_t d = 0; d < headDim; ++d) {
            dq[qOffset + d] += scale * dScore * problem.k[kOffset + d];
            dk[kOffset + d] += scale * dScore * problem.q[qOffset + d];
          }
        }
      }
    }
  }
  storeAsFloat(dq, grads.dq);
  storeAsFloat(dk, grads.dk);
  storeAsFloat(dv, grads.dv);
  return Status::success();
}
