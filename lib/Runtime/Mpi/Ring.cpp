//===- Ring.cpp - ring attention over MPI: communicators and rings --------===//
//
// The communicator (a duplicate of the caller's, errors returned), the ring
// handle bound to a module's `<entry>__ring__...` block entries (their names
// say ring size, causal and window: Attention/Ring/Expand.cpp), the choice
// of a step's block from the global positions of the shards' rows, and the
// handle's stats and release. The forward run is RingForward.cpp, the
// backward RingBackward.cpp (docs/ops/ring.md).
//
//===----------------------------------------------------------------------===//

#include "RingState.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

using namespace ejk::ring;

namespace {
thread_local std::string lastError;
} // namespace

namespace ejk::ring {

ejk_status fail(ejk_status status, std::string message) {
  lastError = std::move(message);
  return status;
}

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

int waitBeside(int count, MPI_Request *requests, ejk_invocation *block,
               unsigned pollUs) {
  if (count == 0)
    return MPI_SUCCESS;
  // ejk_invocation_time_ns answers EJK_OK only once the block is done.
  uint64_t unused = 0;
  // Each sleep is a tenth of the wait so far, at least min(100, pollUs) and
  // at most pollUs microseconds: every wake-up preempts the block on the
  // rank's core, and a long block needs few of them, while a short block
  // is noticed done within about a tenth of its time.
  const unsigned floorUs = std::min(100u, pollUs);
  const uint64_t start = nowNs();
  while (block && pollUs > 0 &&
         ejk_invocation_time_ns(block, &unused) != EJK_OK) {
    int done = 0;
    if (int rc = MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE))
      return rc;
    if (done)
      return MPI_SUCCESS;
    uint64_t tenthUs = (nowNs() - start) / 10000;
    std::this_thread::sleep_for(std::chrono::microseconds(
        std::clamp<uint64_t>(tenthUs, floorUs, pollUs)));
  }
  return MPI_Waitall(count, requests, MPI_STATUSES_IGNORE);
}

const char *roleName(Block block) {
  switch (block) {
  case Block::Full:
    return "full";
  case Block::Diag:
    return "diag";
  case Block::Masked:
    return "masked";
  case Block::ZigzagKv:
    return "zzkv";
  case Block::ZigzagQ:
    return "zzq";
  case Block::Skip:
    break;
  }
  return "skip";
}

ejk_status checkSegments(const ejk_ring &ring, ejk_buffer *qSegments,
                         ejk_buffer *kvSegments, const char *what) {
  std::string name = "ring '" + ring.entries.prefix + "'";
  if (!ring.entries.segments) {
    if (qSegments || kvSegments)
      return fail(EJK_ERROR_INVALID_ARGUMENT,
                  std::string(what) + ": " + name +
                      " was compiled without segment ids; pass NULL "
                      "'q_segment_ids' and 'kv_segment_ids'");
    return EJK_OK;
  }
  if (!qSegments || !kvSegments)
    return fail(EJK_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": " + name +
                    " was compiled with segment ids: pass 'q_segment_ids' "
                    "and 'kv_segment_ids' (ejk_ring_run_segments, "
                    "ejk_ring_run_backward_segments)");
  const std::pair<ejk_buffer *, const char *> args[] = {
      {qSegments, "'q_segment_ids'"}, {kvSegments, "'kv_segment_ids'"}};
  for (const auto &[buffer, argName] : args) {
    size_t bytes = 0;
    if (ejk_status s = ejk_buffer_size(buffer, &bytes))
      return failFromRuntime(s, std::string(what) + ": " + argName);
    if (int64_t(bytes) < ring.segBytes())
      return fail(EJK_ERROR_INVALID_ARGUMENT,
                  std::string(what) + ": " + argName + " has " +
                      std::to_string(bytes) + " bytes; this rank's shard of " +
                      name + " needs " + std::to_string(ring.segBytes()) +
                      " (i32 [" + std::to_string(ring.batch) + ", " +
                      std::to_string(ring.seq) + "])");
  }
  return EJK_OK;
}

ejk_status checkRingArg(ejk_ring *ring, const char *what) {
  if (!ring)
    return fail(EJK_ERROR_INVALID_ARGUMENT,
                std::string(what) + ": 'ring' is NULL");
  return EJK_OK;
}

ejk_status createBuffer(ejk_device *device, int64_t bytes, ejk_buffer **out,
                        const char *what) {
  if (ejk_status s = ejk_buffer_create(device, size_t(bytes), out); s != EJK_OK)
    return failFromRuntime(s, what);
  return EJK_OK;
}

bool segmentsMeet(const ejk_ring &ring, const std::vector<int32_t> &qIds,
                  int64_t qBegin, int64_t qRows,
                  const std::vector<unsigned char> &kvIds, int64_t kvRows) {
  const int64_t seq = ring.seq;
  std::vector<int32_t> queries;
  for (int64_t b = 0; b < ring.batch; ++b) {
    const int32_t *q = qIds.data() + b * seq + qBegin;
    queries.assign(q, q + qRows);
    std::sort(queries.begin(), queries.end());
    for (int64_t j = 0; j < kvRows; ++j) {
      int32_t id;
      std::memcpy(&id, kvIds.data() + (b * seq + j) * 4, 4);
      if (std::binary_search(queries.begin(), queries.end(), id))
        return true;
    }
  }
  return false;
}

