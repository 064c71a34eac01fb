//===- RingState.h - the ring's state, shared by its C API files -*- C++
//-*-===//
//
// What the files of libejk_runtime_mpi share: the communicator and ring
// handles, what the block entries' names say, which block a ring step runs,
// and the error helpers (ejk_ring_last_error). Ring.cpp creates rings,
// RingForward.cpp runs the forward, RingBackward.cpp the backward
// (docs/ops/ring.md).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_MPI_RINGSTATE_H
#define EJK_LIB_RUNTIME_MPI_RINGSTATE_H

#include "ejk/Runtime/ejk_ring.h"
#include "ejk/Runtime/ejk_zigzag.h"

#include "RingCuda.h"
#include "RingHost.h"
#include "RingWindow.h"

#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

struct ejk_comm {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
};

namespace ejk::ring {

/// The block a ring step runs (Attention/Ring/Expand.cpp's roles).
enum class Block { Skip, Full, Diag, Masked, ZigzagKv, ZigzagQ };

/// The role of `block` in the entry names ("full", "zzkv", ...).
const char *roleName(Block block);

/// What the block entries' names say (Attention/Ring/Expand.cpp).
struct RingEntries {
  std::string prefix;
  int ringSize = 0;
  bool causal = false, window = false;
  int64_t left = 0, right = 0;
  bool zigzagBlocks = false, maskedBlock = false, gradBlocks = false;
  /// The gathered form's blocks (gfull, gzlo<r>, gzhi<r>; docs/ops/ring-gpus.md
  /// "Gathered key/value").
  bool gatherBlocks = false;
  /// The whole-sequence blocks (gall, gclo<r>, gchi<r>; docs/ops/ring-gpus.md
  /// "Key/value GPU to GPU").
  bool wholeBlocks = false;
  /// The blocks take (q_segment_ids, kv_segment_ids) last: the entry was
  /// compiled with segment ids (read from the `full` block's signature).
  bool segments = false;
};

} // namespace ejk::ring

struct ejk_ring {
  ejk_module *module = nullptr;
  ejk_device *device = nullptr;
  ejk_comm *comm = nullptr;
  ejk_ring_layout layout = EJK_RING_CONTIGUOUS;
  ejk::ring::RingEntries entries;
  int64_t batch = 0, seq = 0, heads = 0, kvHeads = 0, headDim = 0, headDimV = 0;
  /// The element type of query, key, value and output (lse is f32).
  ejk_dtype dtype = EJK_DTYPE_F32;
  int64_t elemBytes = 4;
  /// Host threads of the merge.
  int threads = 1;
  /// How a rank waits for its transfers while its block runs (waitBeside,
  /// Ring.cpp): a test, then asleep for a tenth of the wait so far, between
  /// min(100, pollUs) and `pollUs` microseconds; 0 waits in MPI_Waitall,
  /// which spins. Default 1000 on a CPU device (the block and the wait
  /// share the rank's core), 0 on Vulkan; EJK_RING_POLL_US overrides it.
  unsigned pollUs = 0;
  /// Device buffers of one step's block. Two slots: the next step's
  /// operands are staged into one while the current block uses the other,
  /// and a block's output is read back while the next block runs.
  struct Slot {
    ejk_buffer *key = nullptr, *value = nullptr, *output = nullptr,
               *lse = nullptr, *mask = nullptr, *keyHalf = nullptr,
               *valueHalf = nullptr, *outputHalf = nullptr, *lseHalf = nullptr,
               *kvSegments = nullptr, *kvSegmentsHalf = nullptr;
  };
  Slot slots[2];
  /// The second half of the local queries and of their segment ids
  /// (zigzag blocks), staged once per run.
  ejk_buffer *queryHalf = nullptr, *qSegmentsHalf = nullptr;
  /// The gathered form's key/value of every other rank's shard, in global
  /// order (created by its first run).
  ejk_buffer *gatherKey = nullptr, *gatherValue = nullptr;
  /// The whole sequence's key/value in natural order, exportable (the
  /// device-copy form: RingDevice.cpp), created by its first run; CUDA on
  /// the rank's GPU that fills them (RingCuda.h), and why the device-copy
  /// form is not taken when it failed once (the same words on every rank).
  ejk_buffer *wholeKey = nullptr, *wholeValue = nullptr;
  ejk::ring::DeviceCopies devices;
  std::string deviceCopyFailure;
  /// Device buffers of the backward's blocks (ejk_ring_run_backward),
  /// created by its first run: two slots of the visiting key/value (whole,
  /// or compacted to the first half for zzkv) and the block's gradients
  /// (sized for the whole shard; the half blocks use their first bytes),
  /// and the second half of the local output, d_output and lse (zzq).
  struct GradSlot {
    ejk_buffer *key = nullptr, *value = nullptr, *dQuery = nullptr,
               *dKey = nullptr, *dValue = nullptr, *mask = nullptr,
               *kvSegments = nullptr;
  };
  GradSlot gradSlots[2];
  ejk_buffer *outputHalf = nullptr, *dOutputHalf = nullptr, *lseHalf = nullptr;
  bool gradStaging = false;
  /// Host memory of a run, kept for the next (ejk_ring_run).
  struct HostBuffers {
    std::vector<unsigned char> keyCur, valueCur, keyNext, valueNext, partO,
        scratchK, scratchV, out;
    /// The forward's result in the entry's type (registered with the
    /// shards; `out` is the backward's, which resizes it).
    std::vector<unsigned char> result;
    /// The visiting shard's kv_segment_ids (i32 [B, S]) and the next's,
    /// travelling with its key/value, and their staging scratch.
    std::vector<unsigned char> segCur, segNext, scratchS;
    /// This rank's q_segment_ids (i32 [B, S]), read once per run.
    std::vector<int32_t> qSegments;
    std::vector<float> accO, accL, partL;
    std::vector<uint8_t> mask;
    /// The backward's: a block's gradients as read back, and the f32
    /// sums (d_query local; d_key/d_value travelling, two of each: one
    /// being summed into while the other is on the wire).
    std::vector<unsigned char> partQ, partK, partV;
    std::vector<float> accQ, accK[2], accV[2];
  } host;
  /// The forward's host buffers registered with the device
  /// (ejk_host_register: one device copy each way instead of staging),
  /// as (first byte, bytes); released before any of them is resized or
  /// freed. `registerHost` is off after the device refused once, or with
  /// EJK_RING_REGISTER_HOST=0.
  std::vector<std::pair<void *, size_t>> registered;
  bool registerHost = true;
  /// Releases every registered range.
  void unregisterHost() {
    for (const auto &range : registered)
      ejk_host_unregister(device, range.first);
    registered.clear();
  }
  /// Every rank's key/value shard in host memory the node shares (the
  /// forward on Vulkan devices, all ranks on one node; RingWindow.h).
  ejk::ring::SharedShards window;
  /// How the last forward moved its key/value shards (ejk_ring_transport).
  std::string transport = "none";
  std::vector<ejk_ring_stats> steps;
  ejk_ring_stats total{};

