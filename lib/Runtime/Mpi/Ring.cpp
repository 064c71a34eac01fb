//===- Ring.cpp - ring attention over MPI ---------------------------------===//
//
// The ring loop of docs/ops/ring.md, on top of the public C API only: each
// step runs one compiled flash-attention block entry of the local queries
// against the visiting key/value shard (ejk_invoke_async), while the next
// shard travels with MPI_Isend/MPI_Irecv; the block's output and lse are
// merged into the running result. Which block a step runs follows from the
// global positions of the shards' rows (contiguous or zigzag) and the op's
// causal/window options, which the block entries' names carry.
//
// Shards travel as bytes of the entry's element type (f32, f16, bf16); the
// merge is f32 on the host. Copies between host and device hold the device,
// so a step's host work is ordered to hide what it can behind the block:
// stage the inputs, start the block, then merge the previous step's output
// (on the host's threads) while MPI moves the next shard.
//
//===----------------------------------------------------------------------===//

#include "ejk/Runtime/ejk_ring.h"
#include "ejk/Runtime/ejk_zigzag.h"

#include "RingHost.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

using namespace ejk::ring;

namespace {

thread_local std::string lastError;

ejk_status fail(ejk_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

/// Fails with the core runtime's message, prefixed by `what`.
ejk_status failFromRuntime(ejk_status status, const std::string &what) {
  return fail(status, what + ": " + ejk_last_error());
}

std::string mpiError(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, length);
}

uint64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

} // namespace

struct ejk_comm {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
};

namespace {
enum class Block { Skip, Full, Diag, Masked, ZigzagKv, ZigzagQ };

/// What the block entries' names say (Attention/Ring/Expand.cpp).
struct RingEntries {
  std::string prefix;
  int ringSize = 0;
  bool causal = false, window = false;
  int64_t left = 0, right = 0;
  bool zigzagBlocks = false, maskedBlock = false;
};

/// Reads `<entry>__ring__n<N>__c<0|1>__w<L>_<R>|wn__<role>` from the module.
ejk_status findEntries(ejk_module *module, const std::string &entry,
                       RingEntries &out) {
  size_t count = 0;
  if (ejk_status s = ejk_module_entry_count(module, &count); s != EJK_OK)
    return failFromRuntime(s, "ejk_ring_create");
  std::string head = entry + "__ring__";
  std::string names;
  bool found = false;
  for (size_t i = 0; i < count; ++i) {
    const char *name = nullptr;
    if (ejk_module_entry_name(module, i, &name) != EJK_OK || !name)
      continue;
    names += (names.empty() ? "" : ", ") + std::string(name);
    std::string text(name);
    if (text.rfind(head, 0) != 0)
      continue;
    size_t roleAt = text.rfind("__");
    std::string prefix = text.substr(0, roleAt);
    std::string role = text.substr(roleAt + 2);
    RingEntries parsed;
    int n = 0, causal = 0;
    long long left = 0, right = 0;
    std::string tail = prefix.substr(head.size());
    if (std::sscanf(tail.c_str(), "n%d__c%d__w%lld_%lld", &n, &causal, &left,
                    &right) == 4)
      parsed.window = true;
    else if (std::sscanf(tail.c_str(), "n%d__c%d__wn", &n, &causal) != 2)
      return fail(EJK_ERROR_FORMAT, "ejk_ring_create: entry '" + text +
                                        "' is not a ring block entry name");
    if (found && prefix != out.prefix)
      return fail(EJK_ERROR_FORMAT, "ejk_ring_create: entry '" + entry +
                                        "' has ring blocks of two kinds: '" +
                                        out.prefix + "' and '" + prefix + "'");
    if (!found) {
      parsed.prefix = prefix;
      parsed.ringSize = n;
      parsed.causal = causal != 0;
      parsed.left = left;
      parsed.right = right;
      out = parsed;
      found = true;
    }
    if (role == "masked")
      out.maskedBlock = true;
    if (role == "zzkv")
      out.zigzagBlocks = true;
  }
  if (!found)
    return fail(EJK_ERROR_NOT_FOUND,
                "ejk_ring_create: the module has no ring attention entry '" +
                    entry + "' (no entry named '" + head +
                    "...'); its entries: " + names);
  return EJK_OK;
}
} // namespace

