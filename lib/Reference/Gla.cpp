//===- Gla.cpp - Reference gated linear attention -------------------------===//
//
// The sequential recurrence of Linear.h, one (sequence, head) at a time. The
// chunked algorithm of the kernels computes the same thing; the oracle must
// not share its structure.
//
//===----------------------------------------------------------------------===//

#include "ejk/Reference/Linear.h"
#include "ejk/Reference/Pooling.h"

#include <cmath>
#include <string>

using namespace ejk::reference;

static std::string opName(const std::string &what) { return "gla: " + what; }

static Status opError(const std::string &message) {
  return Status::error(opName(message));
}

Status ejk::reference::gla(const GlaProblem &problem, const GlaOptions &options,
                           std::vector<float> &o,
                           std::vector<float> &finalState) {
  if (Status s = checkShape(opName("q"), problem.q,
                            {kAnyDim, kAnyDim, kAnyDim, kAnyDim});
      !s)
    return s;
  const int64_t batch = problem.q.shape[0], seq = problem.q.shape[1],
                heads = problem.q.shape[2], dimK = problem.q.shape[3];
  if (Status s =
          checkShape(opName("k"), problem.k, {batch, seq, kAnyDim, dimK});
      !s)
    return s;
  const int64_t kvHeads = problem.k.shape[2];
  if (kvHeads < 1 || heads % kvHeads != 0)
    return opError("k: dim 2 (kv heads = " + std::to_string(kvHeads) +
                   ") must be >= 1 and divide q dim 2 (heads = " +
                   std::to_string(heads) + ")");
  if (Status s =
          checkShape(opName("v"), problem.v, {batch, seq, kvHeads, kAnyDim});
      !s)
    return s;
  const int64_t dimV = problem.v.shape[3];
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
  if (options.cuSeqlens) {
    if (Status s =
            checkShape(opName("cuSeqlens"), *options.cuSeqlens, {kAnyDim});
        !s)
      return s;
    if (options.cuSeqlens->shape[0] < 1)
      return opError("cuSeqlens: needs at least one entry");
    if (batch != 1)
      return opError("q: dim 0 (batch) must be 1 with cuSeqlens, got " +
                     std::to_string(batch));
    std::vector<int64_t> cu(options.cuSeqlens->shape[0]);
    for (size_t i = 0; i < cu.size(); ++i)
      cu[i] = static_cast<int64_t>((*options.cuSeqlens)[i]);
    ranges = sequenceRowRanges(cu, seq);
  } else {
    for (int64_t b = 0; b < batch; ++b)
      ranges.push_back({b * seq, (b + 1) * seq});
  }
  const int64_t numSeqs = static_cast<int64_t>(ranges.size());
  const bool gammaPerSeq = options.gGamma && options.gGamma->shape.size() == 2;
  if (options.gGamma)
    if (Status s = checkShape(opName("gGamma"), *options.gGamma,
                              gammaPerSeq ? std::vector<int64_t>{numSeqs, heads}
                                          : std::vector<int64_t>{heads});
        !s)
      return s;
  const std::vector<int64_t> stateShape = {numSeqs, heads, dimK, dimV};
  if (options.initialState)
    if (Status s = checkShape(opName("initialState"), *options.initialState,
                              stateShape);
        !s)
      return s;
  if (Status s =
          allocateOutput(opName("o"), {batch, seq, heads, dimV}, 0.0f, o);
      !s)
    return s;
  if (Status s =
          allocateOutput(opName("finalState"), stateShape, 0.0f, finalState);
      !s)
    return s;

  const int64_t group = heads / kvHeads;
  std::vector<double> state, decay(dimK), valueGate(dimV);
  for (int64_t n = 0; n < numSeqs; ++n) {
    const auto [begin, end] = ranges[n];
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t j = h / group;
      const int64_t stateOffset = (n * heads + h) * dimK * dimV;
      state.assign(dimK * dimV, 0.0);
      if (options.initialState)
        for (int64_t e = 0; e < dimK * dimV; ++e)
          state[e] = (*options.initialState)[stateOffset + e];
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
