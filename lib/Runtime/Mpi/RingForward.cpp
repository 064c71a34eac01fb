//===- RingForward.cpp - ring attention's forward (ejk_ring_run) ----------===//
//
// The ring loop of docs/ops/ring.md, on top of the public C API only: each
// step runs one compiled flash-attention block entry of the local queries
// against the visiting key/value shard (ejk_invoke_async), while the next
// shard travels with MPI_Isend/MPI_Irecv; the block's output and lse are
// merged into the running result. Which block a step runs follows from the
// global positions of the shards' rows (contiguous or zigzag) and the op's
// causal/window options, which the block entries' names carry
// (chooseBlock, Ring.cpp). With segment ids (ejk_ring_run_segments) each
// shard's kv_segment_ids travel with its key/value (a third message) and
// every block takes the segment ids of its rows. Where every rank's GPU
// has CUDA, the run is RingDevice.cpp's instead (key/value GPU to GPU, no
// merge: useDeviceCopies).
//
// Shards travel as bytes of the entry's element type (f32, f16, bf16); the
// merge is f32 on the host. Copies between host and device hold the device,
// so a step's host work is ordered to hide what it can behind the block:
// stage the inputs, start the block, then merge the previous step's output
// (on the host's threads) while MPI moves the next shard.
//
//===----------------------------------------------------------------------===//

#include "RingState.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

using namespace ejk::ring;

namespace {

/// Sizes the forward's shard buffers and reserves its block-output buffer,
/// and the result's (the f16/bf16 output, uploaded once at the end), and
/// registers the six with the device (ejk_ring::registered): a shard
/// then moves between host and device in one device copy at the bus's rate
/// instead of through the runtime's staging memcpy (docs/ops/ring-gpus.md,
/// "Registered host buffers"). A previous run's ranges of other sizes are
/// released before their buffers are resized.
void registerShardBuffers(ejk_ring &ring, size_t kBytes, size_t vBytes,
                          size_t oBytes) {
  ejk_ring::HostBuffers &host = ring.host;
  const char *env = std::getenv("EJK_RING_REGISTER_HOST");
  if (env && std::strcmp(env, "0") == 0)
    ring.registerHost = false;
  bool registeredAlready =
      ring.registered.size() == 6 && host.keyCur.size() == kBytes &&
      host.valueCur.size() == vBytes && host.partO.capacity() >= oBytes &&
      host.result.size() == oBytes;
  if (!registeredAlready)
    ring.unregisterHost();
  host.keyCur.resize(kBytes);
  host.keyNext.resize(kBytes);
  host.valueCur.resize(vBytes);
  host.valueNext.resize(vBytes);
  // Block outputs are at most this large: reading one back never
  // reallocates (and so never leaves its registered range).
  host.partO.reserve(oBytes);
  host.result.resize(oBytes);
  if (registeredAlready || !ring.registerHost)
    return;
  const std::pair<void *, size_t> ranges[] = {
      {host.keyCur.data(), kBytes},
      {host.keyNext.data(), kBytes},
      {host.valueCur.data(), vBytes},
      {host.valueNext.data(), vBytes},
      {host.partO.data(), host.partO.capacity()},
      {host.result.data(), oBytes}};
  for (const auto &range : ranges) {
    if (ejk_host_register(ring.device, range.first, range.second) != EJK_OK) {
      // A device that cannot import host memory: stage as before.
      ring.registerHost = false;
      ring.unregisterHost();
      return;
    }
    ring.registered.push_back(range);
  }
}

/// The buffer's memory on the host (a CPU device's buffer), or null.
unsigned char *hostPointer(ejk_buffer *buffer) {
  void *pointer = nullptr;
  if (!buffer || ejk_buffer_host_pointer(buffer, &pointer) != EJK_OK)
    return nullptr;
  return static_cast<unsigned char *>(pointer);
}

/// Where a CPU ring reads and writes in place (docs/ops/ring.md, "The
/// direct path"): MPI receives the next shard straight into the other
/// slot's key/value buffers and sends from the current one's (the caller's
/// at step 0), and the merge reads a block's output and lse buffers. No
/// staging copy and no read-back; `on` is false on a Vulkan device or with
/// EJK_RING_DIRECT=0 (copies through host buffers, as on Vulkan).
struct Direct {
  bool on = false;
  unsigned char *key = nullptr, *value = nullptr, *query = nullptr,
                *queryHalf = nullptr;
  struct Slot {
    unsigned char *key = nullptr, *value = nullptr, *keyHalf = nullptr,
                  *valueHalf = nullptr;
  } slots[2];
};

Direct directPointers(const ejk_ring &ring, ejk_buffer *query, ejk_buffer *key,
                      ejk_buffer *value) {
  Direct d;
  const char *env = std::getenv("EJK_RING_DIRECT");
  if (env && std::strcmp(env, "0") == 0)
    return d;
  d.key = hostPointer(key);
  d.value = hostPointer(value);
  d.query = hostPointer(query);
  d.queryHalf = hostPointer(ring.queryHalf);
  bool ok = d.key && d.value && d.query &&
            (d.queryHalf || !ring.entries.zigzagBlocks);
  for (int i = 0; i < 2; ++i) {
    const ejk_ring::Slot &slot = ring.slots[i];
    Direct::Slot &p = d.slots[i];
    p.key = hostPointer(slot.key);
    p.value = hostPointer(slot.value);
    p.keyHalf = hostPointer(slot.keyHalf);
    p.valueHalf = hostPointer(slot.valueHalf);
    ok = ok && p.key && p.value &&
         ((p.keyHalf && p.valueHalf) || !ring.entries.zigzagBlocks);
  }
  d.on = ok;
  return d;
}

/// Whether this run moves key/value shards through the shared window
/// (RingWindow.h, docs/ops/ring-gpus.md "The shared window"); sets
/// `ring.transport`. Collective: the window is every rank's or none's. Off
/// on the direct path (a CPU device: MPI writes into the block's buffers
/// already), with EJK_RING_SHARED_WINDOW=0, for one rank, and when the
/// mapping cannot be made (ranks on several nodes, ...): then MPI messages.
bool useSharedWindow(ejk_ring &ring, bool direct, size_t kBytes, size_t vBytes,
                     size_t sBytes) {
  ejk_comm &comm = *ring.comm;
  const char *env = std::getenv("EJK_RING_SHARED_WINDOW");
  bool off = env && std::strcmp(env, "0") == 0;
  int want = !direct && !off && comm.size > 1, all = 0;
  MPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, comm.comm);
  std::string messages = direct ? "direct" : "messages";
  if (!all) {
    ring.window.close();
    ring.transport = comm.size == 1 ? "none"
                     : off          ? messages + " (EJK_RING_SHARED_WINDOW=0)"
                                    : messages;
    return false;
  }
  std::string reason;
  if (!ring.window.open(comm.comm, comm.rank, comm.size, ring.device,
                        kBytes + vBytes + sBytes, reason)) {
    ring.transport = messages + " (no shared window: " + reason + ")";
    return false;
  }
  ring.transport =
      ring.window.registered() ? "shared window" : "shared window (staged)";
  return true;
}

