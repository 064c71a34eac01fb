//===- Gla.cpp - Reference gated linear attention -------------------------===//
//
// The sequential recurrence of Linear.h, one (sequence, head) at a time. The
// chunked algorithm of the kernels computes the same thing; the oracle must
// not share its structure.
//
//===----------------------------------------------------------------------===//

#include "LinearRecurrence.h"
#include "ejk/Reference/Linear.h"

#include <cmath>
#include <string>

using namespace ejk::reference;

static const char kOp[] = "gla";

static std::string opName(const std::string &what) {
  return std::string(kOp) + ": " + what;
}

Status ejk::reference::gla(const GlaProblem &problem, const GlaOptions &options,
                           std::vector<float> &o,
                           std::vector<float> &finalState) {
  RecurrenceSizes sizes;
  if (Status s =
          checkRecurrenceInputs(kOp, problem.q, problem.k, problem.v, sizes);
      !s)
    return s;
  const int64_t batch = sizes.batch, seq = sizes.seq, heads = sizes.heads,
                dimK = sizes.dimK, kvHeads = sizes.kvHeads, dimV = sizes.dimV;
  if (options.g)
    if (Status s = checkShape(opName("g"), *options.g, problem.q.shape); !s)
      return s;
  if (options.gk)
    if (Status s = checkShape(opName("gk"), *options.gk, problem.q.shape); !s)
      return s;
  if (options.gv)
    if (Status s =
            checkShape(opName("gv"), *options.gv, {batch, seq, heads, dimV});
        !s)
      return s;

  // Steps [begin, end) of each sequence, and the batch row it lives in.
  std::vector<std::pair<int64_t, int64_t>> ranges;
  if (Status s = recurrenceSequences(kOp, options.cuSeqlens, sizes, ranges); !s)
    return s;
  const int64_t numSeqs = static_cast<int64_t>(ranges.size());
  const bool gammaPerSeq = options.gGamma && options.gGamma->shape.size() == 2;
  if (options.gGamma)
    if (Status s = checkShape(opName("gGamma"), *options.gGamma,
                              gammaPerSeq ? std::vector<int64_t>{numSeqs, heads}
                                          : std::vector<int64_t>{heads});
        !s)
      return s;
  if (Status s = prepareRecurrenceOutputs(kOp, options.initialState, sizes,
                                          numSeqs, o, finalState);
      !s)
    return s;

  const int64_t group = heads / kvHeads;
  std::vector<double> state, decay(dimK), valueGate(dimV);
  for (int64_t n = 0; n < numSeqs; ++n) {
    const auto [begin, end] = ranges[n];
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t j = h / group;
      const int64_t stateOffset = (n * heads + h) * dimK * dimV;
      loadRecurrenceState(options.initialState, stateOffset, dimK * dimV,
                          state);
      const double gamma =
          options.gGamma ? (*options.gGamma)[gammaPerSeq ? n * heads + h : h]
                         : 0.0;
      for (int64_t i = 0; i < end - begin; ++i) {
        // Rows are flat over [batch * seq]: batch row n (dense) or 0.
        const int64_t row = options.reverse ? end - 1 - i : begin + i;
        const int64_t qRow = row * heads + h, kvRow = row * kvHeads + j;
        for (int64_t kk = 0; kk < dimK; ++kk)
          decay[kk] = (options.g ? (*options.g)[qRow * dimK + kk] : 0.0) +
                      (options.gk ? (*options.gk)[qRow * dimK + kk] : 0.0) +
                      gamma;
        for (int64_t vv = 0; vv < dimV; ++vv)
          valueGate[vv] = options.gv ? (*options.gv)[qRow * dimV + vv] : 0.0;
        for (int64_t kk = 0; kk < dimK; ++kk) {
          const double key = problem.k[kvRow * dimK + kk];
          for (int64_t vv = 0; vv < dimV; ++vv) {
            double &s = state[kk * dimV + vv];
            s = std::exp(decay[kk] + valueGate[vv]) * s +
                key * problem.v[kvRow * dimV + vv];
          }
        }
        for (int64_t vv = 0; vv < dimV; ++vv) {
          double out = 0.0;
          for (int64_t kk = 0; kk < dimK; ++kk)
            out += problem.q[qRow * dimK + kk] * state[kk * dimV + vv];
          o[qRow * dimV + vv] = static_cast<float>(options.scale * out);
        }
      }
      for (int64_t e = 0; e < dimK * dimV; ++e)
        finalState[stateOffset + e] = static_cast<float>(state[e]);
    }
  }
  return Status::success();
}
