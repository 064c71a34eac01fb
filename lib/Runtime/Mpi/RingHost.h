//===- RingHost.h - the ring's host-side arithmetic -------------*- C++ -*-===//
//
// What ring attention (RingForward.cpp, RingBackward.cpp) does on the host
// between device blocks: row copies of [B, S, ...] shards, f32/f16/bf16
// element access, a small parallel-for over the process's CPUs, the
// log-domain merge of a block's (output, lse) into the running result, and
// the f32 sums of the backward blocks' gradients.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_MPI_RINGHOST_H
#define EJK_LIB_RUNTIME_MPI_RINGHOST_H

#include "ejk/Runtime/ejk_runtime.h"

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace ejk::ring {

using Bytes = std::vector<unsigned char>;

/// A block of rows [begin, begin + count) of a [B, S, ...] array whose rows
/// are `rowBytes` long.
void copyRows(unsigned char *dst, const unsigned char *src, int64_t batch,
              int64_t srcSeq, int64_t dstSeq, int64_t srcBegin,
              int64_t dstBegin, int64_t count, int64_t rowBytes);

/// Element `i` of an f32, f16 or bf16 array, as f32; and back.
float loadFloat(const unsigned char *data, ejk_dtype dtype, int64_t i);
void storeFloat(unsigned char *data, ejk_dtype dtype, int64_t i, float value);

/// `n` elements of an f32, f16 or bf16 array to f32, and back (rounded to
/// nearest even); F16C's conversions where the CPU has them.
void toFloats(const unsigned char *src, ejk_dtype dtype, float *dst, int64_t n);
void fromFloats(const float *src, ejk_dtype dtype, unsigned char *dst,
                int64_t n);

/// The CPUs this process may run on (mpirun's binding included).
int usableCpus();

/// Runs body(begin, end) over [0, count) split across up to `threads`
/// threads (this one included), returning once all are done.
template <typename Body>
void parallelFor(int64_t count, int threads, const Body &body) {
  int64_t parts = std::max<int64_t>(1, std::min<int64_t>(threads, count));
  std::vector<std::thread> workers;
  for (int64_t p = 1; p < parts; ++p)
    workers.emplace_back(
        [&, p] { body(count * p / parts, count * (p + 1) / parts); });
  body(0, count / parts);
  for (std::thread &worker : workers)
    worker.join();
}

/// The shapes of a rank's running result: output [batch, seq, heads,
/// headDimV] and lse [batch, heads, seq], both f32; blocks' outputs are
/// `dtype`.
struct MergeShape {
  int64_t batch, seq, heads, headDimV;
  ejk_dtype dtype;
  int threads;
};

/// accO/accL (rows [begin, begin + rows) of the running result) merged with
/// a block's output `partO` (`shape.dtype`, [B, rows, heads, headDimV]) and
/// lse `partL` ([B, heads, rows]), in the log domain, on `shape.threads`
/// threads. The block's arrays are host copies or, on a CPU device, the
/// block's own buffers (ejk_buffer_host_pointer).
void mergeBlock(std::vector<float> &accO, std::vector<float> &accL,
                const unsigned char *partO, const float *partL,
                const MergeShape &shape, int64_t begin, int64_t rows);

/// Rows [begin, begin + rows) of each batch of `acc` (f32, [B, accSeq,
/// rowElems]) plus the `rows` rows of `part` (`dtype`, [B, rows,
/// rowElems]), on `threads` threads: a backward block's gradient summed
/// into the ring's f32 gradient.
void addRows(std::vector<float> &acc, int64_t accSeq, const Bytes &part,
             ejk_dtype dtype, int64_t batch, int64_t rows, int64_t begin,
             int64_t rowElems, int threads);

} // namespace ejk::ring

#endif // EJK_LIB_RUNTIME_MPI_RINGHOST_H