  std::string blockName(const char *role) const {
    return entries.prefix + "__" + role;
  }
  int64_t qElems() const { return batch * seq * heads * headDim; }
  int64_t kElems() const { return batch * seq * kvHeads * headDim; }
  int64_t vElems() const { return batch * seq * kvHeads * headDimV; }
  int64_t oElems() const { return batch * seq * heads * headDimV; }
  int64_t lElems() const { return batch * heads * seq; }
  /// Bytes of a shard's segment ids (i32 [B, S]).
  int64_t segBytes() const { return batch * seq * 4; }
  int64_t kRowBytes() const { return kvHeads * headDim * elemBytes; }
  ejk::ring::MergeShape mergeShape() const {
    return {batch, seq, heads, headDimV, dtype, threads};
  }
  int64_t vRowBytes() const { return kvHeads * headDimV * elemBytes; }

  /// Global position of local row `i` of rank `rank`.
  int64_t position(int rank, int64_t i) const {
    if (layout == EJK_RING_ZIGZAG)
      return ejk_zigzag_position(rank, entries.ringSize, seq, i);
    return rank * seq + i;
  }
  bool allowed(int64_t qPos, int64_t kPos) const {
    if (entries.causal && kPos > qPos)
      return false;
    if (entries.window &&
        (qPos - kPos > entries.left || kPos - qPos > entries.right))
      return false;
    return true;
  }
};

