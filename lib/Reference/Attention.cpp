//===- Attention.cpp - Reference flash attention forward ------------------===//
//
// Naive, obviously-correct loops; see Attention.h for the semantics.
//
//===----------------------------------------------------------------------===//

#include "ejk/Reference/Attention.h"

#include "ejk/Support/DropoutHash.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

using namespace ejk::reference;

/// Names \p what (a buffer or option) as this op's messages do.
static std::string opName(const std::string &what) {
  return "flash_attention: " + what;
}

/// A failed status whose message starts with this op's name.
static Status opError(const std::string &message) {
  return Status::error(opName(message));
}
static constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Flat offset of [i0, i1, i2, i3] in a row-major tensor of \p shape.
static int64_t offset4(const std::vector<int64_t> &shape, int64_t i0,
                       int64_t i1, int64_t i2, int64_t i3) {
  return ((i0 * shape[1] + i1) * shape[2] + i2) * shape[3] + i3;
}

/// Offset of [b, h, i, j] in a bias or mask of shape [Bb|1, Hb|1, Sq, Sk]:
/// extent-1 dimensions broadcast.
static int64_t broadcastOffset(const std::vector<int64_t> &shape, int64_t b,
                               int64_t h, int64_t i, int64_t j) {
  return offset4(shape, shape[0] == 1 ? 0 : b, shape[1] == 1 ? 0 : h, i, j);
}

/// Checks a [Bx, Hx, seqQ, seqK] bias or mask whose first two extents
/// broadcast.
template <typename T>
static Status checkScoreShaped(const std::string &name,
                               const TensorRef<T> &tensor,
                               const AttentionDims &dims) {
  if (Status s =
          checkShape(name, tensor, {kAnyDim, kAnyDim, dims.seqQ, dims.seqK});
      !s)
    return s;
  if (Status s =
          checkBroadcastDim(name, "dim 0 (batch)", tensor.shape[0], dims.batch);
      !s)
    return s;
  return checkBroadcastDim(name, "dim 1 (heads)", tensor.shape[1],
                           dims.numQHeads);
}

/// The length of sequence \p b under cumulative lengths \p cum (clamped to
/// [0, seq]), or \p seq without them.
static int64_t sequenceLength(const std::optional<TensorRef<int32_t>> &cum,
                              int64_t b, int64_t seq) {
  if (!cum)
    return seq;
  int64_t len = static_cast<int64_t>((*cum)[b + 1]) - (*cum)[b];
  return std::clamp<int64_t>(len, 0, seq);
}

/// Whether query i of (b, h) may attend to key j under the causal, window,
/// mask, segment, padding and length constraints (scores do not matter
/// here).
static bool isKeyAllowed(const AttentionOptions &options,
                         const AttentionDims &dims, int64_t b, int64_t h,
                         int64_t i, int64_t j) {
  const int64_t lenQ = sequenceLength(options.cumSeqlensQ, b, dims.seqQ);
  const int64_t lenK = sequenceLength(options.cumSeqlensK, b, dims.seqK);
  if (i >= lenQ || j >= lenK)
    return false;
  if (options.paddingMask && ((*options.paddingMask)[b * dims.seqQ + i] == 0 ||
                              (*options.paddingMask)[b * dims.seqK + j] == 0))
    return false;
  // Top-left: query i sits on key i; bottom-right: the last query sits on
  // the last key (of its own sequence with variable lengths).
  const int64_t diagonal = i + (options.bottomRightAligned ? lenK - lenQ : 0);
  if (options.causal && j > diagonal)
    return false;
  if (options.slidingWindow && (diagonal - j > options.slidingWindow->left ||
                                j - diagonal > options.slidingWindow->right))
    return false;
  if (options.mask) {
    const TensorRef<uint8_t> &mask = *options.mask;
    if (mask[broadcastOffset(mask.shape, b, h, i, j)] == 0)
      return false;
  }
  if (options.qSegmentIds && (*options.qSegmentIds)[b * dims.seqQ + i] !=
                                 (*options.kvSegmentIds)[b * dims.seqK + j])
    return false;
  return true;
}

