//===- NativeSparseAttention.cpp - Reference native sparse attention ------===//

#include "ejk/Reference/NativeSparse.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ejk::reference {
namespace {

const char *const kName = "native_sparse_attention";

struct Dims {
  int64_t batch, seq, heads, kvHeads, dim, group, blocks;
};

/// Offsets of BSHD tensors.
int64_t at(const Dims &d, int64_t heads, int64_t b, int64_t t, int64_t h) {
  return ((b * d.seq + t) * heads + h) * d.dim;
}

double dot(const float *x, const float *y, int64_t n) {
  double s = 0.0;
  for (int64_t i = 0; i < n; ++i)
    s += static_cast<double>(x[i]) * static_cast<double>(y[i]);
  return s;
}

/// Mean-pooled blocks [batch, blocks, kv_heads, dim]; rows past the
/// sequence count as 0.
std::vector<double> compress(const TensorRef<float> &x, const Dims &d,
                             int64_t blockSize) {
  std::vector<double> out(d.batch * d.blocks * d.kvHeads * d.dim, 0.0);
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t c = 0; c < d.blocks; ++c)
      for (int64_t h = 0; h < d.kvHeads; ++h) {
        double *row = &out[((b * d.blocks + c) * d.kvHeads + h) * d.dim];
        for (int64_t t = c * blockSize;
             t < std::min(d.seq, (c + 1) * blockSize); ++t)
          for (int64_t i = 0; i < d.dim; ++i)
            row[i] += x[at(d, d.kvHeads, b, t, h) + i];
        for (int64_t i = 0; i < d.dim; ++i)
          row[i] /= static_cast<double>(blockSize);
      }
  return out;
}

/// The compression branch of (b, t, h): scores of blocks 0 .. qb, the lse
/// over the completed ones and the branch's output.
struct Compressed {
  std::vector<double> scores;
  double lse = 0.0;
  std::vector<double> out;
};

Compressed compressedAttention(const TensorRef<float> &q,
                               const std::vector<double> &kc,
                               const std::vector<double> &vc, const Dims &d,
                               const NativeSparseOptions &o, int64_t b,
                               int64_t t, int64_t h) {
  Compressed r;
  int64_t kvh = h / d.group;
  int64_t qb = t / o.blockSize, done = (t + 1) / o.blockSize;
  const float *qrow = &q[at(d, d.heads, b, t, h)];
  for (int64_t c = 0; c <= qb; ++c) {
    const double *krow = &kc[((b * d.blocks + c) * d.kvHeads + kvh) * d.dim];
    double s = 0.0;
    for (int64_t i = 0; i < d.dim; ++i)
      s += static_cast<double>(qrow[i]) * krow[i];
    r.scores.push_back(s * o.softmaxScale);
  }
  r.out.assign(d.dim, 0.0);
  if (done == 0)
    return r;
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t c = 0; c < done; ++c)
    m = std::max(m, r.scores[c]);
  double sum = 0.0;
  for (int64_t c = 0; c < done; ++c)
    sum += std::exp(r.scores[c] - m);
  r.lse = m + std::log(sum);
  for (int64_t c = 0; c < done; ++c) {
    double p = std::exp(r.scores[c] - r.lse);
    const double *vrow = &vc[((b * d.blocks + c) * d.kvHeads + kvh) * d.dim];
    for (int64_t i = 0; i < d.dim; ++i)
      r.out[i] += p * vrow[i];
  }
  return r;
}

/// ejKernel's top-k: keys p + f32(c) * 1e-8 formed in f32, the largest
/// first, equal keys in increasing c; -1 past the token's block.
std::vector<int32_t> topK(const std::vector<double> &p, int64_t qb,
                          int64_t count) {
  std::vector<float> key(qb + 1);
  for (int64_t c = 0; c <= qb; ++c)
    key[c] = static_cast<float>(p[c]) + static_cast<float>(c) * 1e-8f;
  std::vector<bool> taken(qb + 1, false);
  std::vector<int32_t> out(count, -1);
  for (int64_t i = 0; i < count; ++i) {
    int64_t best = -1;
    for (int64_t c = 0; c <= qb; ++c)
      if (!taken[c] && (best < 0 || key[c] > key[best]))
        best = c;
    if (best < 0)
      break;
    taken[best] = true;
    out[i] = static_cast<int32_t>(best);
  }
  return out;
}

