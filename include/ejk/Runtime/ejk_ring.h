/*===- ejk_ring.h - ring attention over MPI ---------------------*- C -*-===*\
|*                                                                            *|
|* libejk_runtime_mpi (CMake target EJKRuntimeMpi), built when MPI is found: *|
|* runs an `ejk.ring_attention` entry across the ranks of an MPI            *|
|* communicator. The core runtime (ejk_runtime.h) never needs MPI; this     *|
|* library links both. Design and semantics: docs/ops/ring.md.              *|
|*                                                                            *|
|* Every function here that takes a communicator or a ring is collective   *|
|* over the ring's communicator unless it says otherwise: every rank calls  *|
|* it, in the same order. Errors are status codes; the message is in       *|
|* ejk_ring_last_error() of the calling thread.                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef EJK_RUNTIME_EJK_RING_H
#define EJK_RUNTIME_EJK_RING_H

#include "ejk/Runtime/ejk_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A communicator the runtime owns: a duplicate of the caller's MPI
 *  communicator (so ring traffic never matches the application's messages),
 *  with errors returned rather than fatal. */
typedef struct ejk_comm ejk_comm;
/** An ejk.ring_attention entry of a module, bound to a communicator. */
typedef struct ejk_ring ejk_ring;

/** How the rows of each rank's shard map to global positions. */
typedef enum ejk_ring_layout {
  /** Rank r holds rows [r * S, (r + 1) * S): the op's own semantics. */
  EJK_RING_CONTIGUOUS = 0,
  /** Rank r holds chunks r and 2n - 1 - r of S / 2 rows (ejk_zigzag.h):
   *  balanced causal work. S must be even. */
  EJK_RING_ZIGZAG = 1
} ejk_ring_layout;

/** The message of this thread's last failed ejk_ring_* / ejk_comm_* call. */
EJK_RUNTIME_EXPORT const char *ejk_ring_last_error(void);

/** Wraps `mpi_comm`, a pointer to an MPI_Comm (void * so that this header
 *  does not need mpi.h). MPI must be initialized. Collective. */
EJK_RUNTIME_EXPORT ejk_status ejk_comm_create_mpi(const void *mpi_comm,
                                                  ejk_comm **out);
/** This rank and the number of ranks. Not collective. */
EJK_RUNTIME_EXPORT ejk_status ejk_comm_rank(ejk_comm *comm, int *rank,
                                            int *size);
/** Frees the duplicate communicator. Collective; accepts NULL. */
EJK_RUNTIME_EXPORT ejk_status ejk_comm_destroy(ejk_comm *comm);

/** Binds entry `entry` of `module`, loaded on `device` (an artifact compiled
 * from a function holding ejk.ring_attention; its block entries are named
 *  `<entry>__ring__...`) to `comm`. Fails on every rank, with a message
 *  naming both numbers, when the communicator's size differs from the
 *  op's ring_size, and on every rank when any rank fails. Collective. */
EJK_RUNTIME_EXPORT ejk_status ejk_ring_create(ejk_device *device,
                                              ejk_module *module,
                                              const char *entry, ejk_comm *comm,
                                              ejk_ring_layout layout,
                                              ejk_ring **out);
/** Runs ring attention: `query`, `key`, `value` are this rank's shards
 *  ([B, S, H, D], [B, S, Hkv, D], [B, S, Hkv, Dv] of the entry's element
 *  type, f32, f16 or bf16; buffers of the module's device); writes this
 *  rank's `output` ([B, S, H, Dv], same type) and, when not NULL, `lse`
 *  ([B, H, S], f32). Partial outputs merge in f32 on the host. One run at a
 *  time per ring: its staging and host buffers are the ring's, kept
 *  between runs. A failure on any
 * rank (a bad buffer, a failed block) fails the call on every rank after the
 * ring has finished moving, so no rank waits forever. A rank that dies is the
 * launcher's to handle (mpirun ends the job). Collective. */
EJK_RUNTIME_EXPORT ejk_status ejk_ring_run(ejk_ring *ring, ejk_buffer *query,
                                           ejk_buffer *key, ejk_buffer *value,
                                           ejk_buffer *output, ejk_buffer *lse);

/** ejk_ring_run with packed sequences: `q_segment_ids` and `kv_segment_ids`
 *  are this rank's shards ([B, S] i32 each, buffers of the module's device)
 *  of the op's segment ids; a query attends only to keys of its segment
 *  (any id, negative ones included, is an ordinary id). Each shard's
 *  kv_segment_ids travel around the ring with its key/value; in the zigzag
 *  layout they are permuted like the rows (ejk_zigzag.h). Both are required
 *  when the entry was compiled with segment ids (ejk_ring_run then fails)
 *  and must be NULL otherwise (ejk_ring_run_segments with both NULL is
 *  ejk_ring_run). Fails on every rank, before the ring moves, when a rank
 *  passes NULL or too small a buffer. Collective. */