Block skipBySegments(const ejk_ring &ring, Block block, int rank, int source,
                     const std::vector<unsigned char> &kvIds) {
  if (!ring.entries.segments || block == Block::Skip || source == rank)
    return block;
  int64_t seq = ring.seq, half = seq / 2;
  int64_t qBegin = block == Block::ZigzagQ ? half : 0;
  int64_t qRows = block == Block::ZigzagQ ? half : seq;
  int64_t kvRows = block == Block::ZigzagKv ? half : seq;
  return segmentsMeet(ring, ring.host.qSegments, qBegin, qRows, kvIds, kvRows)
             ? block
             : Block::Skip;
}

bool allRanksOk(ejk_comm *comm, bool ok, int &firstFailed) {
  int mine = ok ? INT_MAX : comm->rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm->comm);
  firstFailed = first;
  return first == INT_MAX;
}

ejk_status agreeAcrossRanks(ejk_comm &comm, ejk_status local,
                            const std::string &detail, const std::string &head,
                            const std::string &tail) {
  int firstFailed = INT_MAX;
  if (allRanksOk(&comm, local == EJK_OK, firstFailed))
    return EJK_OK;
  if (local != EJK_OK)
    return fail(local, "rank " + std::to_string(comm.rank) + ": " + detail);
  std::string text = head + " " + std::to_string(firstFailed);
  if (!tail.empty())
    text += " " + tail;
  return fail(EJK_ERROR_UNAVAILABLE, text + " (its message says why)");
}

} // namespace ejk::ring

namespace {
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
    if (role.rfind("grad_", 0) == 0)
      out.gradBlocks = true;
    if (role == "gfull" || role == "gzhi0")
      out.gatherBlocks = true;
    if (role == "gall" || role == "gchi0")
      out.wholeBlocks = true;
  }
  if (!found)
    return fail(EJK_ERROR_NOT_FOUND,
                "ejk_ring_create: the module has no ring attention entry '" +
                    entry + "' (no entry named '" + head +
                    "...'); its entries: " + names);
  return EJK_OK;
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
  ring->device = device;
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
    size_t numInputs = 0, numOutputs = 0;
    if (ejk_status s = ejk_module_entry_signature(module, full.c_str(),
                                                  &numInputs, &numOutputs))
      return failFromRuntime(s, "ejk_ring_create");
    ring->entries.segments = numInputs == 5;
    for (size_t i = 3; ring->entries.segments && i < 5; ++i) {
      ejk_tensor_desc segments;
      if (ejk_status s =
              ejk_module_entry_arg(module, full.c_str(), 0, i, &segments))
        return failFromRuntime(s, "ejk_ring_create");
      if (segments.dtype != EJK_DTYPE_I32)
        return fail(EJK_ERROR_FORMAT, "ejk_ring_create: block '" + full +
                                          "' input " + std::to_string(i) +
                                          " is " +
                                          ejk_dtype_name(segments.dtype) +
                                          "; segment ids are i32");
    }
    ring->dtype = q.dtype;
    ring->elemBytes = int64_t(ejk_dtype_size(q.dtype));
    ring->threads = std::min(usableCpus(), 16); // more only adds start-up
    // A CPU block shares the rank's cores with the wait for its transfers:
    // poll gently (docs/ops/ring.md, "Measurements").
    const char *kind = "";
    ejk_device_kind(device, &kind);
    ring->pollUs = std::strcmp(kind, "cpu") == 0 ? 1000 : 0;
    if (const char *env = std::getenv("EJK_RING_POLL_US"))
      ring->pollUs = unsigned(std::strtoul(env, nullptr, 10));
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
  bool segments = ring.entries.segments;
  if (ring.entries.zigzagBlocks)
    if (ejk_status s =
            createBuffer(device, b * half * qRowBytes, &ring.queryHalf))
      return s;
  if (ring.entries.zigzagBlocks && segments)
    if (ejk_status s = createBuffer(device, b * half * 4, &ring.qSegmentsHalf))
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
        {ring.segBytes(), &slot.kvSegments, segments},
        {b * half * 4, &slot.kvSegmentsHalf,
         segments && ring.entries.zigzagBlocks},
    };
    for (auto &buffer : buffers)
      if (buffer.wanted)
        if (ejk_status s = createBuffer(device, buffer.bytes, buffer.buffer))
          return s;
  }
  return EJK_OK;
}

} // namespace

namespace ejk::ring {
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
} // namespace ejk::ring

extern "C" {

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
  ring->unregisterHost();
  ring->devices.close();
  for (ejk_ring::Slot &slot : ring->slots)
    for (ejk_buffer *b :
         {slot.key, slot.value, slot.output, slot.lse, slot.mask, slot.keyHalf,
          slot.valueHalf, slot.outputHalf, slot.lseHalf, slot.kvSegments,
          slot.kvSegmentsHalf})
      ejk_buffer_destroy(b);
  for (ejk_ring::GradSlot &slot : ring->gradSlots)
    for (ejk_buffer *b : {slot.key, slot.value, slot.dQuery, slot.dKey,
                          slot.dValue, slot.mask, slot.kvSegments})
      ejk_buffer_destroy(b);
  for (ejk_buffer *b : {ring->queryHalf, ring->qSegmentsHalf, ring->outputHalf,
                        ring->dOutputHalf, ring->lseHalf, ring->gatherKey,
                        ring->gatherValue, ring->wholeKey, ring->wholeValue})
    ejk_buffer_destroy(b);
  delete ring;
  return EJK_OK;
}

} // extern "C"
