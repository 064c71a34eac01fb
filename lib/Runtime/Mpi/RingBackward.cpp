//===- RingBackward.cpp - ring attention's backward -----------------------===//
//
// ejk_ring_run_backward (docs/ops/ring.md, "Backward"): the ring of the
// forward run again, each step running the `flash_attention_grad` block of
// the same role (`<prefix>__grad_<role>`) on the local query, output,
// d_output and lse against the visiting key/value shard. The blocks take
// the forward's merged output and lse, so their probabilities are the
// whole sequence's and their gradients add up: d_query stays on the rank
// (an f32 sum on the host), d_key/d_value are f32 sums that travel around
// the ring behind their key/value shard and reach the shard's owner after
// the last step.
//
// Per step t: start block t; post the transfer of shard t+1's key/value;
// read block t-1's gradients back and add them (d_query locally, d_key and
// d_value into the sums of shard t-1, received from the previous rank while
// block t-1 ran), then send those sums on; wait for shard t+1 and stage it
// into the other slot; wait for block t. The sums of the last block take
// one more hop, to their owner, after the loop. With segment ids each
// shard's kv_segment_ids travel with its key/value, as in the forward.
//
//===----------------------------------------------------------------------===//

#include "RingState.h"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

using namespace ejk::ring;

namespace {

/// The backward's device buffers, on its first run.
ejk_status createGradStaging(ejk_ring &ring) {
  const char *what = "ejk_ring_run_backward: staging buffer";
  int64_t e = ring.elemBytes, b = ring.batch, half = ring.seq / 2;
  int64_t oRowBytes = ring.heads * ring.headDimV * e;
  ejk_device *device = ring.device;
  if (ring.entries.zigzagBlocks) {
    struct {
      int64_t bytes;
      ejk_buffer **buffer;
    } halves[] = {{b * half * oRowBytes, &ring.outputHalf},
                  {b * half * oRowBytes, &ring.dOutputHalf},
                  {b * ring.heads * half * 4, &ring.lseHalf}};
    for (auto &h : halves)
      if (ejk_status s = createBuffer(device, h.bytes, h.buffer, what))
        return s;
  }
  for (ejk_ring::GradSlot &slot : ring.gradSlots) {
    struct {
      int64_t bytes;
      ejk_buffer **buffer;
      bool wanted;
    } buffers[] = {
        {ring.kElems() * e, &slot.key, true},
        {ring.vElems() * e, &slot.value, true},
        {ring.qElems() * e, &slot.dQuery, true},
        {ring.kElems() * e, &slot.dKey, true},
        {ring.vElems() * e, &slot.dValue, true},
        {ring.seq * ring.seq, &slot.mask, ring.entries.maskedBlock},
        {ring.segBytes(), &slot.kvSegments, ring.entries.segments},
    };
    for (auto &buffer : buffers)
      if (buffer.wanted)
        if (ejk_status s =
                createBuffer(device, buffer.bytes, buffer.buffer, what))
          return s;
  }
  ring.gradStaging = true;
  return EJK_OK;
}

/// What this rank can check alone before the ring moves: the backward
/// blocks exist, the buffers hold a shard, the sums fit one MPI message.
ejk_status checkBackward(ejk_ring &ring, ejk_buffer *const (&args)[10],
                         ejk_buffer *qSegments, ejk_buffer *kvSegments) {
  static const char *names[10] = {"query",   "key",      "value",   "output",
                                  "lse",     "d_output", "d_query", "d_key",
                                  "d_value", nullptr};
  const RingEntries &entries = ring.entries;
  if (!entries.gradBlocks)
    return fail(EJK_ERROR_NOT_FOUND,
                "ejk_ring_run_backward: the module has no backward blocks "
                "for ring '" +
                    entries.prefix + "' (no entry '" + entries.prefix +
                    "__grad_full'): compile the ring entry with an ejkc that "
                    "emits them (docs/ops/ring.md)");
  int64_t e = ring.elemBytes;
  int64_t needed[9] = {ring.qElems() * e, ring.kElems() * e, ring.vElems() * e,
                       ring.oElems() * e, ring.lElems() * 4, ring.oElems() * e,
                       ring.qElems() * e, ring.kElems() * e, ring.vElems() * e};
  for (int i = 0; i < 9; ++i) {
    std::string name = std::string("'") + names[i] + "'";
    if (!args[i])
      return fail(EJK_ERROR_INVALID_ARGUMENT,
                  "ejk_ring_run_backward: " + name + " is NULL");
    size_t bytes = 0;
    if (ejk_status s = ejk_buffer_size(args[i], &bytes))
      return failFromRuntime(s, "ejk_ring_run_backward: " + name);
    if (int64_t(bytes) < needed[i])
      return fail(EJK_ERROR_INVALID_ARGUMENT,
                  "ejk_ring_run_backward: " + name + " has " +
                      std::to_string(bytes) + " bytes; this rank's shard of " +
                      "ring '" + entries.prefix + "' needs " +
                      std::to_string(needed[i]));
  }
  if (ejk_status s =
          checkSegments(ring, qSegments, kvSegments, "ejk_ring_run_backward"))
    return s;
  if (ring.kElems() * 4 > INT_MAX || ring.vElems() * 4 > INT_MAX)
    return fail(EJK_ERROR_INVALID_ARGUMENT,
                "ejk_ring_run_backward: the f32 d_key/d_value sums of a "
                "shard are 2 GiB or more: they do not fit one MPI message");
  if (!ring.gradStaging)
    return createGradStaging(ring);
  return EJK_OK;
}

/// What a step runs: its backward block with the operands staged in a
/// slot, and where its gradients go.
struct GradPlan {
  std::string entry; // empty: skipped
  std::vector<ejk_buffer *> inputs;
  ejk_buffer *outputs[3] = {nullptr, nullptr, nullptr};
  /// d_query rows [qBegin, qBegin + qRows) of the shard; d_key/d_value
  /// rows [0, kRows) of the visiting shard.
  int64_t qBegin = 0, qRows = 0, kRows = 0;
};

} // namespace

