//===- RingWindow.h - key/value shards in host memory a node shares -*- C++
//-*-===//
//
// The forward's shared-window transport (docs/ops/ring-gpus.md, "The shared
// window"): when every rank of the ring is on one node, one host mapping
// holds every rank's key/value (and kv_segment_ids) shard. Each rank writes
// its own shard once per run (a device copy, beside block 0), one barrier
// says every shard is there, and each step uploads the visiting shard
// straight from its owner's segment, imported into the rank's device as
// registered host memory (ejk_host_register): no MPI message and no host
// copy per step. Ranks on several nodes, EJK_RING_SHARED_WINDOW=0, or a
// mapping that cannot be made take the MPI message path.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_MPI_RINGWINDOW_H
#define EJK_LIB_RUNTIME_MPI_RINGWINDOW_H

#include "ejk/Runtime/ejk_runtime.h"

#include <mpi.h>

#include <cstddef>
#include <string>

namespace ejk::ring {

/// One `size`-segment host mapping shared by the ranks of a node (a
/// memfd of rank 0, opened by the others through /proc), registered with
/// each rank's device when the device can import host memory.
class SharedShards {
public:
  SharedShards() = default;
  SharedShards(const SharedShards &) = delete;
  SharedShards &operator=(const SharedShards &) = delete;
  ~SharedShards() { close(); }

  /// Maps `size` segments of at least `segmentBytes` each, shared by the
  /// ranks of `comm` (which must all be on one node), or keeps the
  /// mapping that is open when it has that size already. Collective over
  /// `comm`: true on every rank or on none; on failure `reason` says why
  /// (the same words on every rank where the cause is shared).
  bool open(MPI_Comm comm, int rank, int size, ejk_device *device,
            size_t segmentBytes, std::string &reason);
  /// Unregisters and unmaps. Local.
  void close();

  bool isOpen() const { return base_ != nullptr; }
  /// Whether the device imported the mapping (else copies stage).
  bool registered() const { return registered_; }
  /// The first byte of rank `rank`'s segment.
  unsigned char *segment(int rank) const {
    return base_ + size_t(rank) * stride_;
  }

private:
  ejk_device *device_ = nullptr;
  unsigned char *base_ = nullptr;
  size_t segmentBytes_ = 0, stride_ = 0, total_ = 0;
  int size_ = 0;
  bool registered_ = false;
};

} // namespace ejk::ring

#endif // EJK_LIB_RUNTIME_MPI_RINGWINDOW_H