/// Whether this run takes the gathered form (docs/ops/ring-gpus.md, "Gathered
/// key/value"): the rank's own block, then its queries against every other
/// shard at once, gathered on its device from the shared window; one merge
/// instead of one a step. Needs the window, the entry's gather blocks, batch
/// 1 (the blocks read prefixes of the gathered buffer and the front half of
/// the queries in place), no segment ids, zigzag shards when causal, and
/// the gathered key/value buffers on every rank (created by the first
/// gathered run; a rank that cannot create them keeps every rank on the
/// steps); EJK_RING_GATHER=0 keeps the step-by-step ring. Collective.
bool useGather(ejk_ring &ring, bool window, bool segments, int64_t kBytes,
               int64_t vBytes) {
  const char *env = std::getenv("EJK_RING_GATHER");
  bool off = env && std::strcmp(env, "0") == 0;
  const RingEntries &e = ring.entries;
  int want = window && !off && e.gatherBlocks && !segments && !e.window &&
             ring.batch == 1 && (!e.causal || ring.layout == EJK_RING_ZIGZAG);
  const int64_t others = ring.comm->size - 1;
  std::string noBuffers;
  for (auto [buffer, bytes] : {std::pair(&ring.gatherKey, others * kBytes),
                               std::pair(&ring.gatherValue, others * vBytes)})
    if (want && !*buffer &&
        ejk_buffer_create(ring.device, size_t(bytes), buffer) != EJK_OK) {
      want = 0;
      noBuffers = ejk_last_error();
    }
  int all = 0;
  MPI_Allreduce(&want, &all, 1, MPI_INT, MPI_MIN, ring.comm->comm);
  if (!all && window && off)
    ring.transport += " (EJK_RING_GATHER=0)";
  if (!all && !noBuffers.empty())
    ring.transport += " (no gathered buffers: " + noBuffers + ")";
  if (all)
    ring.transport += ", gathered";
  return all != 0;
}

