//===- RingDevice.cpp - the forward with key/value GPU to GPU -------------===//
//
// The device-copy form of ejk_ring_run (docs/ops/ring-gpus.md, "Key/value GPU
// to GPU"). Where every rank's GPU can reach the others' through CUDA
// (RingCuda.h), a rank gathers the whole sequence's keys and values on its
// GPU in natural order: its own shard by device copies, the others' from
// their owners' GPUs. A block of its queries against every key they may see
// is then the final output and lse of those rows, so nothing is merged and
// nothing crosses the host:
// - non-causal: `gall`, the S queries against all N S keys, written straight
//   into the caller's output and lse;
// - causal zigzag: `gclo<r>` (chunk r against chunks 0..r) and `gchi<r>`
//   (chunk 2N-1-r against chunks 0..2N-1-r), causal with the diagonal
//   bottom-right; the first writes the front half of the output in place,
//   the second's half and both lse halves are copied into place on the
//   device.
//
//===----------------------------------------------------------------------===//

#include "RingState.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

using namespace ejk::ring;

namespace ejk::ring {

bool useDeviceCopies(ejk_ring &ring, bool direct, bool segments,
                     std::string &why) {
  const RingEntries &e = ring.entries;
  ejk_comm &comm = *ring.comm;
  const char *env = std::getenv("EJK_RING_DEVICE_COPY");
  bool off = env && std::strcmp(env, "0") == 0;
  bool fits = !direct && comm.size > 1 && e.wholeBlocks && !segments &&
              !e.window && ring.batch == 1 &&
              (!e.causal || ring.layout == EJK_RING_ZIGZAG);
  // Whether every rank wants it, and whether every rank has the switch
  // on: a rank that could take it says why another did not.
  int mine[2] = {fits && !off && ring.deviceCopyFailure.empty(), !off},
      all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, comm.comm);
  if (!all[0]) {
    ring.devices.close();
    why = !fits     ? ""
          : off     ? "EJK_RING_DEVICE_COPY=0"
          : !all[1] ? "EJK_RING_DEVICE_COPY=0 on another rank"
          : !ring.deviceCopyFailure.empty()
              ? ring.deviceCopyFailure
              : "another rank's ring or device does not allow it";
    return false;
  }
  const int64_t kBytes = ring.seq * ring.kRowBytes(),
                vBytes = ring.seq * ring.vRowBytes();
  std::string pending;
  for (auto [buffer, bytes] : {std::pair(&ring.wholeKey, comm.size * kBytes),
                               std::pair(&ring.wholeValue, comm.size * vBytes)})
    if (pending.empty() && !*buffer &&
        ejk_buffer_create_exportable(ring.device, size_t(bytes), buffer) !=
            EJK_OK)
      pending = std::string("no exportable buffers: ") + ejk_last_error();
  if (!ring.devices.open(comm.comm, comm.rank, comm.size, ring.device,
                         {ring.wholeKey, ring.wholeValue},
                         size_t(kBytes + vBytes), pending, why)) {
    // The reason is every rank's: none tries again.
    ring.deviceCopyFailure = why;
    for (ejk_buffer **buffer : {&ring.wholeKey, &ring.wholeValue}) {
      ejk_buffer_destroy(*buffer);
      *buffer = nullptr;
    }
    return false;
  }
  ring.transport = "device copy (CUDA IPC), whole sequence";
  return true;
}