struct ejk_ring {
  ejk_module *module = nullptr;
  ejk_device *device = nullptr;
  ejk_comm *comm = nullptr;
  ejk_ring_layout layout = EJK_RING_CONTIGUOUS;
  RingEntries entries;
  int64_t batch = 0, seq = 0, heads = 0, kvHeads = 0, headDim = 0, headDimV = 0;
  /// The element type of query, key, value and output (lse is f32).
  ejk_dtype dtype = EJK_DTYPE_F32;
  int64_t elemBytes = 4;
  /// Host threads of the merge.
  int threads = 1;
  /// Device buffers of one step's block. Two slots: the next step's
  /// operands are staged into one while the current block uses the other,
  /// and a block's output is read back while the next block runs.
  struct Slot {
    ejk_buffer *key = nullptr, *value = nullptr, *output = nullptr,
               *lse = nullptr, *mask = nullptr, *keyHalf = nullptr,
               *valueHalf = nullptr, *outputHalf = nullptr, *lseHalf = nullptr;
  };
  Slot slots[2];
  /// The second half of the local queries (zigzag blocks), staged once.
  ejk_buffer *queryHalf = nullptr;
  /// Host memory of a run, kept for the next (ejk_ring_run).
  struct HostBuffers {
    std::vector<unsigned char> keyCur, valueCur, keyNext, valueNext, partO,
        scratchK, scratchV, out;
    std::vector<float> accO, accL, partL;
    std::vector<uint8_t> mask;
  } host;
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

namespace {
ejk_status checkRingArg(ejk_ring *ring, const char *what) {
  if (!ring)
    return fail(EJK_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": 'ring' is NULL");
  return EJK_OK;
}

ejk_status createBuffer(ejk_device *device, int64_t bytes, ejk_buffer **out) {
  if (ejk_status s = ejk_buffer_create(device, size_t(bytes), out); s != EJK_OK)
    return failFromRuntime(s, "ejk_ring_create: staging buffer");
  return EJK_OK;
}

/// Whether every rank has `ok`; collective.
bool allRanksOk(ejk_comm *comm, bool ok, int &firstFailed) {
  int mine = ok ? INT_MAX : comm->rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm->comm);
  firstFailed = first;
  return first == INT_MAX;
}

ejk_status createStaging(ejk_ring &ring, ejk_device *device);
} // namespace

extern "C" {

const char *ejk_ring_last_error(void) { return lastError.c_str(); }

ejk_status ejk_comm_create_mpi(const void *mpiComm, ejk_comm **out) {
  if (!out)
    return fail(EJK_ERROR_INVALID_ARGUMENT,
                "ejk_comm_create_mpi: 'out' is NULL");
  *out = nullptr;
  if (!mpiComm)
    return fail(EJK_ERROR_INVALID_ARGUMENT,
                "ejk_comm_create_mpi: 'mpi_comm' is NULL");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized)
    return fail(EJK_ERROR_UNAVAILABLE,
                "ejk_comm_create_mpi: MPI is not initialized (call MPI_Init "
                "first)");
  auto comm = new ejk_comm;
  if (int rc =
          MPI_Comm_dup(*static_cast<const MPI_Comm *>(mpiComm), &comm->comm);
      rc != MPI_SUCCESS) {
    delete comm;
    return fail(EJK_ERROR_IO,
                "ejk_comm_create_mpi: MPI_Comm_dup: " + mpiError(rc));
  }
  MPI_Comm_set_errhandler(comm->comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm->comm, &comm->rank);
  MPI_Comm_size(comm->comm, &comm->size);
  *out = comm;
  return EJK_OK;
}