/// What the gathered buffer of rank `rank` holds, in global order: the
/// (owner rank, half) of each piece, half -1 for a whole shard. Non-causal:
/// every other shard. Causal zigzag: the chunks 0..2n-1 but the rank's own
/// (r and 2n-1-r), as far as its second chunk's block reads (2n-2-r of
/// them; its first chunk's reads the first r).
std::vector<std::pair<int, int>> gatherPieces(const ejk_ring &ring, int rank) {
  const int n = ring.entries.ringSize;
  std::vector<std::pair<int, int>> pieces;
  if (!ring.entries.causal) {
    for (int r = 0; r < n; ++r)
      if (r != rank)
        pieces.push_back({r, -1});
    return pieces;
  }
  for (int chunk = 0; chunk < 2 * n && int(pieces.size()) < 2 * n - 2 - rank;
       ++chunk) {
    if (chunk == rank || chunk == 2 * n - 1 - rank)
      continue;
    bool first = chunk < n;
    pieces.push_back({first ? chunk : 2 * n - 1 - chunk, first ? 0 : 1});
  }
  return pieces;
}

} // namespace

extern "C" {

const char *ejk_ring_transport(ejk_ring *ring) {
  return ring ? ring->transport.c_str() : "";
}

ejk_status ejk_ring_run(ejk_ring *ring, ejk_buffer *query, ejk_buffer *key,
                        ejk_buffer *value, ejk_buffer *output,
                        ejk_buffer *lse) {
  return ejk_ring_run_segments(ring, query, key, value, nullptr, nullptr,
                               output, lse);
}

ejk_status ejk_ring_run_segments(ejk_ring *ring, ejk_buffer *query,
                                 ejk_buffer *key, ejk_buffer *value,
                                 ejk_buffer *qSegments, ejk_buffer *kvSegments,
                                 ejk_buffer *output, ejk_buffer *lse) {
  if (ejk_status s = checkRingArg(ring, "ejk_ring_run"))
    return s;
  uint64_t start = nowNs();
  ejk_comm &comm = *ring->comm;
  const int n = comm.size, rank = comm.rank;
  // Every rank learns whether all can run before the ring moves: a bad
  // argument on one rank must not leave the others waiting.
  {
    ejk_status s = EJK_OK;
    if (!query || !key || !value || !output)
      s = fail(EJK_ERROR_INVALID_ARGUMENT,
               "ejk_ring_run: 'query', 'key', 'value' and 'output' must not "
               "be NULL");
    else
      s = checkSegments(*ring, qSegments, kvSegments, "ejk_ring_run");
    if (ejk_status agreed =
            agreeAcrossRanks(comm, s, s ? ejk_ring_last_error() : "",
                             "ejk_ring_run: rank", "cannot run the ring"))
      return agreed;
  }
  const bool segments = ring->entries.segments;
  const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
  const float negInf = -std::numeric_limits<float>::infinity();
  ring->steps.assign(size_t(n), ejk_ring_stats{});
  ring->total = ejk_ring_stats{};
  ring->total.ring_size = n;

  // The first local failure; the ring keeps moving after it (blocks are
  // skipped) so that no peer waits for a message that never comes.
  FirstFailure failure;
  ejk_status &status = failure.status;
  std::string &message = failure.message;
  auto record = [&](ejk_status s, const std::string &what) {
    failure.record(s, what);
  };
  auto since = [](uint64_t t0) { return nowNs() - t0; };

  const int64_t e = ring->elemBytes, batch = ring->batch, seq = ring->seq;
  const int64_t half = seq / 2;
  const int64_t kBytes = batch * seq * ring->kRowBytes(),
                vBytes = batch * seq * ring->vRowBytes();
  // The host buffers live as long as the ring: touching hundreds of MiB of
  // fresh pages per run cost more than the run's copies (measured on the
  // H200 machine).
  ejk_ring::HostBuffers &host = ring->host;
  const size_t oBytes = size_t(batch * seq * ring->heads * ring->headDimV * e);
  const Direct direct = directPointers(*ring, query, key, value);
  // Key/value GPU to GPU, no merge (RingDevice.cpp) where every rank can;
  // else `noDeviceCopy` says why, after the transport taken instead.
  std::string noDeviceCopy;
  if (useDeviceCopies(*ring, direct.on, segments, noDeviceCopy))
    return runWholeSequence(*ring, start, query, key, value, output, lse);
  if (!direct.on)
    registerShardBuffers(*ring, size_t(kBytes), size_t(vBytes), oBytes);
  host.accO.resize(size_t(ring->oElems()));
  host.accL.resize(size_t(ring->lElems()));
  /// The running result starts empty; filled beside block 0 (the first
  /// merge is a step later).
  auto clearResult = [&] {
    parallelFor(ring->oElems(), ring->threads, [&](int64_t from, int64_t to) {
      std::fill(host.accO.begin() + from, host.accO.begin() + to, 0.0f);
    });
    std::fill(host.accL.begin(), host.accL.end(), negInf);
  };
  Bytes &keyCur = host.keyCur, &valueCur = host.valueCur,
        &keyNext = host.keyNext, &valueNext = host.valueNext,
        &partO = host.partO, &scratchK = host.scratchK,
        &scratchV = host.scratchV;
  std::vector<float> &accO = host.accO, &accL = host.accL, &partL = host.partL;
  std::vector<uint8_t> &mask = host.mask;
  const int64_t sBytes = segments ? ring->segBytes() : 0;
  host.segCur.resize(size_t(sBytes));
  host.segNext.resize(size_t(sBytes));
  Bytes &segCur = host.segCur, &segNext = host.segNext;
  const bool window = useSharedWindow(*ring, direct.on, size_t(kBytes),
                                      size_t(vBytes), size_t(sBytes));
  /// Rank `r`'s key, value and kv_segment_ids in the shared window.
  auto windowKey = [&](int r) { return ring->window.segment(r); };
  auto windowValue = [&](int r) { return windowKey(r) + kBytes; };
  auto windowSegments = [&](int r) { return windowValue(r) + vBytes; };
  const bool gather = useGather(*ring, window, segments, kBytes, vBytes);
  if (!noDeviceCopy.empty())
    ring->transport += "; no device copy: " + noDeviceCopy;
  /// Every other shard's key/value into the gathered buffers, from the
  /// window (after its barrier), in global order (gatherPieces).
  auto fillGathered = [&] {
    int64_t at = 0;
    for (auto [owner, piece] : gatherPieces(*ring, rank)) {
      int64_t kPart = piece < 0 ? kBytes : kBytes / 2,
              vPart = piece < 0 ? vBytes : vBytes / 2;
      int64_t from = piece > 0 ? 1 : 0;
      record(ejk_buffer_upload(ring->gatherKey, windowKey(owner) + from * kPart,
                               size_t(kPart), size_t(at * kPart)),
             "ejk_ring_run: gathering 'key'");
      record(ejk_buffer_upload(ring->gatherValue,
                               windowValue(owner) + from * vPart, size_t(vPart),
                               size_t(at * vPart)),
             "ejk_ring_run: gathering 'value'");
      ++at;
    }
  };

  /// The host copies the ring needs besides the shards it receives: this
  /// rank's key/value (to send) and, for zigzag blocks, the second half of
  /// its queries. They are read while block 0 runs (on the rank's own
  /// shard, which stays on the device).
  auto readOwnShard = [&] {
    if (window) {
      // Into this rank's segment of the window; then one barrier: every
      // shard is in the window for the rest of the run (the agreement at
      // the end of the run keeps the next run from overwriting a segment a
      // peer still reads).
      record(ejk_buffer_download(key, windowKey(rank), size_t(kBytes), 0),
             "ejk_ring_run: reading 'key'");
      record(ejk_buffer_download(value, windowValue(rank), size_t(vBytes), 0),
             "ejk_ring_run: reading 'value'");
      if (segments)
        record(ejk_buffer_download(kvSegments, windowSegments(rank),
                                   size_t(sBytes), 0),
               "ejk_ring_run: reading 'kv_segment_ids'");
      MPI_Barrier(comm.comm);
      if (gather && status == EJK_OK)
        fillGathered();
    } else if (!direct.on) {
      record(ejk_buffer_download(key, keyCur.data(), keyCur.size(), 0),
             "ejk_ring_run: reading 'key'");
      record(ejk_buffer_download(value, valueCur.data(), valueCur.size(), 0),
             "ejk_ring_run: reading 'value'");
    }
    if (segments && !window)
      record(ejk_buffer_download(kvSegments, segCur.data(), segCur.size(), 0),
             "ejk_ring_run: reading 'kv_segment_ids'");
    if (status != EJK_OK || !ring->entries.zigzagBlocks ||
        ring->layout != EJK_RING_ZIGZAG)
      return;
    // Only the second half of each batch's rows is read.
    int64_t qRow = ring->heads * ring->headDim * e;
    if (direct.on) {
      copyRows(direct.queryHalf, direct.query, batch, seq, half, half, 0, half,
               qRow);
    } else {
      Bytes qHalf(size_t(batch * half * qRow));
      for (int64_t b = 0; b < batch && status == EJK_OK; ++b)
        record(ejk_buffer_download(query, qHalf.data() + b * half * qRow,
                                   size_t(half * qRow),
                                   size_t((b * seq + half) * qRow)),
               "ejk_ring_run: reading 'query'");
      record(ejk_buffer_upload(ring->queryHalf, qHalf.data(), qHalf.size(), 0),
             "ejk_ring_run: staging the query half");
    }
    if (!segments)
      return;
    // The q ids are on the host already (read before block 0).
    Bytes sHalf(size_t(batch * half * 4));
    copyRows(sHalf.data(),
             reinterpret_cast<const unsigned char *>(host.qSegments.data()),
             batch, seq, half, half, 0, half, 4);
    record(
        ejk_buffer_upload(ring->qSegmentsHalf, sHalf.data(), sHalf.size(), 0),
        "ejk_ring_run: staging the q_segment_ids half");
  };

  /// Rows [0, rows) of each batch of a shard into `buffer`: straight from
  /// the shard when they are contiguous (one batch or the whole shard).
  auto stageRows = [&](ejk_buffer *buffer, const unsigned char *shard,
                       Bytes &scratch, int64_t rows, int64_t rowBytes) {
    if (batch == 1 || rows == seq) {
      record(
          ejk_buffer_upload(buffer, shard, size_t(batch * rows * rowBytes), 0),
          "ejk_ring_run: staging");
      return;
    }
    scratch.resize(size_t(batch * rows * rowBytes));
    copyRows(scratch.data(), shard, batch, seq, rows, 0, 0, rows, rowBytes);
    record(ejk_buffer_upload(buffer, scratch.data(), scratch.size(), 0),
           "ejk_ring_run: staging");
  };

  /// What a step runs: its block entry with the operands staged in a slot.
  struct Plan {
    std::string entry; // empty: skipped
    std::vector<ejk_buffer *> inputs;
    ejk_buffer *output = nullptr, *lse = nullptr;
    int64_t rowBegin = 0, rows = 0;
  };
  // Stages the operands of step `step` (the shard of rank `source`, whose
  // key/value bytes are at `k`, `v` and kv_segment_ids are `s`) into slot
  // `step % 2` and says what to run.
  auto stage = [&](int step, const unsigned char *k, const unsigned char *v,
                   const Bytes &s) {
    Plan plan;
    int source = (rank - step + n) % n;
    Block block =
        status == EJK_OK ? chooseBlock(*ring, rank, source, mask) : Block::Skip;
    block = skipBySegments(*ring, block, rank, source, s);
    if (block == Block::Skip)
      return plan;
    ejk_ring::Slot &slot = ring->slots[step % 2];
    plan.output = slot.output;
    plan.lse = slot.lse;
    plan.rows = seq;
    if (block == Block::ZigzagKv) {
      plan.entry = ring->blockName("zzkv");
      plan.inputs = {query, slot.keyHalf, slot.valueHalf};
      if (direct.on && batch == 1) {
        // The first half of the rows is the front of the shard: the block
        // reads the shard's buffers (larger than it needs) in place.
        plan.inputs = {query, slot.key, slot.value};
      } else if (direct.on) {
        const Direct::Slot &p = direct.slots[step % 2];
        copyRows(p.keyHalf, p.key, batch, seq, half, 0, 0, half,
                 ring->kRowBytes());
        copyRows(p.valueHalf, p.value, batch, seq, half, 0, 0, half,
                 ring->vRowBytes());
      } else {
        stageRows(slot.keyHalf, k, scratchK, half, ring->kRowBytes());
        stageRows(slot.valueHalf, v, scratchV, half, ring->vRowBytes());
      }
      if (segments) {
        stageRows(slot.kvSegmentsHalf, s.data(), host.scratchS, half, 4);
        plan.inputs.push_back(qSegments);
        plan.inputs.push_back(slot.kvSegmentsHalf);
      }
      return plan;
    }
    // The rank's own shard is on the device already: the caller's.
    ejk_buffer *kb = key, *vb = value, *sb = kvSegments;
    if (source != rank) {
      // The direct path received the shard into the slot already.
      if (!direct.on) {
        stageRows(slot.key, k, scratchK, seq, ring->kRowBytes());
        stageRows(slot.value, v, scratchV, seq, ring->vRowBytes());
      }
      kb = slot.key;
      vb = slot.value;
      if (segments) {
        stageRows(slot.kvSegments, s.data(), host.scratchS, seq, 4);
        sb = slot.kvSegments;
      }
    }
    if (block == Block::ZigzagQ) {
      plan.entry = ring->blockName("zzq");
      plan.inputs = {ring->queryHalf, kb, vb};
      plan.output = slot.outputHalf;
      plan.lse = slot.lseHalf;
      plan.rowBegin = half;
      plan.rows = half;
    } else if (block == Block::Masked) {
      record(ejk_buffer_upload(slot.mask, mask.data(), mask.size(), 0),
             "ejk_ring_run: staging the mask");
      plan.entry = ring->blockName("masked");
      plan.inputs = {query, kb, vb, slot.mask};
    } else {
      plan.entry = ring->blockName(block == Block::Diag ? "diag" : "full");
      plan.inputs = {query, kb, vb};
    }
    if (segments) {
      plan.inputs.push_back(block == Block::ZigzagQ ? ring->qSegmentsHalf
                                                    : qSegments);
      plan.inputs.push_back(sb);
    }
    return plan;
  };
  /// The gathered form's steps after the own block: `gfull`, or `gzlo<r>`
  /// (rank 0 has none) and `gzhi<r>`, each against the first bytes of the
  /// gathered buffers, into slot `step % 2`.
  std::vector<Plan> gathered;
  if (gather) {
    auto role = [&](const char *what) {
      return ring->blockName((what + std::to_string(rank)).c_str());
    };
    if (!ring->entries.causal) {
      gathered.push_back({ring->blockName("gfull"),
                          {query, ring->gatherKey, ring->gatherValue},
                          nullptr,
                          nullptr,
                          0,
                          seq});
    } else {
      if (rank > 0) // The first half of the queries is the buffer's front.
        gathered.push_back({role("gzlo"),
                            {query, ring->gatherKey, ring->gatherValue},
                            nullptr,
                            nullptr,
                            0,
                            half});
      gathered.push_back({role("gzhi"),
                          {ring->queryHalf, ring->gatherKey, ring->gatherValue},
                          nullptr,
                          nullptr,
                          half,
                          half});
    }
    for (size_t i = 0; i < gathered.size(); ++i) {
      ejk_ring::Slot &slot = ring->slots[(i + 1) % 2];
      bool whole = gathered[i].rows == seq;
      gathered[i].output = whole ? slot.output : slot.outputHalf;
      gathered[i].lse = whole ? slot.lse : slot.lseHalf;
    }
  }
  const int numSteps = gather ? 1 + int(gathered.size()) : n;
  // One entry a step of this run (ejk_ring_last_stats): a gathered ring has
  // fewer than `n` (2 non-causal), or more (rank r >= 1 of a causal ring of
  // 2 has 3); the last read-back and merge go to the last one.
  ring->steps.resize(size_t(numSteps));
  /// A finished plan's output and lse on the host: read back into
  /// partO/partL, or (the direct path) the block's buffers themselves.
  struct Part {
    const unsigned char *output = nullptr;
    const float *lse = nullptr;
  };
  auto readBack = [&](const Plan &plan) {
    Part part;
    if (direct.on) {
      part.output = hostPointer(plan.output);
      part.lse = reinterpret_cast<const float *>(hostPointer(plan.lse));
      return part;
    }
    partO.resize(size_t(batch * plan.rows * ring->heads * ring->headDimV * e));
    partL.resize(size_t(batch * ring->heads * plan.rows));
    record(ejk_buffer_download(plan.output, partO.data(), partO.size(), 0),
           "ejk_ring_run: block output");
    record(ejk_buffer_download(plan.lse, partL.data(), partL.size() * 4, 0),
           "ejk_ring_run: block lse");
    if (status == EJK_OK) {
      part.output = partO.data();
      part.lse = partL.data();
    }
    return part;
  };

  // Step t: start block t; while it runs, send shard t on and receive
  // shard t+1 (MPI), read back block t-1's output and merge it (worker
  // threads), wait for shard t+1 and stage it into the other slot. Where the
  // device has a copy lane those copies overlap the block; elsewhere they wait
  // for it, as they did before.
  uint64_t t0 = nowNs();
  if (segments) {
    // The local q ids, on the host: a step whose shard shares no segment
    // with them is skipped (skipBySegments).
    host.qSegments.resize(size_t(batch * seq));
    record(ejk_buffer_download(qSegments, host.qSegments.data(), size_t(sBytes),
                               0),
           "ejk_ring_run: reading 'q_segment_ids'");
  }
  Plan current = stage(0, keyCur.data(), valueCur.data(), segCur), previous;
  ring->steps[0].staging_ns += since(t0);
  ring->steps[0].host_ns += since(t0);
  for (int step = 0; step < numSteps; ++step) {
    ejk_ring_stats &st = ring->steps[size_t(step)];
    uint64_t stepStart = nowNs();
    ejk_invocation *invocation = nullptr;
    if (!current.entry.empty() && status == EJK_OK) {
      ejk_buffer *outputs[2] = {current.output, current.lse};
      record(ejk_invoke_async(ring->module, current.entry.c_str(),
                              current.inputs.data(), current.inputs.size(),
                              outputs, 2, &invocation),
             "ejk_ring_run: block '" + current.entry + "'");
    }
    uint64_t hostStart = nowNs();
    if (step == 0) {
      readOwnShard();
      st.staging_ns += since(hostStart);
    }
    MPI_Request requests[6];
    int numRequests = 0;
    if (step + 1 < n && !window) {
      // The direct path sends the shard from where the block reads it and
      // receives the next into the other slot (its block finished last
      // step).
      const Direct::Slot &from = direct.slots[step % 2],
                         &into = direct.slots[(step + 1) % 2];
      unsigned char *sendK = keyCur.data(), *sendV = valueCur.data(),
                    *recvK = keyNext.data(), *recvV = valueNext.data();
      if (direct.on) {
        sendK = step == 0 ? direct.key : from.key;
        sendV = step == 0 ? direct.value : from.value;
        recvK = into.key;
        recvV = into.value;
      }
      MPI_Irecv(recvK, int(kBytes), MPI_BYTE, prev, 0, comm.comm,
                &requests[numRequests++]);
      MPI_Irecv(recvV, int(vBytes), MPI_BYTE, prev, 1, comm.comm,
                &requests[numRequests++]);
      MPI_Isend(sendK, int(kBytes), MPI_BYTE, next, 0, comm.comm,
                &requests[numRequests++]);
      MPI_Isend(sendV, int(vBytes), MPI_BYTE, next, 1, comm.comm,
                &requests[numRequests++]);
      if (segments) {
        MPI_Irecv(segNext.data(), int(sBytes), MPI_BYTE, prev, kSegmentTag,
                  comm.comm, &requests[numRequests++]);
        MPI_Isend(segCur.data(), int(sBytes), MPI_BYTE, next, kSegmentTag,
                  comm.comm, &requests[numRequests++]);
      }
    }

    std::thread merger;
    uint64_t mergeNs = 0;
    if (step == 0)
      merger = std::thread(clearResult);
    if (!previous.entry.empty()) {
      uint64_t readStart = nowNs();
      Part part = readBack(previous);
      if (part.output && part.lse)
        merger = std::thread(
            [&, part, begin = previous.rowBegin, rows = previous.rows] {
              uint64_t m0 = nowNs();
              mergeBlock(accO, accL, part.output, part.lse, ring->mergeShape(),
                         begin, rows);
              mergeNs = since(m0);
            });
      st.staging_ns += since(readStart);
    }
    // MPI moves a large message inside its calls: wait here, on this
    // thread, while the merge runs on the others (gently while a CPU block
    // runs: waitBeside).
    uint64_t waitStart = nowNs();
    int rc = waitBeside(numRequests, requests, invocation, ring->pollUs);
    uint64_t commDone = nowNs();
    uint64_t waitNs = commDone - waitStart;
    Plan upcoming;
    if (rc == MPI_SUCCESS && step + 1 < numSteps) {
      uint64_t stageStart = nowNs();
      if (gather) {
        upcoming = status == EJK_OK ? gathered[size_t(step)] : Plan();
      } else if (window) {
        // The visiting shard, straight from its owner's segment.
        int source = (rank - step - 1 + n) % n;
        if (segments)
          std::memcpy(segNext.data(), windowSegments(source), size_t(sBytes));
        upcoming =
            stage(step + 1, windowKey(source), windowValue(source), segNext);
      } else {
        upcoming = stage(step + 1, keyNext.data(), valueNext.data(), segNext);
      }
      st.staging_ns += since(stageStart);
    }
    if (merger.joinable())
      merger.join();
    st.merge_ns += mergeNs;
    st.host_ns += since(hostStart) - waitNs;
    if (rc != MPI_SUCCESS) {
      // The ring itself is broken: nothing later can complete.
      if (invocation) {
        ejk_invocation_wait(invocation);
        ejk_invocation_destroy(invocation);
      }
      return fail(EJK_ERROR_IO,
                  "ejk_ring_run: rank " + std::to_string(rank) + " step " +
                      std::to_string(step) +
                      ": key/value transfer failed: " + mpiError(rc));
    }
    if (invocation) {
      record(ejk_invocation_wait(invocation), "ejk_ring_run: block");
      uint64_t kernel = 0;
      ejk_invocation_time_ns(invocation, &kernel);
      ejk_invocation_destroy(invocation);
      st.compute_ns = kernel;
      // The transfer is exposed when it ended after the block did. The
      // block's end is its start plus its kernel time: this thread only
      // learns that it ended after the transfer's wait (or the window's
      // copies), so the time it noticed is never before `commDone` (which
      // made the MPI messages look free before 2026-11-27: "Several
      // GPUs").
      uint64_t blockEnd = stepStart + kernel;
      st.exposed_comm_ns = commDone > blockEnd ? commDone - blockEnd : 0;
      ++ring->total.steps_computed;
    } else {
      st.exposed_comm_ns = waitNs;
      ++ring->total.steps_skipped;
      current.entry.clear();
    }
    previous = std::move(current);
    current = std::move(upcoming);
    std::swap(keyCur, keyNext);
    std::swap(valueCur, valueNext);
    std::swap(segCur, segNext);
    st.total_ns = since(stepStart);
    st.ring_size = n;
  }
  if (!previous.entry.empty()) {
    ejk_ring_stats &last = ring->steps.back();
    uint64_t r0 = nowNs();
    Part part = readBack(previous);
    last.staging_ns += since(r0);
    uint64_t m0 = nowNs();
    if (part.output && part.lse)
      mergeBlock(accO, accL, part.output, part.lse, ring->mergeShape(),
                 previous.rowBegin, previous.rows);
    last.merge_ns += since(m0);
    last.host_ns += since(r0);
    last.total_ns += since(r0);
  }
  for (const ejk_ring_stats &st : ring->steps) {
    ring->total.compute_ns += st.compute_ns;
    ring->total.exposed_comm_ns += st.exposed_comm_ns;
    ring->total.host_ns += st.host_ns;
    ring->total.staging_ns += st.staging_ns;
    ring->total.merge_ns += st.merge_ns;
  }

  ring->total.total_ns = since(start);
  if (ejk_status agreed =
          agreeAcrossRanks(comm, status, message,
                           "ejk_ring_run: ring attention failed on rank", ""))
    return agreed;
  // An f32 result is the output as it stands; f16/bf16 are rounded once.
  const void *result = accO.data();
  if (ring->dtype != EJK_DTYPE_F32) {
    // Registered (registerShardBuffers) when the shards are.
    Bytes &out = host.result;
    out.resize(size_t(ring->oElems() * e));
    parallelFor(ring->oElems(), ring->threads, [&](int64_t from, int64_t to) {
      fromFloats(accO.data() + from, ring->dtype, out.data() + from * e,
                 to - from);
    });
    result = out.data();
  }
  if (ejk_status s =
          ejk_buffer_upload(output, result, size_t(ring->oElems() * e), 0))
    return failFromRuntime(s, "ejk_ring_run: writing 'output'");
  if (lse)
    if (ejk_status s = ejk_buffer_upload(lse, accL.data(), accL.size() * 4, 0))
      return failFromRuntime(s, "ejk_ring_run: writing 'lse'");
  ring->total.total_ns = since(start);
  return EJK_OK;
}

} // extern "C"
