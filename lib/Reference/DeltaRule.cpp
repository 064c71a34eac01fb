//===- DeltaRule.cpp - Reference (gated) delta rule -----------------------===//
//
// The sequential recurrence of Delta.h, one (sequence, head) at a time. The
// kernels' chunked algorithm (a triangular solve per chunk) computes the
// same thing; the oracle must not share its structure.
//
//===----------------------------------------------------------------------===//

#include "LinearRecurrence.h"
#include "ejk/Reference/Delta.h"

#include <cmath>
#include <string>

using namespace ejk::reference;

static const char kOp[] = "delta_attention";

static std::string opName(const std::string &what) {
  return std::string(kOp) + ": " + what;
}

/// Copies `dim` floats from `src` to `dst`, divided by their l2 norm (with
/// ejKernel's epsilon) when `normalize`.
static void loadRow(const float *src, int64_t dim, bool normalize,
                    std::vector<double> &dst) {
  double sum = 0.0;
  for (int64_t i = 0; i < dim; ++i) {
    dst[i] = src[i];
    sum += dst[i] * dst[i];
  }
  if (!normalize)
    return;
  const double inv = 1.0 / std::sqrt(sum + 1e-6);
  for (int64_t i = 0; i < dim; ++i)
    dst[i] *= inv;
}

Status ejk::reference::deltaAttention(const DeltaProblem &problem,
                                      const DeltaOptions &options,
                                      std::vector<float> &o,
                                      std::vector<float> &finalState) {
  RecurrenceSizes sizes;
  if (Status s =
          checkRecurrenceInputs(kOp, problem.q, problem.k, problem.v, sizes);
      !s)
    return s;
  const int64_t batch = sizes.batch, seq = sizes.seq, heads = sizes.heads,
                dimK = sizes.dimK, kvHeads = sizes.kvHeads, dimV = sizes.dimV;
  if (Status s = checkShape(opName("beta"), problem.beta, {batch, seq, heads});
      !s)
    return s;
  bool perKeyDecay = false;
  if (options.decay) {
    perKeyDecay = options.decay->shape.size() == 4;
    if (Status s =
            checkShape(opName("decay"), *options.decay,
                       perKeyDecay ? problem.q.shape : problem.beta.shape);
        !s)
      return s;
  }

  // Steps [begin, end) of each sequence (rows flat over batch x seq).
  std::vector<std::pair<int64_t, int64_t>> ranges;
  if (Status s = recurrenceSequences(kOp, options.cuSeqlens, sizes, ranges); !s)
    return s;
  const int64_t numSeqs = static_cast<int64_t>(ranges.size());
  if (Status s = prepareRecurrenceOutputs(kOp, options.initialState, sizes,
                                          numSeqs, o, finalState);
      !s)
    return s;

  const int64_t group = heads / kvHeads;
  std::vector<double> state, q(dimK), key(dimK), decay(dimK, 1.0), delta(dimV);
  for (int64_t n = 0; n < numSeqs; ++n) {
    const auto [begin, end] = ranges[n];
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t j = h / group;
      const int64_t stateOffset = (n * heads + h) * dimK * dimV;
      loadRecurrenceState(options.initialState, stateOffset, dimK * dimV,
                          state);
      for (int64_t i = 0; i < end - begin; ++i) {
        const int64_t row = options.reverse ? end - 1 - i : begin + i;
        const int64_t qRow = row * heads + h, kvRow = row * kvHeads + j;
        loadRow(problem.q.data + qRow * dimK, dimK, options.l2Norm, q);
        loadRow(problem.k.data + kvRow * dimK, dimK, options.l2Norm, key);
        if (options.decay)
          for (int64_t kk = 0; kk < dimK; ++kk)
            decay[kk] = std::exp(static_cast<double>(
                (*options.decay)[perKeyDecay ? qRow * dimK + kk : qRow]));
        for (int64_t e = 0; e < dimK * dimV; ++e)
          state[e] *= decay[e / dimV];
        const double rate = problem.beta[qRow];
        for (int64_t vv = 0; vv < dimV; ++vv) {
          double recalled = 0.0;
          for (int64_t kk = 0; kk < dimK; ++kk)
            recalled += key[kk] * state[kk * dimV + vv];
          delta[vv] = rate * (problem.v[kvRow * dimV + vv] - recalled);
        }
        for (int64_t kk = 0; kk < dimK; ++kk)
          for (int64_t vv = 0; vv < dimV; ++vv)
            state[kk * dimV + vv] += key[kk] * delta[vv];
        for (int64_t vv = 0; vv < dimV; ++vv) {
          double out = 0.0;
          for (int64_t kk = 0; kk < dimK; ++kk)
            out += q[kk] * state[kk * dimV + vv];
          o[qRow * dimV + vv] = static_cast<float>(options.scale * out);
        }
      }
      for (int64_t e = 0; e < dimK * dimV; ++e)
        finalState[stateOffset + e] = static_cast<float>(state[e]);
    }
  }
  return Status::success();
}