ejk_status ejk_comm_rank(ejk_comm *comm, int *rank, int *size) {
  if (!comm || !rank || !size)
    return fail(EJK_ERROR_INVALID_ARGUMENT,
                "ejk_comm_rank: 'comm', 'rank' or 'size' is NULL");
  *rank = comm->rank;
  *size = comm->size;
  return EJK_OK;
}

ejk_status ejk_comm_destroy(ejk_comm *comm) {
  if (!comm)
    return EJK_OK;
  MPI_Comm_free(&comm->comm);
  delete comm;
  return EJK_OK;
}

ejk_status ejk_ring_create(ejk_device *device, ejk_module *module,
                           const char *entry, ejk_comm *comm,
                           ejk_ring_layout layout, ejk_ring **out) {
  if (!out)
    return fail(EJK_ERROR_INVALID_ARGUMENT, "ejk_ring_create: 'out' is NULL");
  *out = nullptr;
  if (!comm)
    return fail(EJK_ERROR_INVALID_ARGUMENT, "ejk_ring_create: 'comm' is NULL");
  auto ring = new ejk_ring;
  ring->module = module;
  ring->comm = comm;
  ring->layout = layout;

  // Local checks first; every rank then learns whether all passed, so a
  // rank that fails alone never leaves the others waiting in the ring.
  ejk_status status = EJK_OK;
  auto local = [&]() -> ejk_status {
    if (!device || !module || !entry)
      return fail(EJK_ERROR_INVALID_ARGUMENT,
                  "ejk_ring_create: 'device', 'module' or 'entry' is NULL");
    if (layout != EJK_RING_CONTIGUOUS && layout != EJK_RING_ZIGZAG)
      return fail(EJK_ERROR_INVALID_ARGUMENT,
                  "ejk_ring_create: unknown layout " + std::to_string(layout));
    if (ejk_status s = findEntries(module, entry, ring->entries); s != EJK_OK)
      return s;
    if (ring->entries.ringSize != comm->size)
      return fail(EJK_ERROR_INVALID_ARGUMENT,
                  "ejk_ring_create: ring size mismatch: entry '" +
                      std::string(entry) + "' was compiled for ring_size " +
                      std::to_string(ring->entries.ringSize) +
                      ", the communicator has " + std::to_string(comm->size) +
                      " ranks");
    ejk_tensor_desc q, v;
    std::string full = ring->blockName("full");
    if (ejk_status s = ejk_module_entry_arg(module, full.c_str(), 0, 0, &q);
        s != EJK_OK)
      return failFromRuntime(s, "ejk_ring_create");
    ejk_tensor_desc k;
    if (ejk_status s = ejk_module_entry_arg(module, full.c_str(), 0, 1, &k);
        s != EJK_OK)
      return failFromRuntime(s, "ejk_ring_create");
    if (ejk_status s = ejk_module_entry_arg(module, full.c_str(), 0, 2, &v);
        s != EJK_OK)
      return failFromRuntime(s, "ejk_ring_create");
    if ((q.dtype != EJK_DTYPE_F32 && q.dtype != EJK_DTYPE_F16 &&
         q.dtype != EJK_DTYPE_BF16) ||
        k.dtype != q.dtype || v.dtype != q.dtype)
      return fail(EJK_ERROR_FORMAT,
                  std::string("ejk_ring_create: entry '") + entry +
                      "' has query/key/value of " + ejk_dtype_name(q.dtype) +
                      "/" + ejk_dtype_name(k.dtype) + "/" +
                      ejk_dtype_name(v.dtype) +
                      "; the ring runs f32, f16 or bf16, one type for all "
                      "three");
    ring->dtype = q.dtype;
    ring->elemBytes = int64_t(ejk_dtype_size(q.dtype));
    ring->threads = std::min(usableCpus(), 16); // more only adds start-up
    ring->batch = q.shape[0];
    ring->seq = q.shape[1];
    ring->heads = q.shape[2];
    ring->headDim = q.shape[3];
    ring->kvHeads = k.shape[2];
    ring->headDimV = v.shape[3];
    if (layout == EJK_RING_ZIGZAG && ring->seq % 2 != 0)
      return fail(EJK_ERROR_INVALID_ARGUMENT,
                  "ejk_ring_create: the zigzag layout needs an even shard "
                  "length, got " +
                      std::to_string(ring->seq));
    if (layout == EJK_RING_ZIGZAG && ring->entries.causal &&
        !ring->entries.window && !ring->entries.zigzagBlocks)
      return fail(EJK_ERROR_FORMAT,
                  "ejk_ring_create: the module has no zigzag blocks ('" +
                      ring->blockName("zzkv") + "')");
    if (ring->kElems() * ring->elemBytes > INT_MAX ||
        ring->vElems() * ring->elemBytes > INT_MAX)
      return fail(EJK_ERROR_INVALID_ARGUMENT,
                  "ejk_ring_create: a key/value shard of 2 GiB or more does "
                  "not fit one MPI message");
    return createStaging(*ring, device);
  };
  status = local();
  int firstFailed = INT_MAX;
  bool ok = allRanksOk(comm, status == EJK_OK, firstFailed);
  if (!ok) {
    delete ring;
    if (status != EJK_OK)
      return status;
    return fail(EJK_ERROR_UNAVAILABLE,
                "ejk_ring_create: rank " + std::to_string(firstFailed) +
                    " failed to set up the ring (its message says why)");
  }
  *out = ring;
  return EJK_OK;
}

} // extern "C"

