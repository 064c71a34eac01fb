//===- ArtifactCacheLock.cpp - one compile per key across processes -------===//
//
// Eight processes that miss the same key at once would compile it eight
// times. Like ccache and Triton, the first takes a per-key lock and
// compiles; the others wait on the lock and then find its entry. flock(2)
// locks die with their process, so a crashed compile never blocks anyone;
// a wait that lasts longer than the timeout (a hung compile) gives up and
// compiles anyway, which is still correct: publish() settles races.
//
//===----------------------------------------------------------------------===//

#include "ejk/Driver/ArtifactCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <thread>

using namespace mlir;
using namespace mlir::ejk;

/// The directory of the lock files, next to the entries.
static constexpr const char *kLockDirectory = "locks";

double mlir::ejk::artifactCacheLockTimeout() {
  constexpr double kDefaultSeconds = 300;
  const char *text = std::getenv("EJK_CACHE_LOCK_TIMEOUT");
  if (!text || !*text)
    return kDefaultSeconds;
  char *end = nullptr;
  double seconds = std::strtod(text, &end);
  return *end || !(seconds >= 0) ? kDefaultSeconds : seconds;
}

ArtifactCacheLock::ArtifactCacheLock(ArtifactCacheLock &&other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

ArtifactCacheLock &
ArtifactCacheLock::operator=(ArtifactCacheLock &&other) noexcept {
  if (this != &other) {
    if (fd_ >= 0)
      close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

ArtifactCacheLock::~ArtifactCacheLock() {
  if (fd_ >= 0)
    close(fd_);
}

void ArtifactCacheLock::releaseAndRemove() {
  if (fd_ < 0)
    return;
  // Unlinked while held: a process that waits on this file wakes, finds
  // the entry and never compiles; one that arrives later finds the entry
  // before it looks for a lock.
  unlink(path_.c_str());
  close(fd_);
  fd_ = -1;
}

ArtifactCacheLock ArtifactCacheLock::acquire(const ArtifactCache &cache,
                                             const ArtifactKey &key,
                                             double timeoutSeconds,
                                             bool &waited) {
  waited = false;
  ArtifactCacheLock lock;
  if (!cache.enabled() || !::ejk::isArtifactKeyName(key.hash))
    return lock;
  if (llvm::Error error = cache.prepare()) {
    // A cache that cannot be written holds no locks; the compile that
    // follows reports why.
    llvm::consumeError(std::move(error));
    return lock;
  }
  SmallString<256> directory(cache.directory());
  llvm::sys::path::append(directory, kLockDirectory);
  if (mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST)
    return lock;
  std::string why;
  if (!::ejk::isPrivateDirectory(std::string(directory), why))
    return lock;
  SmallString<256> path(directory);
  llvm::sys::path::append(path, key.hash);
  int fd = open(path.c_str(),
                O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  if (fd < 0)
    return lock;
  auto start = std::chrono::steady_clock::now();
  while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      close(fd);
      return lock;
    }
    waited = true;
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (elapsed >= timeoutSeconds) {
      close(fd);
      return lock;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  lock.fd_ = fd;
  lock.path_ = std::string(path);
  return lock;
}