Status ejk::reference::verifyAttention(const AttentionProblem &problem,
                                       const AttentionOptions &options,
                                       AttentionDims &dims) {
  if (Status s = checkShape(opName("q"), problem.q,
                            {kAnyDim, kAnyDim, kAnyDim, kAnyDim});
      !s)
    return s;
  dims.batch = problem.q.shape[0];
  dims.seqQ = problem.q.shape[1];
  dims.numQHeads = problem.q.shape[2];
  dims.headDim = problem.q.shape[3];

  if (Status s = checkShape(opName("k"), problem.k,
                            {dims.batch, kAnyDim, kAnyDim, dims.headDim});
      !s)
    return s;
  dims.seqK = problem.k.shape[1];
  dims.numKvHeads = problem.k.shape[2];

  if (Status s = checkShape(opName("v"), problem.v,
                            {dims.batch, dims.seqK, dims.numKvHeads, kAnyDim});
      !s)
    return s;
  dims.valueDim = problem.v.shape[3];

  // A zero head_dim would leave seqQ and seqK unbounded by the buffers, and
  // the default scale undefined.
  if (dims.headDim < 1)
    return opError("q: dim 3 (head_dim) must be >= 1");
  if (dims.numKvHeads < 1)
    return opError("k: needs at least one kv head (dim 2)");
  if (dims.numQHeads % dims.numKvHeads != 0)
    return opError(
        "k: dim 2 (num_kv_heads = " + std::to_string(dims.numKvHeads) +
        ") must divide q dim 2 (num_heads = " + std::to_string(dims.numQHeads) +
        ")");

  if (options.softmaxScale && !std::isfinite(*options.softmaxScale))
    return opError("softmaxScale must be finite");
  if (options.slidingWindow &&
      (options.slidingWindow->left < 0 || options.slidingWindow->right < 0))
    return opError("slidingWindow: left and right must be >= 0, got (" +
                   std::to_string(options.slidingWindow->left) + ", " +
                   std::to_string(options.slidingWindow->right) + ")");
  if (options.logitsSoftCap &&
      !(*options.logitsSoftCap > 0.0f && std::isfinite(*options.logitsSoftCap)))
    return opError("logitsSoftCap must be finite and > 0");

  if (options.bias)
    if (Status s = checkScoreShaped(opName("bias"), *options.bias, dims); !s)
      return s;
  if (options.mask)
    if (Status s = checkScoreShaped(opName("mask"), *options.mask, dims); !s)
      return s;

  if (options.qSegmentIds.has_value() != options.kvSegmentIds.has_value())
    return opError("qSegmentIds and kvSegmentIds must be given together");
  if (options.qSegmentIds) {
    if (Status s = checkShape(opName("qSegmentIds"), *options.qSegmentIds,
                              {dims.batch, dims.seqQ});
        !s)
      return s;
    if (Status s = checkShape(opName("kvSegmentIds"), *options.kvSegmentIds,
                              {dims.batch, dims.seqK});
        !s)
      return s;
  }

  if (!(options.dropoutProb >= 0.0f && options.dropoutProb < 1.0f))
    return opError("dropoutProb must be in [0, 1), got " +
                   std::to_string(options.dropoutProb));

  if (options.softmaxAux) {
    const TensorRef<float> &aux = *options.softmaxAux;
    if (aux.shape.size() == 2) {
      if (Status s =
              checkShape(opName("softmaxAux"), aux, {dims.numQHeads, kAnyDim});
          !s)
        return s;
    } else if (Status s = checkShape(opName("softmaxAux"), aux, {kAnyDim});
               !s) {
      return s;
    }
  }
  if (options.paddingMask) {
    if (dims.seqQ != dims.seqK)
      return opError("paddingMask needs seqQ == seqK");
    if (Status s = checkShape(opName("paddingMask"), *options.paddingMask,
                              {dims.batch, dims.seqQ});
        !s)
      return s;
  }
  if (options.cumSeqlensQ)
    if (Status s = checkShape(opName("cumSeqlensQ"), *options.cumSeqlensQ,
                              {dims.batch + 1});
        !s)
      return s;
  if (options.cumSeqlensK)
    if (Status s = checkShape(opName("cumSeqlensK"), *options.cumSeqlensK,
                              {dims.batch + 1});
        !s)
      return s;
  return Status::success();
}

double ejk::reference::effectiveSoftmaxScale(const AttentionOptions &options,
                                             int64_t headDim) {
  if (options.softmaxScale)
    return *options.softmaxScale;
  return 1.0 / std::sqrt(static_cast<double>(headDim));
}