namespace {
/// The staging buffers of the blocks' operands, on the module's device.
ejk_status createStaging(ejk_ring &ring, ejk_device *device) {
  int64_t e = ring.elemBytes, f = sizeof(float);
  int64_t b = ring.batch, half = ring.seq / 2;
  int64_t qRowBytes = ring.heads * ring.headDim * e,
          oRowBytes = ring.heads * ring.headDimV * e;
  if (ring.entries.zigzagBlocks)
    if (ejk_status s =
            createBuffer(device, b * half * qRowBytes, &ring.queryHalf))
      return s;
  for (ejk_ring::Slot &slot : ring.slots) {
    struct {
      int64_t bytes;
      ejk_buffer **buffer;
      bool wanted;
    } buffers[] = {
        {ring.kElems() * e, &slot.key, true},
        {ring.vElems() * e, &slot.value, true},
        {ring.oElems() * e, &slot.output, true},
        {ring.lElems() * f, &slot.lse, true},
        {ring.seq * ring.seq, &slot.mask, ring.entries.maskedBlock},
        {b * half * ring.kRowBytes(), &slot.keyHalf, ring.entries.zigzagBlocks},
        {b * half * ring.vRowBytes(), &slot.valueHalf,
         ring.entries.zigzagBlocks},
        {b * half * oRowBytes, &slot.outputHalf, ring.entries.zigzagBlocks},
        {b * ring.heads * half * f, &slot.lseHalf, ring.entries.zigzagBlocks},
    };
    for (auto &buffer : buffers)
      if (buffer.wanted)
        if (ejk_status s = createBuffer(device, buffer.bytes, buffer.buffer))
          return s;
  }
  return EJK_OK;
}

/// Chooses the block of step `source` (the rank whose shard is visiting);
/// fills `mask` for a masked block.
Block chooseBlock(const ejk_ring &ring, int rank, int source,
                  std::vector<uint8_t> &mask) {
  const RingEntries &e = ring.entries;
  if (!e.causal && !e.window)
    return Block::Full;
  if (!e.window) {
    if (source == rank)
      return Block::Diag;
    if (ring.layout == EJK_RING_ZIGZAG)
      return source < rank ? Block::ZigzagKv : Block::ZigzagQ;
    return source < rank ? Block::Full : Block::Skip;
  }
  if (source == rank && ring.layout == EJK_RING_CONTIGUOUS)
    return Block::Diag;
  int64_t seq = ring.seq, allowed = 0;
  mask.resize(size_t(seq * seq));
  for (int64_t i = 0; i < seq; ++i) {
    int64_t qPos = ring.position(rank, i);
    for (int64_t j = 0; j < seq; ++j) {
      bool yes = ring.allowed(qPos, ring.position(source, j));
      mask[size_t(i * seq + j)] = yes;
      allowed += yes;
    }
  }
  if (allowed == 0)
    return Block::Skip;
  if (allowed == seq * seq)
    return Block::Full;
  return Block::Masked;
}
} // namespace