ejk_status runWholeSequence(ejk_ring &ring, uint64_t start, ejk_buffer *query,
                            ejk_buffer *key, ejk_buffer *value,
                            ejk_buffer *output, ejk_buffer *lse) {
  ejk_comm &comm = *ring.comm;
  const int n = comm.size, rank = comm.rank;
  const bool causal = ring.entries.causal;
  const int64_t seq = ring.seq, half = seq / 2;
  const int64_t kRow = ring.kRowBytes(), vRow = ring.vRowBytes(),
                kBytes = seq * kRow;
  const int64_t qRow = ring.heads * ring.headDim * ring.elemBytes,
                oRow = ring.heads * ring.headDimV * ring.elemBytes;
  FirstFailure failure;
  auto since = [](uint64_t t0) { return nowNs() - t0; };
  ring.steps.assign(causal ? 3 : 2, ejk_ring_stats{});
  ring.total = ejk_ring_stats{};
  ring.total.ring_size = n;

  // A shard's pieces as (first local row, rows, first global row): the
  // whole shard, or the zigzag chunks q and 2N-1-q.
  auto pieces = [&](int q) -> std::vector<std::array<int64_t, 3>> {
    if (!causal)
      return {{0, seq, q * seq}};
    return {{0, half, q * half}, {half, half, (2 * n - 1 - q) * half}};
  };
  // Rank r's causal blocks read keys up to chunk 2N-1-r only.
  const int64_t keysSeen = causal ? (2 * n - rank) * half : n * seq;

  // Step 0, the gather. This rank's shard into the whole buffers and the
  // exchange buffer, and the second half of its queries (gchi); then every
  // rank's exchange buffer holds its shard (the barrier), and the others'
  // come from their GPUs.
  ejk_ring_stats &gather = ring.steps[0];
  uint64_t t0 = nowNs();
  {
    // One submission each for key and value: the shard's pieces are rows
    // of `rows` keys, `stride` keys apart in the whole buffer.
    const auto own = pieces(rank);
    const int64_t rows = own[0][1], at = own[0][2];
    const int64_t stride = own.size() > 1 ? own[1][2] - at : 0;
    for (auto [from, into, row, what] :
         {std::tuple(key, ring.wholeKey, kRow, "ejk_ring_run: copying 'key'"),
          std::tuple(value, ring.wholeValue, vRow,
                     "ejk_ring_run: copying 'value'")})
      failure.record(ejk_buffer_copy_rows(
                         from, 0, size_t(rows * row), into, size_t(at * row),
                         size_t(stride * row), size_t(rows * row), own.size()),
                     what);
  }
  if (causal)
    failure.record(ejk_buffer_copy(query, size_t(half * qRow), ring.queryHalf,
                                   0, size_t(half * qRow)),
                   "ejk_ring_run: copying the query half");
  gather.staging_ns = since(t0);
  uint64_t t1 = nowNs();
  DeviceCopies &devices = ring.devices;
  bool copied = failure.status == EJK_OK;
  for (auto [local, rows, global] : pieces(rank))
    copied =
        copied &&
        devices.toExchange(0, size_t(global * kRow), size_t(local * kRow),
                           size_t(rows * kRow)) &&
        devices.toExchange(1, size_t(global * vRow),
                           size_t(kBytes + local * vRow), size_t(rows * vRow));
  copied = devices.wait() && copied;
  // A rank that failed still takes the barrier: no peer waits for it.
  MPI_Barrier(comm.comm);
  for (int q = 0; q < n && copied; ++q) {
    if (q == rank)
      continue;
    for (auto [local, rows, global] : pieces(q))
      if (global < keysSeen)
        copied = copied &&
                 devices.fromPeer(q, size_t(local * kRow), 0,
                                  size_t(global * kRow), size_t(rows * kRow)) &&
                 devices.fromPeer(q, size_t(kBytes + local * vRow), 1,
                                  size_t(global * vRow), size_t(rows * vRow));
  }
  copied = devices.wait() && copied;
  if (!copied && failure.status == EJK_OK) {
    failure.status = EJK_ERROR_IO;
    failure.message =
        "ejk_ring_run: copying key/value between GPUs: " + devices.error();
  }
  // Nothing runs beside the gather: all of it is exposed.
  gather.exposed_comm_ns = since(t1);
  gather.total_ns = since(t0);
  gather.host_ns = gather.staging_ns;
  gather.ring_size = n;

  // The blocks, queued back to back on the device.
  struct Plan {
    std::string entry;
    std::vector<ejk_buffer *> inputs;
    ejk_buffer *outputs[2];
  };
  std::vector<Plan> plans;
  const std::string r = std::to_string(rank);
  ejk_ring::Slot &slot0 = ring.slots[0], &slot1 = ring.slots[1];
  if (!causal) {
    plans.push_back({ring.blockName("gall"),
                     {query, ring.wholeKey, ring.wholeValue},
                     {output, lse ? lse : slot0.lse}});
  } else {
    // The front half of the queries and of the output are the buffers'
    // front: read and written in place.
    plans.push_back({ring.blockName(("gclo" + r).c_str()),
                     {query, ring.wholeKey, ring.wholeValue},
                     {output, slot0.lseHalf}});
    plans.push_back({ring.blockName(("gchi" + r).c_str()),
                     {ring.queryHalf, ring.wholeKey, ring.wholeValue},
                     {slot0.outputHalf, slot1.lseHalf}});
  }
  std::vector<ejk_invocation *> invocations(plans.size(), nullptr);
  std::vector<uint64_t> started(plans.size(), 0);
  for (size_t i = 0; i < plans.size() && failure.status == EJK_OK; ++i) {
    started[i] = nowNs();
    failure.record(ejk_invoke_async(ring.module, plans[i].entry.c_str(),
                                    plans[i].inputs.data(),
                                    plans[i].inputs.size(), plans[i].outputs, 2,
                                    &invocations[i]),
                   "ejk_ring_run: block '" + plans[i].entry + "'");
  }
  for (size_t i = 0; i < plans.size(); ++i) {
    ejk_ring_stats &st = ring.steps[i + 1];
    st.ring_size = n;
    if (!invocations[i]) {
      ++ring.total.steps_skipped;
      continue;
    }
    failure.record(ejk_invocation_wait(invocations[i]), "ejk_ring_run: block");
    uint64_t kernel = 0;
    ejk_invocation_time_ns(invocations[i], &kernel);
    ejk_invocation_destroy(invocations[i]);
    st.compute_ns = kernel;
    st.total_ns = since(started[i]);
    ++ring.total.steps_computed;
  }
  // Causal: the second chunk's output, and both chunks' lse, into place.
  if (causal && failure.status == EJK_OK) {
    ejk_ring_stats &last = ring.steps.back();
    uint64_t c0 = nowNs();
    failure.record(ejk_buffer_copy(slot0.outputHalf, 0, output,
                                   size_t(half * oRow), size_t(half * oRow)),
                   "ejk_ring_run: writing 'output'");
    // Each head's row of S/2 into the front and back of its row of S:
    // one submission for each half (a copy per head cost about 0.3-0.8 ms
    // each with 4 ranks on one GPU, 24 ms a run).
    const size_t lseRow = size_t(half) * sizeof(float);
    const size_t heads = size_t(ring.heads);
    for (int part = 0; part < 2 && lse; ++part)
      failure.record(ejk_buffer_copy_rows(part ? slot1.lseHalf : slot0.lseHalf,
                                          0, lseRow, lse, size_t(part) * lseRow,
                                          2 * lseRow, lseRow, heads),
                     "ejk_ring_run: writing 'lse'");
    last.staging_ns += since(c0);
    last.host_ns += since(c0);
    last.total_ns += since(c0);
  }
  for (const ejk_ring_stats &st : ring.steps) {
    ring.total.compute_ns += st.compute_ns;
    ring.total.exposed_comm_ns += st.exposed_comm_ns;
    ring.total.host_ns += st.host_ns;
    ring.total.staging_ns += st.staging_ns;
  }
  ring.total.total_ns = since(start);
  return agreeAcrossRanks(comm, failure.status, failure.message,
                          "ejk_ring_run: ring attention failed on rank", "");
}

} // namespace ejk::ring
