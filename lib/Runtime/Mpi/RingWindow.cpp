//===- RingWindow.cpp - key/value shards in host memory a node shares -----===//
//
// SharedShards (RingWindow.h). Why a memfd and not MPI_Win_allocate_shared:
// freeing an MPI window is collective, and ejk_ring_destroy is not; a
// mapping is released by each rank alone (munmap). The memfd is not a file
// of /dev/shm, whose size containers often cap at 64 MiB, and it disappears
// with the last mapping. Ranks other than 0 open it through
// /proc/<pid>/fd/<fd> while rank 0 keeps it open (one collective step).
//
//===----------------------------------------------------------------------===//

#include "RingWindow.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

using namespace ejk::ring;

namespace {

/// Why the mapping cannot be made, worst first when ranks differ (MPI_MAX).
enum Failure : int {
  Ok = 0,
  MapFailed = 1,
  OpenFailed = 2,
  CreateFailed = 3,
  SeveralNodes = 4,
  SizesDiffer = 5,
};

const char *describe(int failure) {
  switch (failure) {
  case SizesDiffer:
    return "the ranks' key/value shards differ in size";
  case SeveralNodes:
    return "the ranks are on more than one node";
  case CreateFailed:
    return "rank 0 could not create the shared memory (memfd_create/"
           "ftruncate)";
  case OpenFailed:
    return "a rank could not open rank 0's shared memory (/proc/<pid>/fd)";
  case MapFailed:
    return "a rank could not map the shared memory (mmap)";
  default:
    return "";
  }
}

/// 64 KiB: every segment starts on a page (and a large-page) boundary, so
/// the device imports each at its own address.
constexpr size_t kSegmentAlign = size_t(1) << 16;

} // namespace

bool SharedShards::open(MPI_Comm comm, int rank, int size, ejk_device *device,
                        size_t segmentBytes, std::string &reason) {
  // Every rank has the same mapping or none, but whether it can be kept is
  // decided together: a rank that kept its mapping while another made a new
  // one would miss the collective steps below (and segments of different
  // sizes would place a peer's shard past the end of the mapping).
  unsigned long long mine[3] = {segmentBytes, ~(unsigned long long)segmentBytes,
                                isOpen() && segmentBytes_ == segmentBytes &&
                                        size_ == size && device_ == device
                                    ? 0ull
                                    : 1ull};
  unsigned long long all[3] = {0, 0, 1};
  if (MPI_Allreduce(mine, all, 3, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm) !=
      MPI_SUCCESS) {
    close();
    reason = "MPI_Allreduce failed";
    return false;
  }
  const bool sizesDiffer = all[0] != segmentBytes || ~all[1] != segmentBytes;
  if (!sizesDiffer && all[2] == 0)
    return true;
  close();
  int failure = sizesDiffer ? SizesDiffer : Ok;
  MPI_Comm node = MPI_COMM_NULL;
  int nodeSize = 0;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                          &node) != MPI_SUCCESS ||
      MPI_Comm_size(node, &nodeSize) != MPI_SUCCESS || nodeSize != size)
    failure = std::max(failure, int(SeveralNodes));
  if (node != MPI_COMM_NULL)
    MPI_Comm_free(&node);
  int agreed = failure;
  MPI_Allreduce(&failure, &agreed, 1, MPI_INT, MPI_MAX, comm);
  if (agreed != Ok) {
    reason = describe(agreed);
    return false;
  }

  size_t stride =
      (segmentBytes + kSegmentAlign - 1) / kSegmentAlign * kSegmentAlign;
  size_t total = stride * size_t(size);
  // Rank 0 creates the memory; the others find it through its /proc entry.
  int fd = -1;
  long where[3] = {0, -1, 0}; // pid, fd, inode
  if (rank == 0) {
    fd = int(memfd_create("ejk-ring-shards", MFD_CLOEXEC));
    struct stat st {};
    if (fd >= 0 && (ftruncate(fd, off_t(total)) != 0 || fstat(fd, &st) != 0)) {
      ::close(fd);
      fd = -1;
    }
    where[0] = long(getpid());
    where[1] = fd;
    where[2] = fd >= 0 ? long(st.st_ino) : 0;
  }
  MPI_Bcast(where, 3, MPI_LONG, 0, comm);
  if (where[1] < 0) {
    failure = CreateFailed;
  } else if (rank != 0) {
    std::string path =
        "/proc/" + std::to_string(where[0]) + "/fd/" + std::to_string(where[1]);
    // EJK_RING_TEST_WINDOW_FAIL=open: the tests' way to see the fallback
    // (the other causes need several nodes or a broken /proc).
    const char *test = std::getenv("EJK_RING_TEST_WINDOW_FAIL");
    bool fake = test && std::strcmp(test, "open") == 0;
    fd = fake ? -1 : ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    // The same pid may name another process in another pid namespace: map
    // only rank 0's memory, and only as far as it reaches (past its end a
    // read is SIGBUS).
    struct stat st {};
    if (fd >= 0 && (fstat(fd, &st) != 0 || long(st.st_ino) != where[2] ||
                    st.st_size < off_t(total))) {
      ::close(fd);
      fd = -1;
    }
    if (fd < 0)
      failure = OpenFailed;
  }
  void *mapped = MAP_FAILED;
  if (failure == Ok) {
    mapped = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (mapped == MAP_FAILED)
      failure = MapFailed;
  }
  // Rank 0 keeps its descriptor until every rank has opened its own.
  MPI_Allreduce(&failure, &agreed, 1, MPI_INT, MPI_MAX, comm);
  if (fd >= 0)
    ::close(fd);
  if (agreed != Ok) {
    if (mapped != MAP_FAILED)
      munmap(mapped, total);
    reason = describe(agreed);
    return false;
  }
  base_ = static_cast<unsigned char *>(mapped);
  segmentBytes_ = segmentBytes;
  stride_ = stride;
  total_ = total;
  size_ = size;
  device_ = device;
  // A device that cannot import host memory still reads the segments,
  // through its staging buffer.
  registered_ = ejk_host_register(device, base_, total_) == EJK_OK;
  return true;
}

void SharedShards::close() {
  if (!base_)
    return;
  if (registered_)
    ejk_host_unregister(device_, base_);
  munmap(base_, total_);
  base_ = nullptr;
  registered_ = false;
  segmentBytes_ = stride_ = total_ = 0;
  size_ = 0;
  device_ = nullptr;
}