EJK_RUNTIME_EXPORT ejk_status ejk_ring_run_segments(
    ejk_ring *ring, ejk_buffer *query, ejk_buffer *key, ejk_buffer *value,
    ejk_buffer *q_segment_ids, ejk_buffer *kv_segment_ids, ejk_buffer *output,
    ejk_buffer *lse);

/** The backward of ring attention: the gradients of sum(output * d_output)
 *  with respect to this rank's `query`, `key` and `value` shards. `output`
 *  and `lse` are this rank's shards of the forward's result (what
 *  ejk_ring_run wrote, lse not optional here), `d_output` the gradient
 *  flowing into `output` ([B, S, H, Dv], the entry's type); writes
 *  `d_query`, `d_key`, `d_value` (the shapes and type of query, key,
 *  value). Runs the ring's `flash_attention_grad` blocks
 *  (`<entry>__ring__...__grad_<role>`, which ejkc emits beside the forward
 *  blocks) with the same step schedule and layout as ejk_ring_run: d_query
 *  sums on the rank, d_key/d_value sums (f32) travel with their key/value
 *  shard and reach its owner after the last step; results are rounded once
 *  to the entry's type. Fails on every rank, before the ring moves, when a
 *  rank's buffers are too small or the module has no backward blocks; a
 *  failed block fails every rank after the ring has finished moving.
 *  Shares the ring's buffers with ejk_ring_run: one run at a time.
 *  Collective. */
EJK_RUNTIME_EXPORT ejk_status ejk_ring_run_backward(
    ejk_ring *ring, ejk_buffer *query, ejk_buffer *key, ejk_buffer *value,
    ejk_buffer *output, ejk_buffer *lse, ejk_buffer *d_output,
    ejk_buffer *d_query, ejk_buffer *d_key, ejk_buffer *d_value);

/** ejk_ring_run_backward with the segment ids of ejk_ring_run_segments (the
 *  same ones as the forward run; same rules). Collective. */
EJK_RUNTIME_EXPORT ejk_status ejk_ring_run_backward_segments(
    ejk_ring *ring, ejk_buffer *query, ejk_buffer *key, ejk_buffer *value,
    ejk_buffer *q_segment_ids, ejk_buffer *kv_segment_ids, ejk_buffer *output,
    ejk_buffer *lse, ejk_buffer *d_output, ejk_buffer *d_query,
    ejk_buffer *d_key, ejk_buffer *d_value);

/** Time split of the last ejk_ring_run or ejk_ring_run_backward on this
 *  rank, in nanoseconds (for the backward, merge_ns is the time spent
 *  adding the blocks' gradients into the sums). */
typedef struct ejk_ring_stats {
  int ring_size, steps_computed, steps_skipped;
  /** Kernel time of the block entries (ejk_invocation_time_ns). */
  uint64_t compute_ns;
  /** Time a step waited for its key/value transfer after its block had
   *  finished: communication that compute did not hide. */
  uint64_t exposed_comm_ns;
  /** Merging partial outputs, staging copies, masks (the two below and
   *  the rest). */
  uint64_t host_ns;
  uint64_t total_ns;
  /** Of host_ns: copies between host and device (key/value shards in,
   *  block outputs out). They hold the device: compute does not hide them. */
  uint64_t staging_ns;
  /** Of host_ns: merging the previous step's block output into the running
   *  result; it runs while the current block computes. */
  uint64_t merge_ns;
} ejk_ring_stats;

/** The whole run's stats (`step` = -1) or one step's: steps 0 .. the
 *  number the last run took minus 1 (the ring's size, or 2 or 3 for a
 *  gathered forward; docs/ops/ring.md). Not collective. */
EJK_RUNTIME_EXPORT ejk_status ejk_ring_last_stats(ejk_ring *ring, int step,
                                                  ejk_ring_stats *stats);
/** How the last ejk_ring_run moved key/value shards between ranks: "device copy
 *  (CUDA IPC), whole sequence" (every rank's GPU has CUDA: the shards go GPU to
 *  GPU and each rank's blocks see the whole sequence, no merge), "shared
 *  window" (every rank on one node: one host mapping holds every shard,
 *  registered with the device; "shared window (staged)" when the device could
 *  not import it), "direct" (CPU devices: MPI messages into the blocks'
 *  buffers), "messages" (MPI messages through host buffers; the reason follows
 *  in parentheses when the window was not used, e.g. "(no shared window: the
 *  ranks are on more than one node)" or "(EJK_RING_SHARED_WINDOW=0)"), or
 *  "none" (one rank, or no run yet); where the ring could have copied GPU to
 *  GPU but did not, "; no device copy: <why>" follows (e.g. "rank 0: cannot
 *  load libcuda.so.1 (...)" or "EJK_RING_DEVICE_COPY=0"). The string lives
 *  until the next run or ejk_ring_destroy. Not collective. */
EJK_RUNTIME_EXPORT const char *ejk_ring_transport(ejk_ring *ring);

/** Releases the ring. Not collective; accepts NULL. */
EJK_RUNTIME_EXPORT ejk_status ejk_ring_destroy(ejk_ring *ring);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* EJK_RUNTIME_EJK_RING_H */
