//===- Ssd.cpp - Reference Mamba-2 SSD ------------------------------------===//
//
// The sequential recurrence of StateSpace.h, one head at a time. The chunked
// algorithm of the kernels computes the same thing; the oracle must not share
// its structure.
//
//===----------------------------------------------------------------------===//

#include "ejk/Reference/StateSpace.h"

#include <string>

using namespace ejk::reference;

/// Names \p what (a buffer or option) as this op's messages do.
static std::string opName(const std::string &what) { return "ssd: " + what; }

/// A failed status whose message starts with this op's name.
static Status opError(const std::string &message) {
  return Status::error(opName(message));
}

namespace {
/// The extents of a verified SSD problem.
struct SsdDims {
  int64_t batch = 0;
  int64_t length = 0;
  int64_t heads = 0;
  int64_t headDim = 0;
  int64_t stateDim = 0;
  int64_t groups = 0;
};
} // namespace

static Status verifySsd(const SsdProblem &problem, const SsdOptions &options,
                        SsdDims &dims) {
  if (Status s = checkShape(opName("x"), problem.x,
                            {kAnyDim, kAnyDim, kAnyDim, kAnyDim});
      !s)
    return s;
  dims.batch = problem.x.shape[0];
  dims.length = problem.x.shape[1];
  dims.heads = problem.x.shape[2];
  dims.headDim = problem.x.shape[3];
  if (Status s = checkShape(opName("dt"), problem.dt,
                            {dims.batch, dims.length, dims.heads});
      !s)
    return s;
  const std::vector<int64_t> headShape = {dims.heads};
  if (Status s = checkShape(opName("A"), problem.a, headShape); !s)
    return s;
  if (Status s = checkShape(opName("B"), problem.b,
                            {dims.batch, dims.length, kAnyDim, kAnyDim});
      !s)
    return s;
  dims.groups = problem.b.shape[2];
  dims.stateDim = problem.b.shape[3];
  if (dims.groups < 1 || dims.heads % dims.groups != 0)
    return opError("B: dim 2 (groups = " + std::to_string(dims.groups) +
                   ") must be >= 1 and divide x dim 2 (heads = " +
                   std::to_string(dims.heads) + ")");
  if (Status s = checkShape(opName("C"), problem.c, problem.b.shape); !s)
    return s;

  if (options.dSkip)
    if (Status s = checkShape(opName("dSkip"), *options.dSkip, headShape); !s)
      return s;
  if (options.z)
    if (Status s = checkShape(opName("z"), *options.z, problem.x.shape); !s)
      return s;
  if (options.dtBias)
    if (Status s = checkShape(opName("dtBias"), *options.dtBias, headShape); !s)
      return s;
  if (options.initialState)
    if (Status s =
            checkShape(opName("initialState"), *options.initialState,
                       {dims.batch, dims.heads, dims.headDim, dims.stateDim});
        !s)
      return s;
  if (options.chunkSize < 0)
    return opError("chunkSize must be >= 0, got " +
                   std::to_string(options.chunkSize));
  return Status::success();
}

Status ejk::reference::ssd(const SsdProblem &problem, const SsdOptions &options,
                           std::vector<float> &y,
                           std::vector<float> &finalState) {
  SsdDims dims;
  if (Status s = verifySsd(problem, options, dims); !s)
    return s;
  if (Status s = allocateOutput(opName("y"), problem.x.shape, 0.0f, y); !s)
    return s;
  if (Status s =
          allocateOutput(opName("finalState"),
                         {dims.batch, dims.heads, dims.headDim, dims.stateDim},
                         0.0f, finalState);
      !s)
    return s;

  const int64_t headsPerGroup = dims.heads / dims.groups;
  const int64_t headDim = dims.headDim;
  const int64_t stateDim = dims.stateDim;
  // S[p, n] of one (batch, head), row-major.
  std::vector<double> state;
  for (int64_t b = 0; b < dims.batch; ++b) {
    for (int64_t h = 0; h < dims.heads; ++h) {
      const int64_t g = h / headsPerGroup;
      const int64_t stateOffset = (b * dims.heads + h) * headDim * stateDim;
      // Sized here: with batch and heads >= 1 the finalState check bounds
      // this product.
      state.assign(headDim * stateDim, 0.0);
      for (int64_t e = 0; e < headDim * stateDim; ++e)
        state[e] = options.initialState
                       ? (*options.initialState)[stateOffset + e]
                       : 0.0;

      for (int64_t t = 0; t < dims.length; ++t) {
        const int64_t step = (b * dims.length + t) * dims.heads + h;
        const int64_t groupOffset =
            ((b * dims.length + t) * dims.groups + g) * stateDim;
        double dt = problem.dt[step];
        if (options.dtBias)
          dt += (*options.dtBias)[h];
        if (options.dtSoftplus)
          dt = softplus(dt);
        const double decay = std::exp(dt * problem.a[h]);

        for (int64_t p = 0; p < headDim; ++p) {
          const int64_t token = step * headDim + p;
          const double x = problem.x[token];
          double out = 0.0;
          for (int64_t n = 0; n < stateDim; ++n) {
            double &s = state[p * stateDim + n];
            s = decay * s + dt * x * problem.b[groupOffset + n];
            out += problem.c[groupOffset + n] * s;
          }
          if (options.dSkip)
            out += (*options.dSkip)[h] * x;
          if (options.z)
            out *= silu((*options.z)[token]);
          y[token] = static_cast<float>(out);
        }
      }

      for (int64_t e = 0; e < headDim * stateDim; ++e)
        finalState[stateOffset + e] = static_cast<float>(state[e]);
    }
  }
  return Status::success();
}