extern "C" {

ejk_status ejk_ring_run_backward(ejk_ring *ring, ejk_buffer *query,
                                 ejk_buffer *key, ejk_buffer *value,
                                 ejk_buffer *output, ejk_buffer *lse,
                                 ejk_buffer *dOutput, ejk_buffer *dQuery,
                                 ejk_buffer *dKey, ejk_buffer *dValue) {
  return ejk_ring_run_backward_segments(ring, query, key, value, nullptr,
                                        nullptr, output, lse, dOutput, dQuery,
                                        dKey, dValue);
}

ejk_status ejk_ring_run_backward_segments(
    ejk_ring *ring, ejk_buffer *query, ejk_buffer *key, ejk_buffer *value,
    ejk_buffer *qSegments, ejk_buffer *kvSegments, ejk_buffer *output,
    ejk_buffer *lse, ejk_buffer *dOutput, ejk_buffer *dQuery, ejk_buffer *dKey,
    ejk_buffer *dValue) {
  if (ejk_status s = checkRingArg(ring, "ejk_ring_run_backward"))
    return s;
  uint64_t start = nowNs();
  ejk_comm &comm = *ring->comm;
  const int n = comm.size, rank = comm.rank;
  const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
  ring->steps.assign(size_t(n), ejk_ring_stats{});
  ring->total = ejk_ring_stats{};
  ring->total.ring_size = n;

  // Every rank learns whether all can run before the ring moves: a bad
  // buffer on one rank must not leave the others waiting.
  ejk_buffer *const args[10] = {query,   key,    value, output, lse,
                                dOutput, dQuery, dKey,  dValue, nullptr};
  {
    ejk_status s = checkBackward(*ring, args, qSegments, kvSegments);
    if (ejk_status agreed = agreeAcrossRanks(
            comm, s, s ? ejk_ring_last_error() : "",
            "ejk_ring_run_backward: rank", "cannot run the backward"))
      return agreed;
  }

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
  const int64_t qRow = ring->heads * ring->headDim,
                kRow = ring->kvHeads * ring->headDim,
                vRow = ring->kvHeads * ring->headDimV;
  ejk_ring::HostBuffers &host = ring->host;
  host.keyCur.resize(size_t(kBytes));
  host.keyNext.resize(size_t(kBytes));
  host.valueCur.resize(size_t(vBytes));
  host.valueNext.resize(size_t(vBytes));
  Bytes &keyCur = host.keyCur, &valueCur = host.valueCur,
        &keyNext = host.keyNext, &valueNext = host.valueNext;
  const bool segments = ring->entries.segments;
  const int64_t sBytes = segments ? ring->segBytes() : 0;
  host.segCur.resize(size_t(sBytes));
  host.segNext.resize(size_t(sBytes));
  Bytes &segCur = host.segCur, &segNext = host.segNext;
  std::vector<float> &accQ = host.accQ;
  accQ.assign(size_t(ring->qElems()), 0.0f);
  for (int i = 0; i < 2; ++i) {
    host.accK[i].assign(size_t(ring->kElems()), 0.0f);
    host.accV[i].assign(size_t(ring->vElems()), 0.0f);
  }

  /// This rank's key/value (to send) and, for zigzag blocks, the second
  /// half of its query, output, d_output and lse (the zzq block's), read
  /// while block 0 runs on the rank's own shard.
  auto readOwnShard = [&] {
    record(ejk_buffer_download(key, keyCur.data(), keyCur.size(), 0),
           "ejk_ring_run_backward: reading 'key'");
    record(ejk_buffer_download(value, valueCur.data(), valueCur.size(), 0),
           "ejk_ring_run_backward: reading 'value'");
    if (segments)
      record(ejk_buffer_download(kvSegments, segCur.data(), segCur.size(), 0),
             "ejk_ring_run_backward: reading 'kv_segment_ids'");
    if (status != EJK_OK || !ring->entries.zigzagBlocks ||
        ring->layout != EJK_RING_ZIGZAG)
      return;
    int64_t oRow = ring->heads * ring->headDimV;
    struct {
      ejk_buffer *from, *to;
      int64_t rows, rowBytes; // rows of `batch` slices
    } halves[] = {{query, ring->queryHalf, batch, qRow * e},
                  {output, ring->outputHalf, batch, oRow * e},
                  {dOutput, ring->dOutputHalf, batch, oRow * e},
                  {lse, ring->lseHalf, batch * ring->heads, 4},
                  {qSegments, ring->qSegmentsHalf, batch, 4}};
    Bytes whole, part;
    for (auto &h : halves) {
      if (!h.from)
        continue; // no segment ids
      whole.resize(size_t(h.rows * seq * h.rowBytes));
      part.resize(size_t(h.rows * half * h.rowBytes));
      record(ejk_buffer_download(h.from, whole.data(), whole.size(), 0),
             "ejk_ring_run_backward: reading the local shard");
      copyRows(part.data(), whole.data(), h.rows, seq, half, half, 0, half,
               h.rowBytes);
      record(ejk_buffer_upload(h.to, part.data(), part.size(), 0),
             "ejk_ring_run_backward: staging the second halves");
    }
  };

  /// Rows [0, rows) of each batch of a shard into `buffer`.
  auto stageRows = [&](ejk_buffer *buffer, const Bytes &shard, int64_t rows,
                       int64_t rowBytes, Bytes &scratch) {
    if (batch == 1 || rows == seq) {
      record(ejk_buffer_upload(buffer, shard.data(),
                               size_t(batch * rows * rowBytes), 0),
             "ejk_ring_run_backward: staging");
      return;
    }
    scratch.resize(size_t(batch * rows * rowBytes));
    copyRows(scratch.data(), shard.data(), batch, seq, rows, 0, 0, rows,
             rowBytes);
    record(ejk_buffer_upload(buffer, scratch.data(), scratch.size(), 0),
           "ejk_ring_run_backward: staging");
  };

  // Stages the operands of step `step` (the shard of rank `source`, whose
  // key/value bytes are `k`, `v`, kv_segment_ids `s`) into slot
  // `step % 2`.
  auto stage = [&](int step, const Bytes &k, const Bytes &v, const Bytes &s) {
    GradPlan plan;
    int source = (rank - step + n) % n;
    Block block = status == EJK_OK ? chooseBlock(*ring, rank, source, host.mask)
                                   : Block::Skip;
    block = skipBySegments(*ring, block, rank, source, s);
    if (block == Block::Skip)
      return plan;
    ejk_ring::GradSlot &slot = ring->gradSlots[step % 2];
    plan.entry =
        ring->blockName((std::string("grad_") + roleName(block)).c_str());
    plan.outputs[0] = slot.dQuery;
    plan.outputs[1] = slot.dKey;
    plan.outputs[2] = slot.dValue;
    plan.qRows = seq;
    plan.kRows = seq;
    if (block == Block::ZigzagKv) {
      // The first half of the visiting shard, compacted into the slot.
      stageRows(slot.key, k, half, ring->kRowBytes(), host.scratchK);
      stageRows(slot.value, v, half, ring->vRowBytes(), host.scratchK);
      plan.inputs = {query, slot.key, slot.value, output, dOutput, lse};
      plan.kRows = half;
      if (segments) {
        // The first half, compacted like the key/value.
        stageRows(slot.kvSegments, s, half, 4, host.scratchS);
        plan.inputs.push_back(qSegments);
        plan.inputs.push_back(slot.kvSegments);
      }
      return plan;
    }
    // The rank's own shard is on the device already: the caller's.
    ejk_buffer *kb = key, *vb = value, *sb = kvSegments;
    if (source != rank) {
      stageRows(slot.key, k, seq, ring->kRowBytes(), host.scratchK);
      stageRows(slot.value, v, seq, ring->vRowBytes(), host.scratchK);
      kb = slot.key;
      vb = slot.value;
      if (segments) {
        stageRows(slot.kvSegments, s, seq, 4, host.scratchS);
        sb = slot.kvSegments;
      }
    }
    if (block == Block::ZigzagQ) {
      plan.inputs = {ring->queryHalf,   kb,           vb, ring->outputHalf,
                     ring->dOutputHalf, ring->lseHalf};
      plan.qBegin = half;
      plan.qRows = half;
    } else {
      plan.inputs = {query, kb, vb, output, dOutput, lse};
    }
    if (block == Block::Masked) {
      record(
          ejk_buffer_upload(slot.mask, host.mask.data(), host.mask.size(), 0),
          "ejk_ring_run_backward: staging the mask");
      plan.inputs.push_back(slot.mask);
    }
    if (segments) {
      plan.inputs.push_back(block == Block::ZigzagQ ? ring->qSegmentsHalf
                                                    : qSegments);
      plan.inputs.push_back(sb);
    }
    return plan;
  };

  // The f32 d_key/d_value sums: `cur` holds those of the shard whose
  // block is being added; the other receives the next ones.
  int cur = 0;
  MPI_Request sumRequests[4];
  int numSums = 0;
  auto sendSums = [&] {
    int kCount = int(ring->kElems()), vCount = int(ring->vElems());
    MPI_Irecv(host.accK[1 - cur].data(), kCount, MPI_FLOAT, prev, 2, comm.comm,
              &sumRequests[numSums++]);
    MPI_Irecv(host.accV[1 - cur].data(), vCount, MPI_FLOAT, prev, 3, comm.comm,
              &sumRequests[numSums++]);
    MPI_Isend(host.accK[cur].data(), kCount, MPI_FLOAT, next, 2, comm.comm,
              &sumRequests[numSums++]);
    MPI_Isend(host.accV[cur].data(), vCount, MPI_FLOAT, next, 3, comm.comm,
              &sumRequests[numSums++]);
    cur = 1 - cur;
  };
  auto waitSums = [&](ejk_invocation *block = nullptr) {
    int rc = waitBeside(numSums, sumRequests, block, ring->pollUs);
    numSums = 0;
    return rc;
  };
  /// Adds a finished block's gradients into the sums.
  auto addBlock = [&](const GradPlan &plan) {
    if (plan.entry.empty() || status != EJK_OK)
      return;
    host.partQ.resize(size_t(batch * plan.qRows * qRow * e));
    host.partK.resize(size_t(batch * plan.kRows * kRow * e));
    host.partV.resize(size_t(batch * plan.kRows * vRow * e));
    record(ejk_buffer_download(plan.outputs[0], host.partQ.data(),
                               host.partQ.size(), 0),
           "ejk_ring_run_backward: block d_query");
    record(ejk_buffer_download(plan.outputs[1], host.partK.data(),
                               host.partK.size(), 0),
           "ejk_ring_run_backward: block d_key");
    record(ejk_buffer_download(plan.outputs[2], host.partV.data(),
                               host.partV.size(), 0),
           "ejk_ring_run_backward: block d_value");
    if (status != EJK_OK)
      return;
    int threads = ring->threads;
    addRows(accQ, seq, host.partQ, ring->dtype, batch, plan.qRows, plan.qBegin,
            qRow, threads);
    addRows(host.accK[cur], seq, host.partK, ring->dtype, batch, plan.kRows, 0,
            kRow, threads);
    addRows(host.accV[cur], seq, host.partV, ring->dtype, batch, plan.kRows, 0,
            vRow, threads);
  };
  auto brokenRing = [&](int step, int rc, ejk_invocation *invocation) {
    if (invocation) {
      ejk_invocation_wait(invocation);
      ejk_invocation_destroy(invocation);
    }
    return fail(EJK_ERROR_IO, "ejk_ring_run_backward: rank " +
                                  std::to_string(rank) + " step " +
                                  std::to_string(step) +
                                  ": transfer failed: " + mpiError(rc));
  };

  uint64_t t0 = nowNs();
  if (segments) {
    // The local q ids, on the host, for skipBySegments.
    host.qSegments.resize(size_t(batch * seq));
    record(ejk_buffer_download(qSegments, host.qSegments.data(), size_t(sBytes),
                               0),
           "ejk_ring_run_backward: reading 'q_segment_ids'");
  }
  GradPlan current = stage(0, keyCur, valueCur, segCur), previous;
  ring->steps[0].staging_ns += since(t0);
  ring->steps[0].host_ns += since(t0);
  for (int step = 0; step < n; ++step) {
    ejk_ring_stats &st = ring->steps[size_t(step)];
    uint64_t stepStart = nowNs();
    ejk_invocation *invocation = nullptr;
    if (!current.entry.empty() && status == EJK_OK)
      record(ejk_invoke_async(ring->module, current.entry.c_str(),
                              current.inputs.data(), current.inputs.size(),
                              current.outputs, 3, &invocation),
             "ejk_ring_run_backward: block '" + current.entry + "'");
    uint64_t hostStart = nowNs(), waitNs = 0;
    if (step == 0) {
      readOwnShard();
      st.staging_ns += since(hostStart);
    }
    MPI_Request requests[6];
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
      if (segments) {
        MPI_Irecv(segNext.data(), int(sBytes), MPI_BYTE, prev, kSegmentTag,
                  comm.comm, &requests[numRequests++]);
        MPI_Isend(segCur.data(), int(sBytes), MPI_BYTE, next, kSegmentTag,
                  comm.comm, &requests[numRequests++]);
      }
    }
    if (step > 0) {
      // Block step-1's gradients into the sums of its shard (received
      // from the previous rank while it ran), then on to the next rank.
      uint64_t w0 = nowNs();
      int rc = waitSums(invocation);
      waitNs += since(w0);
      if (rc != MPI_SUCCESS)
        return brokenRing(step, rc, invocation);
      uint64_t a0 = nowNs();
      addBlock(previous);
      st.merge_ns += since(a0);
      sendSums();
    }
    uint64_t w0 = nowNs();
    int rc = waitBeside(numRequests, requests, invocation, ring->pollUs);
    uint64_t commDone = nowNs();
    waitNs += commDone - w0;
    if (rc != MPI_SUCCESS)
      return brokenRing(step, rc, invocation);
    GradPlan upcoming;
    if (step + 1 < n) {
      uint64_t s0 = nowNs();
      upcoming = stage(step + 1, keyNext, valueNext, segNext);
      st.staging_ns += since(s0);
    }
    st.host_ns += since(hostStart) - waitNs;
    if (invocation) {
      record(ejk_invocation_wait(invocation), "ejk_ring_run_backward: block");
      uint64_t computeDone = nowNs();
      uint64_t kernel = 0;
      ejk_invocation_time_ns(invocation, &kernel);
      ejk_invocation_destroy(invocation);
      st.compute_ns = kernel;
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
    std::swap(segCur, segNext);
    st.total_ns = since(stepStart);
    st.ring_size = n;
  }
  // The last block's gradients, and the last hop: every shard's sums to
  // its owner.
  {
    ejk_ring_stats &last = ring->steps.back();
    uint64_t r0 = nowNs();
    int rc = waitSums();
    if (rc == MPI_SUCCESS) {
      uint64_t a0 = nowNs();
      addBlock(previous);
      last.merge_ns += since(a0);
      sendSums();
      uint64_t w0 = nowNs();
      rc = waitSums();
      last.exposed_comm_ns += since(w0);
    }
    if (rc != MPI_SUCCESS)
      return brokenRing(n, rc, nullptr);
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
  if (ejk_status agreed = agreeAcrossRanks(
          comm, status, message,
          "ejk_ring_run_backward: the backward failed on rank", ""))
    return agreed;
  // Round once into the entry's type.
  struct {
    const std::vector<float> &sum;
    ejk_buffer *to;
    const char *what;
  } results[] = {
      {accQ, dQuery, "ejk_ring_run_backward: writing 'd_query'"},
      {host.accK[cur], dKey, "ejk_ring_run_backward: writing 'd_key'"},
      {host.accV[cur], dValue, "ejk_ring_run_backward: writing 'd_value'"}};
  Bytes &out = host.out;
  for (auto &r : results) {
    int64_t count = int64_t(r.sum.size());
    out.resize(size_t(count * e));
    parallelFor(count, ring->threads, [&](int64_t from, int64_t to) {
      for (int64_t i = from; i < to; ++i)
        storeFloat(out.data(), ring->dtype, i, r.sum[size_t(i)]);
    });
    if (ejk_status s = ejk_buffer_upload(r.to, out.data(), out.size(), 0))
      return failFromRuntime(s, r.what);
  }
  ring->total.total_ns = since(start);
  return EJK_OK;
}

} // extern "C"
