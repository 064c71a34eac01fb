//===- StateSpace.h - Reference Mamba selective scan and SSD ----*- C++ -*-===//
//
// The oracles for ejk.selective_scan (Mamba-1) and ejk.ssd (Mamba-2): the
// sequential recurrences over host f32 buffers, with the state and every sum
// in double. Buffers are row-major and contiguous.
//
// selective_scan, per batch b, channel d (group g = d / (D / G)), t < L:
//   dt   = delta[b,t,d] + deltaBias[d]            (bias 0 when absent)
//   dt   = softplus(dt)                           if deltaSoftplus
//   h[n] = exp(dt * A[d,n]) * h[n] + dt * B[b,t,g,n] * u[b,t,d]
//   y    = sum_n C[b,t,g,n] * h[n] + dSkip[d] * u[b,t,d]
//   y   *= silu(z[b,t,d])                         if z
// h starts at initialState[b,d,:] (0 when absent); finalState is h after t =
// L-1.
//
// ssd, per batch b, head h (group g = h / (H / G)), t < L:
//   dtv    = dt[b,t,h] + dtBias[h], softplus'd if dtSoftplus
//   S[p,n] = exp(dtv * A[h]) * S[p,n] + dtv * x[b,t,h,p] * B[b,t,g,n]
//   y[p]   = sum_n C[b,t,g,n] * S[p,n] + dSkip[h] * x[b,t,h,p]
//   y[p]  *= silu(z[b,t,h,p])                     if z
// S starts at initialState[b,h,:,:] (0 when absent). chunkSize does not
// change the result: the reference runs the recurrence one step at a time.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_STATESPACE_H
#define EJK_REFERENCE_STATESPACE_H

#include "ejk/Reference/Tensor.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

namespace ejk::reference {

/// softplus as the Mamba kernels define it: x above 20 passes through (where
/// log1p(exp(x)) equals x in f32 anyway), else log1p(exp(x)).
inline double softplus(double x) {
  return x > 20.0 ? x : std::log1p(std::exp(x));
}

/// silu(x) = x * sigmoid(x), the output gate of both ops.
inline double silu(double x) { return x / (1.0 + std::exp(-x)); }

/// The tensors of a selective scan (names follow the Mamba paper).
struct SelectiveScanProblem {
  /// Input, [batch, length, dim].
  TensorRef<float> u;
  /// Step sizes before bias and softplus, [batch, length, dim].
  TensorRef<float> delta;
  /// State matrix A, [dim, stateDim] (usually negative).
  TensorRef<float> a;
  /// Input projection B, [batch, length, groups, stateDim]; dim % groups == 0.
  TensorRef<float> b;
  /// Output projection C, [batch, length, groups, stateDim].
  TensorRef<float> c;
};

/// The optional parts of a selective scan.
struct SelectiveScanOptions {
  /// Skip connection D, [dim].
  std::optional<TensorRef<float>> dSkip;
  /// Gate, [batch, length, dim]: y *= silu(z).
  std::optional<TensorRef<float>> z;
  /// Added to delta, [dim].
  std::optional<TensorRef<float>> deltaBias;
  /// Apply softplus to delta (after the bias).
  bool deltaSoftplus = false;
  /// Starting state, [batch, dim, stateDim]; zero when absent.
  std::optional<TensorRef<float>> initialState;
};

/// Mamba-1 selective scan. On success \p y is [batch, length, dim] and
/// \p finalState is [batch, dim, stateDim]. Messages start with
/// "selective_scan: " and name the buffer at fault.
Status selectiveScan(const SelectiveScanProblem &problem,
                     const SelectiveScanOptions &options, std::vector<float> &y,
                     std::vector<float> &finalState);

/// The tensors of a Mamba-2 state-space-duality (SSD) layer.
struct SsdProblem {
  /// Input, [batch, length, heads, headDim].
  TensorRef<float> x;
  /// Step sizes before bias and softplus, [batch, length, heads].
  TensorRef<float> dt;
  /// Per-head scalar decay rate A, [heads].
  TensorRef<float> a;
  /// Input projection B, [batch, length, groups, stateDim]; heads % groups
  /// == 0.
  TensorRef<float> b;
  /// Output projection C, [batch, length, groups, stateDim].
  TensorRef<float> c;
};

/// The optional parts of an SSD layer.
struct SsdOptions {
  /// Skip connection D, [heads].
  std::optional<TensorRef<float>> dSkip;
  /// Gate, [batch, length, heads, headDim]: y *= silu(z).
  std::optional<TensorRef<float>> z;
  /// Added to dt, [heads].
  std::optional<TensorRef<float>> dtBias;
  /// Apply softplus to dt (after the bias).
  bool dtSoftplus = false;
  /// Starting state, [batch, heads, headDim, stateDim]; zero when absent.
  std::optional<TensorRef<float>> initialState;
  /// The kernels' chunk length; must be >= 0 (0 = unspecified). Does not
  /// affect the reference result.
  int64_t chunkSize = 0;
};

/// Mamba-2 SSD. On success \p y is [batch, length, heads, headDim] and
/// \p finalState is [batch, heads, headDim, stateDim]. Messages start with
/// "ssd: " and name the buffer at fault.
Status ssd(const SsdProblem &problem, const SsdOptions &options,
           std::vector<float> &y, std::vector<float> &finalState);

} // namespace ejk::reference

#endif // EJK_REFERENCE_STATESPACE_H