extern "C" {

ejk_status ejk_ring_run(ejk_ring *ring, ejk_buffer *query, ejk_buffer *key,
                        ejk_buffer *value, ejk_buffer *output,
                        ejk_buffer *lse) {
  if (ejk_status s = checkRingArg(ring, "ejk_ring_run"))
    return s;
  if (!query || !key || !value || !output)
    return fail(EJK_ERROR_INVALID_ARGUMENT,
                "ejk_ring_run: 'query', 'key', 'value' and 'output' must not "
                "be NULL");
  uint64_t start = nowNs();
  ejk_comm &comm = *ring->comm;
  const int n = comm.size, rank = comm.rank;
  const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
  const float negInf = -std::numeric_limits<float>::infinity();
  ring->steps.assign(size_t(n), ejk_ring_stats{});
  ring->total = ejk_ring_stats{};
  ring->total.ring_size = n;

  // The first local failure; the ring keeps moving after it (blocks are
  // skipped) so that no peer waits for a message that never comes.
  ejk_status status = EJK_OK;
  std::string message;
  auto record = [&](ejk_status s, const std::string &what) {
    if (status == EJK_OK && s != EJK_OK) {
      status = s;
      message = what + ": " + ejk_last_error();
    }
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
  host.keyCur.resize(size_t(kBytes));
  host.keyNext.resize(size_t(kBytes));
  host.valueCur.resize(size_t(vBytes));
  host.valueNext.resize(size_t(vBytes));
  host.accO.resize(size_t(ring->oElems()));
  host.accL.resize(size_t(ring->lElems()));
  parallelFor(ring->oElems(), ring->threads, [&](int64_t from, int64_t to) {
    std::fill(host.accO.begin() + from, host.accO.begin() + to, 0.0f);
  });
  std::fill(host.accL.begin(), host.accL.end(), negInf);
  Bytes &keyCur = host.keyCur, &valueCur = host.valueCur,
        &keyNext = host.keyNext, &valueNext = host.valueNext,
        &partO = host.partO, &scratchK = host.scratchK,
        &scratchV = host.scratchV;
  std::vector<float> &accO = host.accO, &accL = host.accL, &partL = host.partL;
  std::vector<uint8_t> &mask = host.mask;

  /// The host copies the ring needs besides the shards it receives: this
  /// rank's key/value (to send) and, for zigzag blocks, the second half of
  /// its queries. They are read while block 0 runs (on the rank's own
  /// shard, which stays on the device).
  auto readOwnShard = [&] {
    record(ejk_buffer_download(key, keyCur.data(), keyCur.size(), 0),
           "ejk_ring_run: reading 'key'");
    record(ejk_buffer_download(value, valueCur.data(), valueCur.size(), 0),
           "ejk_ring_run: reading 'value'");
    if (status != EJK_OK || !ring->entries.zigzagBlocks ||
        ring->layout != EJK_RING_ZIGZAG)
      return;
    int64_t qRow = ring->heads * ring->headDim * e;
    Bytes q(size_t(ring->qElems() * e)), qHalf(size_t(batch * half * qRow));
    record(ejk_buffer_download(query, q.data(), q.size(), 0),
           "ejk_ring_run: reading 'query'");
    copyRows(qHalf.data(), q.data(), batch, seq, half, half, 0, half, qRow);
    record(ejk_buffer_upload(ring->queryHalf, qHalf.data(), qHalf.size(), 0),
           "ejk_ring_run: staging the query half");
  };

  /// Rows [0, rows) of each batch of a shard into `buffer`: straight from
  /// the shard when they are contiguous (one batch or the whole shard).
  auto stageRows = [&](ejk_buffer *buffer, const Bytes &shard, Bytes &scratch,
                       int64_t rows, int64_t rowBytes) {
    if (batch == 1 || rows == seq) {
      record(ejk_buffer_upload(buffer, shard.data(),
                               size_t(batch * rows * rowBytes), 0),
             "ejk_ring_run: staging");
      return;
    }
    scratch.resize(size_t(batch * rows * rowBytes));
    copyRows(scratch.data(), shard.data(), batch, seq, rows, 0, 0, rows,
             rowBytes);
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
  // key/value bytes are `k`, `v`) into slot `step % 2` and says what to run.
  auto stage = [&](int step, const Bytes &k, const Bytes &v) {
    Plan plan;
    int source = (rank - step + n) % n;
    Block block =
        status == EJK_OK ? chooseBlock(*ring, rank, source, mask) : Block::Skip;
    if (block == Block::Skip)
      return plan;
    ejk_ring::Slot &slot = ring->slots[step % 2];
    plan.output = slot.output;
    plan.lse = slot.lse;
    plan.rows = seq;
    if (block == Block::ZigzagKv) {
      stageRows(slot.keyHalf, k, scratchK, half, ring->kRowBytes());
      stageRows(slot.valueHalf, v, scratchV, half, ring->vRowBytes());
      plan.entry = ring->blockName("zzkv");
      plan.inputs = {query, slot.keyHalf, slot.valueHalf};
      return plan;
    }
    // The rank's own shard is on the device already: the caller's.
    ejk_buffer *kb = key, *vb = value;
    if (source != rank) {
      stageRows(slot.key, k, scratchK, seq, ring->kRowBytes());
      stageRows(slot.value, v, scratchV, seq, ring->vRowBytes());
      kb = slot.key;
      vb = slot.value;
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
    return plan;
  };
  /// Reads a finished plan's output and lse back into partO/partL.
  auto readBack = [&](const Plan &plan) {
    partO.resize(size_t(batch * plan.rows * ring->heads * ring->headDimV * e));
    partL.resize(size_t(batch * ring->heads * plan.rows));
    record(ejk_buffer_download(plan.output, partO.data(), partO.size(), 0),
           "ejk_ring_run: block output");
    record(ejk_buffer_download(plan.lse, partL.data(), partL.size() * 4, 0),
           "ejk_ring_run: block lse");
    return status == EJK_OK;
  };

  // Step t: start block t; while it runs, send shard t on and receive
  // shard t+1 (MPI), read back block t-1's output and merge it (worker
  // threads), wait for shard t+1 and stage it into the other slot. Where the
  // device has a copy lane those copies overlap the block; elsewhere they wait
  // for it, as they did before.
  uint64_t t0 = nowNs();
  Plan current = stage(0, keyCur, valueCur), previous;
  ring->steps[0].staging_ns += since(t0);
  ring->steps[0].host_ns += since(t0);
  for (int step = 0; step < n; ++step) {
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
    MPI_Request requests[4];
    int numRequests = 0;
    if (step + 1 < n) {
      MPI_Irecv(keyNext.data(), int(kBytes), MPI_BYTE, prev, 0, comm.comm,
                &requests[numRequests++]);
      MPI_Irecv(valueNext.data(), int(vBytes), MPI_BYTE, prev, 1, comm.comm,
                &requests[numRequests++]);
      MPI_Isend(keyCur.data(), int(kBytes), MPI_BYTE, next, 0, comm.comm,
                &requests[numRequests++]);
      MPI_Isend(valueCur.data(), int(vBytes), MPI_BYTE, next, 1, comm.comm,
                &requests[numRequests++]);
    }

    std::thread merger;
    uint64_t mergeNs = 0;
    if (!previous.entry.empty()) {
      uint64_t readStart = nowNs();
      if (readBack(previous))
        merger = std::thread([&, begin = previous.rowBegin,
                              rows = previous.rows] {
          uint64_t m0 = nowNs();
          mergeBlock(accO, accL, partO, partL, ring->mergeShape(), begin, rows);
          mergeNs = since(m0);
        });
      st.staging_ns += since(readStart);
    }
    // MPI moves a large message inside its calls: wait here, on this
    // thread, while the merge runs on the others.
    uint64_t waitStart = nowNs();
    int rc = numRequests
                 ? MPI_Waitall(numRequests, requests, MPI_STATUSES_IGNORE)
                 : MPI_SUCCESS;
    uint64_t commDone = nowNs();
    uint64_t waitNs = commDone - waitStart;
    Plan upcoming;
    if (rc == MPI_SUCCESS && step + 1 < n) {
      uint64_t stageStart = nowNs();
      upcoming = stage(step + 1, keyNext, valueNext);
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
      uint64_t computeDone = nowNs();
      uint64_t kernel = 0;
      ejk_invocation_time_ns(invocation, &kernel);
      ejk_invocation_destroy(invocation);
      st.compute_ns = kernel;
      // The transfer is exposed when it ended after the block did.
      st.exposed_comm_ns = commDone > computeDone ? commDone - computeDone : 0;
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
    st.total_ns = since(stepStart);
    st.ring_size = n;
  }
  if (!previous.entry.empty()) {
    ejk_ring_stats &last = ring->steps.back();
    uint64_t r0 = nowNs();
    bool read = readBack(previous);
    last.staging_ns += since(r0);
    uint64_t m0 = nowNs();
    if (read)
      mergeBlock(accO, accL, partO, partL, ring->mergeShape(),
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

  int firstFailed = INT_MAX;
  if (!allRanksOk(&comm, status == EJK_OK, firstFailed)) {
    ring->total.total_ns = since(start);
    if (status != EJK_OK)
      return fail(status, "rank " + std::to_string(rank) + ": " + message);
    return fail(EJK_ERROR_UNAVAILABLE,
                "ejk_ring_run: ring attention failed on rank " +
                    std::to_string(firstFailed) + " (its message says why)");
  }
  Bytes &out = host.out;
  out.resize(size_t(ring->oElems() * e));
  parallelFor(ring->oElems(), ring->threads, [&](int64_t from, int64_t to) {
    for (int64_t i = from; i < to; ++i)
      storeFloat(out.data(), ring->dtype, i, accO[size_t(i)]);
  });
  if (ejk_status s = ejk_buffer_upload(output, out.data(), out.size(), 0))
    return failFromRuntime(s, "ejk_ring_run: writing 'output'");
  if (lse)
    if (ejk_status s = ejk_buffer_upload(lse, accL.data(), accL.size() * 4, 0))
      return failFromRuntime(s, "ejk_ring_run: writing 'lse'");
  ring->total.total_ns = since(start);
  return EJK_OK;
}

ejk_status ejk_ring_last_stats(ejk_ring *ring, int step,
                               ejk_ring_stats *stats) {
  if (ejk_status s = checkRingArg(ring, "ejk_ring_last_stats"))
    return s;
  if (!stats)
    return fail(EJK_ERROR_INVALID_ARGUMENT,
                "ejk_ring_last_stats: 'stats' is NULL");
  if (step == -1) {
    *stats = ring->total;
    return EJK_OK;
  }
  if (step < 0 || size_t(step) >= ring->steps.size())
    return fail(EJK_ERROR_INVALID_ARGUMENT,
                "ejk_ring_last_stats: step " + std::to_string(step) +
                    " is outside [0, " + std::to_string(ring->steps.size()) +
                    ") (steps of the last run)");
  *stats = ring->steps[size_t(step)];
  return EJK_OK;
}

ejk_status ejk_ring_destroy(ejk_ring *ring) {
  if (!ring)
    return EJK_OK;
  for (ejk_ring::Slot &slot : ring->slots)
    for (ejk_buffer *b :
         {slot.key, slot.value, slot.output, slot.lse, slot.mask, slot.keyHalf,
          slot.valueHalf, slot.outputHalf, slot.lseHalf})
      ejk_buffer_destroy(b);
  ejk_buffer_destroy(ring->queryHalf);
  delete ring;
  return EJK_OK;
}

} // extern "C"