void ejk::reference::computeAttentionRow(const AttentionProblem &problem,
                                         const AttentionOptions &options,
                                         const AttentionDims &dims, int64_t b,
                                         int64_t h, int64_t i,
                                         AttentionRow &row) {
  const int64_t seqK = dims.seqK;
  const int64_t kvHead = h / dims.groupSize();
  const double scale = effectiveSoftmaxScale(options, dims.headDim);
  row.lse = -kInfinity;
  row.maxLogit = -kInfinity;
  row.prob.assign(seqK, 0.0);
  row.dropoutScale.assign(seqK, 1.0);
  row.softCapGrad.assign(seqK, 1.0);

  std::vector<double> scores(seqK, -kInfinity);
  std::vector<bool> allowed(seqK, false);
  double maxScore = -kInfinity;
  bool sawNaN = false;
  const float *qRow = problem.q.data + offset4(problem.q.shape, b, i, h, 0);
  for (int64_t j = 0; j < seqK; ++j) {
    if (!isKeyAllowed(options, dims, b, h, i, j))
      continue;
    allowed[j] = true;
    const float *kRow =
        problem.k.data + offset4(problem.k.shape, b, j, kvHead, 0);
    double dot = 0.0;
    for (int64_t d = 0; d < dims.headDim; ++d)
      dot += static_cast<double>(qRow[d]) * static_cast<double>(kRow[d]);
    double score = scale * dot;
    if (options.logitsSoftCap) {
      const double cap = *options.logitsSoftCap;
      const double t = std::tanh(score / cap);
      score = cap * t;
      row.softCapGrad[j] = 1.0 - t * t;
    }
    if (options.bias)
      score +=
          (*options.bias)[broadcastOffset(options.bias->shape, b, h, i, j)];
    scores[j] = score;
    if (std::isnan(score))
      sawNaN = true;
    else if (score > maxScore)
      maxScore = score;
  }

  // Sinks: logits in the denominator only (raw: no scale, cap or bias).
  std::vector<double> sinks;
  if (options.softmaxAux) {
    const TensorRef<float> &aux = *options.softmaxAux;
    const int64_t numSinks = aux.shape.back();
    const int64_t base = aux.shape.size() == 2 ? h * numSinks : 0;
    for (int64_t n = 0; n < numSinks; ++n) {
      sinks.push_back(aux[base + n]);
      if (std::isnan(sinks.back()))
        sawNaN = true;
      else if (sinks.back() > maxScore)
        maxScore = sinks.back();
    }
  }

  // NaN inputs must show up in the oracle's output, not vanish into a mask.
  if (sawNaN) {
    row.lse = std::numeric_limits<double>::quiet_NaN();
    row.maxLogit = row.lse;
    for (int64_t j = 0; j < seqK; ++j)
      if (allowed[j])
        row.prob[j] = row.lse;
    return;
  }
  // No allowed key and no sink, or all -inf: the row stays empty
  // (lse = -inf).
  if (maxScore == -kInfinity)
    return;

  double sum = 0.0;
  for (int64_t j = 0; j < seqK; ++j)
    if (allowed[j])
      sum += std::exp(scores[j] - maxScore);
  for (double sink : sinks)
    sum += std::exp(sink - maxScore);
  row.maxLogit = maxScore;
  row.lse = maxScore + std::log(sum);
  for (int64_t j = 0; j < seqK; ++j)
    if (allowed[j])
      row.prob[j] = std::exp(scores[j] - row.lse);

  if (options.dropoutProb > 0.0f) {
    const double keepScale =
        1.0 / (1.0 - static_cast<double>(options.dropoutProb));
    for (int64_t j = 0; j < seqK; ++j) {
      const uint32_t bits =
          ejk::dropoutBits(options.dropoutSeed, static_cast<uint32_t>(b),
                           static_cast<uint32_t>(h), static_cast<uint32_t>(i),
                           static_cast<uint32_t>(j));
      row.dropoutScale[j] =
          ejk::dropoutKeep(bits, options.dropoutProb) ? keepScale : 0.0;
    }
  }
}

Status ejk::reference::flashAttention(const AttentionProblem &problem,
                                      const AttentionOptions &options,
                                      std::vector<float> &out,
                                      std::vector<float> &lse) {
  AttentionDims dims;
  if (Status s = verifyAttention(problem, options, dims); !s)
    return s;
  if (Status s = allocateOutput(
          opName("out"), {dims.batch, dims.seqQ, dims.numQHeads, dims.valueDim},
          0.0f, out);
      !s)
    return s;
  if (Status s =
          allocateOutput(opName("lse"), {dims.batch, dims.numQHeads, dims.seqQ},
                         -std::numeric_limits<float>::infinity(), lse);
      !s)
    return s;

  const std::vector<int64_t> outShape = {dims.batch, dims.seqQ, dims.numQHeads,
                                         dims.valueDim};
  AttentionRow row;
  std::vector<double> acc;
  for (int64_t b = 0; b < dims.batch; ++b) {
    for (int64_t h = 0; h < dims.numQHeads; ++h) {
      const int64_t kvHead = h / dims.groupSize();
      for (int64_t i = 0; i < dims.seqQ; ++i) {
        computeAttentionRow(problem, options, dims, b, h, i, row);
        lse[(b * dims.numQHeads + h) * dims.seqQ + i] =
            static_cast<float>(row.lse);
        acc.assign(dims.valueDim, 0.0);
        // Unnormalized: exp(s_j - m) = p_j * exp(lse - m).
        const double unscale =
            options.normalizeOutput || row.maxLogit == -kInfinity
                ? 1.0
                : std::exp(row.lse - row.maxLogit);
        for (int64_t j = 0; j < dims.seqK; ++j) {
          const double weight = row.prob[j] * row.dropoutScale[j] * unscale;
          // Skipping zero weights keeps excluded keys out entirely, even if
          // their values are inf.
          if (weight == 0.0)
            continue;
          const float *vRow =
              problem.v.data + offset4(problem.v.shape, b, j, kvHead, 0);
          for (int64_t d = 0; d < dims.valueDim; ++d)
            acc[d] += weight * static_cast<double>(vRow[d]);
        }
        float *outRow = out.data() + offset4(outShape, b, i, h, 0);
        for (int64_t d = 0; d < dims.valueDim; ++d)
          outRow[d] = static_cast<float>(acc[d]);
      }
    }
  }
  return Status::success();
}
