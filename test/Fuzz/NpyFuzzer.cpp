//===- NpyFuzzer.cpp - fuzz the .npy reader -------------------------------===//
//
// Input bytes are a .npy file. readNpy takes a path, so the bytes go into an
// anonymous in-memory file (memfd) read through /proc/self/fd. An array that
// reads must also survive a round trip: written with writeNpy and read back,
// it must be the same array.
//
//===----------------------------------------------------------------------===//

#include "ejk/Support/Npy.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

/// A directory of this process for the round trip's files.
const std::string &scratchDir() {
  static std::string dir = [] {
    const char *tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/ejk-fuzz-npy.XXXXXX";
    if (!mkdtemp(&pattern[0])) {
      std::perror("ejk-fuzz-npy: mkdtemp");
      std::abort();
    }
    return pattern;
  }();
  return dir;
}

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "ejk-fuzz-npy: %s\n", what.c_str());
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int fd = memfd_create("ejk-fuzz-npy", 0);
  if (fd < 0)
    fail("memfd_create failed");
  size_t written = 0;
  while (written < size) {
    ssize_t n = write(fd, data + written, size - written);
    if (n <= 0)
      fail("write to memfd failed");
    written += size_t(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  ejk::NpyArray array;
  std::string error;
  bool ok = ejk::readNpy(path, array, error);
  close(fd);
  if (!ok) {
    if (error.empty())
      fail("readNpy failed without a message");
    return 0;
  }

  // What reads must be consistent: the data is exactly the shape's bytes.
  int64_t elements = array.numElements();
  size_t elementSize = ejk::npyDtypeSize(array.dtype);
  if (elements < 0 || elementSize == 0 ||
      array.data.size() != uint64_t(elements) * elementSize)
    fail("readNpy accepted an array whose data does not match its shape");

  std::string copyPath = scratchDir() + "/round-trip.npy";
  if (!ejk::writeNpy(copyPath, array, error))
    fail("writeNpy failed on an array readNpy accepted: " + error);
  ejk::NpyArray copy;
  if (!ejk::readNpy(copyPath, copy, error))
    fail("readNpy failed on writeNpy's output: " + error);
  if (copy.dtype != array.dtype || copy.shape != array.shape ||
      copy.data != array.data)
    fail("the round trip changed the array");
  return 0;
}