/// Softmax attention of (b, t, h) over `keys` (repeats count again); 0 for
/// no key.
std::vector<double> attend(const TensorRef<float> &q, const TensorRef<float> &k,
                           const TensorRef<float> &v, const Dims &d,
                           float scale, int64_t b, int64_t t, int64_t h,
                           const std::vector<int64_t> &keys) {
  std::vector<double> out(d.dim, 0.0);
  if (keys.empty())
    return out;
  int64_t kvh = h / d.group;
  const float *qrow = &q[at(d, d.heads, b, t, h)];
  std::vector<double> s;
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t j : keys) {
    s.push_back(scale * dot(qrow, &k[at(d, d.kvHeads, b, j, kvh)], d.dim));
    m = std::max(m, s.back());
  }
  double sum = 0.0;
  for (double &x : s)
    sum += (x = std::exp(x - m));
  for (size_t n = 0; n < keys.size(); ++n) {
    const float *vrow = &v[at(d, d.kvHeads, b, keys[n], kvh)];
    for (int64_t i = 0; i < d.dim; ++i)
      out[i] += s[n] / sum * vrow[i];
  }
  return out;
}

Status checkInputs(const TensorRef<float> &q, const TensorRef<float> &k,
                   const TensorRef<float> &v, const NativeSparseOptions &o,
                   Dims &d) {
  std::string name = kName;
  if (q.rank() != 4 || k.rank() != 4)
    return Status::error(name + ": query and key must have rank 4");
  d.batch = q.shape[0];
  d.seq = q.shape[1];
  d.heads = q.shape[2];
  d.dim = q.shape[3];
  d.kvHeads = k.shape[2];
  if (o.blockSize < 1 || d.kvHeads < 1 || d.heads % d.kvHeads != 0)
    return Status::error(name + ": bad block size or head counts");
  d.group = d.heads / d.kvHeads;
  d.blocks = d.seq == 0 ? 0 : (d.seq - 1) / o.blockSize + 1;
  std::vector<int64_t> kvShape = {d.batch, d.seq, d.kvHeads, d.dim};
  if (Status s = checkShape(name + ": query", q, q.shape); !s)
    return s;
  if (Status s = checkShape(name + ": key", k, kvShape); !s)
    return s;
  return checkShape(name + ": value", v, kvShape);
}

} // namespace

Status nativeSparseSelection(const TensorRef<float> &q,
                             const TensorRef<float> &k,
                             const NativeSparseOptions &o,
                             std::vector<int32_t> &selected) {
  Dims d;
  if (Status s = checkInputs(q, k, k, o, d); !s)
    return s;
  std::vector<double> kc = compress(k, d, o.blockSize);
  int64_t count = std::min(o.blockCounts, d.blocks);
  selected.assign(d.batch * d.seq * d.kvHeads * count, -1);
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t t = 0; t < d.seq; ++t)
      for (int64_t kvh = 0; kvh < d.kvHeads; ++kvh) {
        int64_t qb = t / o.blockSize;
        std::vector<double> p(qb + 1, 0.0);
        for (int64_t g = 0; g < d.group; ++g) {
          Compressed c =
              compressedAttention(q, kc, kc, d, o, b, t, kvh * d.group + g);
          for (int64_t j = 0; j <= qb; ++j)
            p[j] += j == qb ? 1.0 : std::exp(c.scores[j] - c.lse);
        }
        std::vector<int32_t> top = topK(p, qb, count);
        std::copy(top.begin(), top.end(),
                  selected.begin() +
                      ((b * d.seq + t) * d.kvHeads + kvh) * count);
      }
  return Status::success();
}

