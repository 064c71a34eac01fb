/*===- ejk_zigzag.h - zigzag sequence sharding for ring attention -*- C -*-===*\
|*                                                                            *|
|* Header only, no MPI and no library needed. With causal attention over    *|
|* contiguous shards, rank r of n does r + 1 of n blocks of useful work.     *|
|* Zigzag sharding cuts the sequence into 2n chunks and gives rank r chunks  *|
|* r and 2n - 1 - r, so every rank does the same work. These helpers move a  *|
|* [batch, seq, ...] array between the natural order and the zigzag order,  *|
|* in which rank r's shard is rows [r * seq / n, (r + 1) * seq / n) of      *|
|* every batch.                                                             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef EJK_RUNTIME_EJK_ZIGZAG_H
#define EJK_RUNTIME_EJK_ZIGZAG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The global position (natural order) of row `index` of rank `rank`'s
 *  zigzag shard of `local_seq` rows, with `ranks` ranks; local_seq must be
 *  even. */
static inline int64_t ejk_zigzag_position(int rank, int ranks,
                                          int64_t local_seq, int64_t index) {
  int64_t chunk = local_seq / 2;
  int64_t which = index < chunk ? rank : 2 * (int64_t)ranks - 1 - rank;
  return which * chunk + (index < chunk ? index : index - chunk);
}

/** Copies `src` ([batch, seq, row_bytes]) to `dst` in zigzag order
 *  (`inverse` == 0) or back to the natural order (`inverse` != 0). `dst`
 *  and `src` must not overlap. Returns 0, or -1 when `ranks` < 1 or `seq`
 *  is not a multiple of 2 * ranks. */
static inline int ejk_zigzag_permute(void *dst, const void *src, size_t batch,
                                     size_t seq, size_t row_bytes, int ranks,
                                     int inverse) {
  if (ranks < 1 || seq % (2 * (size_t)ranks) != 0)
    return -1;
  size_t local = seq / (size_t)ranks, chunk = local / 2;
  for (size_t b = 0; b < batch; ++b)
    for (int r = 0; r < ranks; ++r)
      for (size_t half = 0; half < 2; ++half) {
        size_t which = half == 0 ? (size_t)r : 2 * (size_t)ranks - 1 - r;
        size_t zig = (b * seq + r * local + half * chunk) * row_bytes;
        size_t nat = (b * seq + which * chunk) * row_bytes;
        const char *from = (const char *)src + (inverse ? zig : nat);
        char *to = (char *)dst + (inverse ? nat : zig);
        memcpy(to, from, chunk * row_bytes);
      }
  return 0;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EJK_RUNTIME_EJK_ZIGZAG_H */