namespace ejk::ring {

/// The first local failure of a run, with what failed: a run keeps moving
/// after it (blocks skipped) so that no peer waits, and reports it at the
/// end.
struct FirstFailure {
  ejk_status status = EJK_OK;
  std::string message;
  /// Keeps `s` and "<what>: <ejk_last_error()>" if nothing failed before.
  void record(ejk_status s, const std::string &what) {
    if (status == EJK_OK && s != EJK_OK) {
      status = s;
      message = what + ": " + ejk_last_error();
    }
  }
};

/// Records `message` as this thread's last error; returns `status`.
ejk_status fail(ejk_status status, std::string message);
/// Fails with the core runtime's message, prefixed by `what`.
ejk_status failFromRuntime(ejk_status status, const std::string &what);
std::string mpiError(int code);
uint64_t nowNs();

ejk_status checkRingArg(ejk_ring *ring, const char *what);
/// A device buffer of `bytes`; the message names `what`.
ejk_status createBuffer(ejk_device *device, int64_t bytes, ejk_buffer **out,
                        const char *what = "ejk_ring_create: staging buffer");
/// MPI tag of the kv_segment_ids that travel with a key/value shard (0
/// and 1 are the key and value, 2 and 3 the backward's gradient sums).
constexpr int kSegmentTag = 4;

/// Checks the segment id arguments of a run (`what` names the function):
/// both given exactly when the ring was compiled with segment ids, each of
/// a shard's i32 [B, S] bytes at least. Not collective.
ejk_status checkSegments(const ejk_ring &ring, ejk_buffer *qSegments,
                         ejk_buffer *kvSegments, const char *what);

/// Whether any query of rows [qBegin, qBegin + qRows) of `qIds` (i32
/// [B, S]) shares a segment with a key of rows [0, kvRows) of `kvIds` (the
/// bytes of an i32 [B, S] shard), in some batch row: when none does, the
/// block masks every pair and the step can be skipped.
bool segmentsMeet(const ejk_ring &ring, const std::vector<int32_t> &qIds,
                  int64_t qBegin, int64_t qRows,
                  const std::vector<unsigned char> &kvIds, int64_t kvRows);

/// The block of a step with segment ids: `block` (chooseBlock's), or Skip
/// when the visiting shard (rank `source`, kv ids `kvIds`) shares no
/// segment with the block's queries. The rank's own shard always runs.
Block skipBySegments(const ejk_ring &ring, Block block, int rank, int source,
                     const std::vector<unsigned char> &kvIds);

/// MPI_Waitall of `requests` beside the running block `block` (may be
/// null): while the block runs, MPI_Testall with the thread asleep between
/// (a tenth of the wait so far, clamped to [min(100, pollUs), pollUs]
/// microseconds), so that the wait does not take the CPU
/// from a block on the same core; once the block is done (or with `pollUs`
/// 0, or no block) MPI_Waitall, which polls MPI's progress at full rate.
int waitBeside(int count, MPI_Request *requests, ejk_invocation *block,
               unsigned pollUs);

/// Whether every rank has `ok`; collective. `firstFailed` is the lowest
/// failing rank (INT_MAX when none).
bool allRanksOk(ejk_comm *comm, bool ok, int &firstFailed);

/// Ends a step every rank takes (a check, a run): EJK_OK when `local` is
/// EJK_OK on every rank; else, on a rank that failed, its status with
/// "rank R: <detail>", and on the others EJK_ERROR_UNAVAILABLE with
/// "<head> F <tail> (its message says why)", F the first failing rank.
/// Collective.
ejk_status agreeAcrossRanks(ejk_comm &comm, ejk_status local,
                            const std::string &detail, const std::string &head,
                            const std::string &tail);

/// Whether this forward copies key/value GPU to GPU and runs the
/// whole-sequence blocks (RingDevice.cpp): Vulkan ranks, the entry's
/// whole-sequence blocks, batch 1, no segment ids, no window, zigzag shards
/// when causal, CUDA on every rank's GPU (RingCuda.h), and not
/// EJK_RING_DEVICE_COPY=0. Sets `ring.transport` when taken; else `why`
/// says why not where the ring could take it (empty where it could not).
/// Collective.
bool useDeviceCopies(ejk_ring &ring, bool direct, bool segments,
                     std::string &why);

/// The forward of the device-copy form: every rank gathers the whole
/// sequence's key/value on its GPU (its own shard by device copies, the
/// others' from their owners' GPUs) and runs one block of its queries (two,
/// causal zigzag) against the keys they see: the output and lse of those
/// rows, written in place; no merge. `start` is the run's start
/// (nowNs). Collective; ends with the run's agreement.
ejk_status runWholeSequence(ejk_ring &ring, uint64_t start, ejk_buffer *query,
                            ejk_buffer *key, ejk_buffer *value,
                            ejk_buffer *output, ejk_buffer *lse);

/// The block of the step where rank `source`'s shard visits rank `rank`;
/// fills `mask` ([S, S], 1 = allowed) for a masked block.
Block chooseBlock(const ejk_ring &ring, int rank, int source,
                  std::vector<uint8_t> &mask);

} // namespace ejk::ring

#endif // EJK_LIB_RUNTIME_MPI_RINGSTATE_H