Status
nativeSparseAttention(const TensorRef<float> &q, const TensorRef<float> &k,
                      const TensorRef<float> &v,
                      const std::optional<TensorRef<float>> &gCmp,
                      const std::optional<TensorRef<float>> &gSlc,
                      const std::optional<TensorRef<float>> &gSwa,
                      const std::optional<TensorRef<float>> &blockIndices,
                      const NativeSparseOptions &o, std::vector<float> &out) {
  std::string name = kName;
  Dims d;
  if (Status s = checkInputs(q, k, v, o, d); !s)
    return s;
  if (!gCmp && !blockIndices)
    return Status::error(name + ": needs g_cmp or block_indices");
  std::vector<int64_t> gateShape = {d.batch, d.seq, d.heads};
  for (const auto *gate : {&gCmp, &gSlc, &gSwa})
    if (*gate)
      if (Status s = checkShape(name + ": gate", **gate, gateShape); !s)
        return s;

  // Slots of (b, t, kvh): the selection's or the given indices'.
  std::vector<int32_t> selected;
  int64_t slots = 0;
  if (gCmp) {
    if (Status s = nativeSparseSelection(q, k, o, selected); !s)
      return s;
    slots = std::min(o.blockCounts, d.blocks);
  } else {
    const TensorRef<float> &idx = *blockIndices;
    slots = idx.rank() == 4 ? idx.shape[3] : 0;
    std::vector<int64_t> shape =
        o.perTokenIndices
            ? std::vector<int64_t>{d.batch, d.seq, d.kvHeads, slots}
            : std::vector<int64_t>{d.batch, d.kvHeads, d.blocks, slots};
    if (Status s = checkShape(name + ": block_indices", idx, shape); !s)
      return s;
    selected.resize(d.batch * d.seq * d.kvHeads * slots);
    for (int64_t b = 0; b < d.batch; ++b)
      for (int64_t t = 0; t < d.seq; ++t)
        for (int64_t h = 0; h < d.kvHeads; ++h)
          for (int64_t i = 0; i < slots; ++i) {
            int64_t from =
                o.perTokenIndices
                    ? ((b * d.seq + t) * d.kvHeads + h) * slots + i
                    : ((b * d.kvHeads + h) * d.blocks + t / o.blockSize) *
                              slots +
                          i;
            // The indices arrive as floats (2^31 - 1 rounds to 2^31): one
            // outside int32 is invalid like any index past the blocks, and
            // invalid indices are skipped (-1 stands for one).
            float raw = idx[from];
            bool inInt32 = raw >= -2147483648.0f && raw < 2147483648.0f;
            selected[((b * d.seq + t) * d.kvHeads + h) * slots + i] =
                inInt32 ? static_cast<int32_t>(raw) : -1;
          }
  }
  int64_t used = std::min(slots, o.blockCounts);

  std::vector<double> kc, vc;
  if (gCmp) {
    kc = compress(k, d, o.blockSize);
    vc = compress(v, d, o.blockSize);
  }
  if (Status s = allocateOutput(name + ": output", q.shape, 0.0f, out); !s)
    return s;
  for (int64_t b = 0; b < d.batch; ++b)
    for (int64_t t = 0; t < d.seq; ++t)
      for (int64_t h = 0; h < d.heads; ++h) {
        int64_t kvh = h / d.group;
        int64_t gate = (b * d.seq + t) * d.heads + h;
        std::vector<int64_t> keys;
        for (int64_t i = 0; i < used; ++i) {
          int64_t c = selected[((b * d.seq + t) * d.kvHeads + kvh) * slots + i];
          if (c < 0 || c >= d.blocks)
            continue;
          for (int64_t j = c * o.blockSize;
               j < std::min((c + 1) * o.blockSize, t + 1); ++j)
            keys.push_back(j);
        }
        std::vector<double> acc =
            attend(q, k, v, d, o.softmaxScale, b, t, h, keys);
        double gs = gSlc ? (*gSlc)[gate] : 1.0;
        for (double &x : acc)
          x *= gs;
        if (gCmp) {
          Compressed c = compressedAttention(q, kc, vc, d, o, b, t, h);
          for (int64_t i = 0; i < d.dim; ++i)
            acc[i] += c.out[i] * (*gCmp)[gate];
        }
        if (o.windowSize > 0) {
          std::vector<int64_t> window;
          for (int64_t j = std::max<int64_t>(0, t - o.windowSize + 1); j <= t;
               ++j)
            window.push_back(j);
          std::vector<double> w =
              attend(q, k, v, d, o.softmaxScale, b, t, h, window);
          double gw = gSwa ? (*gSwa)[gate] : 1.0;
          for (int64_t i = 0; i < d.dim; ++i)
            acc[i] += w[i] * gw;
        }
        float *row = &out[at(d, d.heads, b, t, h)];
        for (int64_t i = 0; i < d.dim; ++i)
          row[i] = static_cast<float>(acc[i]);
      }
  return Status::success();
}

} // namespace ejk::reference
