//===- SelectiveScan.cpp - Reference Mamba-1 selective scan ---------------===//
//
// The sequential recurrence of StateSpace.h, one channel at a time.
//
//===----------------------------------------------------------------------===//

#include "ejk/Reference/StateSpace.h"

#include <string>

using namespace ejk::reference;

/// Names \p what (a buffer or option) as this op's messages do.
static std::string opName(const std::string &what) {
  return "selective_scan: " + what;
}

/// A failed status whose message starts with this op's name.
static Status opError(const std::string &message) {
  return Status::error(opName(message));
}

namespace {
/// The extents of a verified selective scan.
struct ScanDims {
  int64_t batch = 0;
  int64_t length = 0;
  int64_t dim = 0;
  int64_t stateDim = 0;
  int64_t groups = 0;
};
} // namespace

static Status verifySelectiveScan(const SelectiveScanProblem &problem,
                                  const SelectiveScanOptions &options,
                                  ScanDims &dims) {
  if (Status s =
          checkShape(opName("u"), problem.u, {kAnyDim, kAnyDim, kAnyDim});
      !s)
    return s;
  dims.batch = problem.u.shape[0];
  dims.length = problem.u.shape[1];
  dims.dim = problem.u.shape[2];
  const std::vector<int64_t> tokenShape = {dims.batch, dims.length, dims.dim};
  if (Status s = checkShape(opName("delta"), problem.delta, tokenShape); !s)
    return s;
  if (Status s = checkShape(opName("A"), problem.a, {dims.dim, kAnyDim}); !s)
    return s;
  dims.stateDim = problem.a.shape[1];
  if (Status s = checkShape(opName("B"), problem.b,
                            {dims.batch, dims.length, kAnyDim, dims.stateDim});
      !s)
    return s;
  dims.groups = problem.b.shape[2];
  if (dims.groups < 1 || dims.dim % dims.groups != 0)
    return opError("B: dim 2 (groups = " + std::to_string(dims.groups) +
                   ") must be >= 1 and divide u dim 2 (dim = " +
                   std::to_string(dims.dim) + ")");
  if (Status s = checkShape(opName("C"), problem.c, problem.b.shape); !s)
    return s;

  const std::vector<int64_t> channelShape = {dims.dim};
  if (options.dSkip)
    if (Status s = checkShape(opName("dSkip"), *options.dSkip, channelShape);
        !s)
      return s;
  if (options.z)
    if (Status s = checkShape(opName("z"), *options.z, tokenShape); !s)
      return s;
  if (options.deltaBias)
    if (Status s =
            checkShape(opName("deltaBias"), *options.deltaBias, channelShape);
        !s)
      return s;
  if (options.initialState)
    if (Status s = checkShape(opName("initialState"), *options.initialState,
                              {dims.batch, dims.dim, dims.stateDim});
        !s)
      return s;
  return Status::success();
}

Status ejk::reference::selectiveScan(const SelectiveScanProblem &problem,
                                     const SelectiveScanOptions &options,
                                     std::vector<float> &y,
                                     std::vector<float> &finalState) {
  ScanDims dims;
  if (Status s = verifySelectiveScan(problem, options, dims); !s)
    return s;
  if (Status s = allocateOutput(opName("y"), problem.u.shape, 0.0f, y); !s)
    return s;
  if (Status s = allocateOutput(opName("finalState"),
                                {dims.batch, dims.dim, dims.stateDim}, 0.0f,
                                finalState);
      !s)
    return s;

  const int64_t channelsPerGroup = dims.dim / dims.groups;
  const int64_t stateDim = dims.stateDim;
  std::vector<double> state(stateDim);
  for (int64_t b = 0; b < dims.batch; ++b) {
    for (int64_t d = 0; d < dims.dim; ++d) {
      const int64_t g = d / channelsPerGroup;
      const int64_t stateOffset = (b * dims.dim + d) * stateDim;
      for (int64_t n = 0; n < stateDim; ++n)
        state[n] = options.initialState
                       ? (*options.initialState)[stateOffset + n]
                       : 0.0;

      for (int64_t t = 0; t < dims.length; ++t) {
        const int64_t token = (b * dims.length + t) * dims.dim + d;
        const int64_t groupOffset =
            ((b * dims.length + t) * dims.groups + g) * stateDim;
        double dt = problem.delta[token];
        if (options.deltaBias)
          dt += (*options.deltaBias)[d];
        if (options.deltaSoftplus)
          dt = softplus(dt);
        const double u = problem.u[token];

        double out = 0.0;
        for (int64_t n = 0; n < stateDim; ++n) {
          const double decay = std::exp(dt * problem.a[d * stateDim + n]);
          state[n] = decay * state[n] + dt * problem.b[groupOffset + n] * u;
          out += problem.c[groupOffset + n] * state[n];
        }
        if (options.dSkip)
          out += (*options.dSkip)[d] * u;
        if (options.z)
          out *= silu((*options.z)[token]);
        y[token] = static_cast<float>(out);
      }

      for (int64_t n = 0; n < stateDim; ++n)
        finalState[stateOffset + n] = static_cast<float>(state[n]);
    }
  }
  return Status::success();
}
