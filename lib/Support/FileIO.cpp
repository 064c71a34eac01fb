//===- FileIO.cpp - Reading and writing whole files safely ----------------===//
//
// POSIX calls directly: the open flags, the file type and the exact errno
// are the point here.
//
//===----------------------------------------------------------------------===//

#include "ejk/Support/FileIO.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

namespace ejk {

namespace {

std::string quote(const std::string &path) { return "'" + path + "'"; }

void setFailure(ReadFailure *failure, ReadFailure value) {
  if (failure)
    *failure = value;
}

/// Writes all \p size bytes at \p data, retrying short writes.
bool writeAll(int fd, const void *data, size_t size, int &savedErrno) {
  const char *bytes = static_cast<const char *>(data);
  while (size > 0) {
    ssize_t written = ::write(fd, bytes, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0) {
      savedErrno = written < 0 ? errno : EIO;
      return false;
    }
    bytes += written;
    size -= size_t(written);
  }
  return true;
}

bool writePieces(int fd, const std::vector<ByteRange> &pieces,
                 int &savedErrno) {
  for (const ByteRange &piece : pieces)
    if (!writeAll(fd, piece.data, piece.size, savedErrno))
      return false;
  return true;
}

/// Writes through to the existing non-regular file \p path (a FIFO or a
/// character device), which must not be replaced.
bool writeThrough(const std::string &path, const struct stat &before,
                  const std::vector<ByteRange> &pieces, std::string &error) {
  // O_NONBLOCK: opening a FIFO that no one reads fails with ENXIO instead
  // of waiting for a reader forever.
  int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int savedErrno = errno;
    error = quote(path) + ": cannot open for writing: " +
            (savedErrno == ENXIO && S_ISFIFO(before.st_mode)
                 ? std::string("no process reads the FIFO")
                 : std::string(std::strerror(savedErrno)));
    return false;
  }
  struct stat info;
  if (fstat(fd, &info) != 0 ||
      (info.st_mode & S_IFMT) != (before.st_mode & S_IFMT)) {
    ::close(fd);
    error = quote(path) + ": changed while it was opened";
    return false;
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0)
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  int savedErrno = 0;
  bool written = writePieces(fd, pieces, savedErrno);
  if (::close(fd) != 0 && written) {
    written = false;
    savedErrno = errno;
  }
  if (!written) {
    error = quote(path) + ": write failed: " + std::strerror(savedErrno);
    return false;
  }
  return true;
}

} // namespace

const char *describeFileType(mode_t mode) {
  switch (mode & S_IFMT) {
  case S_IFREG:
    return "a regular file";
  case S_IFDIR:
    return "a directory";
  case S_IFIFO:
    return "a FIFO";
  case S_IFCHR:
    return "a character device";
  case S_IFBLK:
    return "a block device";
  case S_IFSOCK:
    return "a socket";
  case S_IFLNK:
    return "a symbolic link";
  default:
    return "not a regular file";
  }
}

int openRegularFile(const std::string &path, const ReadOptions &options,
                    struct stat &info, std::string &error,
                    ReadFailure *failure) {
  setFailure(failure, ReadFailure::None);
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY |
              (options.noFollow ? O_NOFOLLOW : 0);
  int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    int savedErrno = errno;
    if (savedErrno == ELOOP && options.noFollow) {
      setFailure(failure, ReadFailure::NotRegular);
      error = quote(path) + " is a symbolic link";
    } else {
      setFailure(failure, savedErrno == ENOENT || savedErrno == ENOTDIR
                              ? ReadFailure::NotFound
                              : ReadFailure::Io);
      error = "cannot open " + quote(path) + ": " + std::strerror(savedErrno);
    }
    return -1;
  }
  auto reject = [&](ReadFailure why, const std::string &what) {
    ::close(fd);
    setFailure(failure, why);
    error = quote(path) + what;
    return -1;
  };
  if (fstat(fd, &info) != 0)
    return reject(ReadFailure::Io, std::string(": ") + std::strerror(errno));
  if (!S_ISREG(info.st_mode))
    return reject(ReadFailure::NotRegular, std::string(" is ") +
                                               describeFileType(info.st_mode) +
                                               ", not a regular file");
  if (options.requirePrivate &&
      (info.st_uid != geteuid() || (info.st_mode & 077)))
    return reject(ReadFailure::NotRegular,
                  " is not a private regular file of this user");
  if (uint64_t(info.st_size) > options.maxBytes)
    return reject(ReadFailure::TooLarge,
                  " has " + std::to_string(uint64_t(info.st_size)) +
                      " bytes, more than the " +
                      std::to_string(options.maxBytes) + " allowed");
  // A regular file never blocks; the flag only mattered for the open.
  int status = fcntl(fd, F_GETFL);
  if (status >= 0)
    fcntl(fd, F_SETFL, status & ~O_NONBLOCK);
  return fd;
}

bool readDescriptor(int fd, const std::string &path, uint64_t maxBytes,
                    std::string &contents, std::string &error,
                    ReadFailure *failure) {
  setFailure(failure, ReadFailure::None);
  contents.clear();
  struct stat info;
  uint64_t expected =
      fstat(fd, &info) == 0 && info.st_size > 0 ? uint64_t(info.st_size) : 0;
  try {
    // st_size is a hint (0 for /proc files): read until the end, bounded.
    contents.reserve(size_t(expected < maxBytes ? expected : maxBytes));
    char chunk[1 << 16];
    while (true) {
      ssize_t n = ::read(fd, chunk, sizeof(chunk));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0) {
        setFailure(failure, ReadFailure::Io);
        error = quote(path) + ": read error: " + std::strerror(errno);
        return false;
      }
      if (n == 0)
        return true;
      if (uint64_t(contents.size()) + uint64_t(n) > maxBytes) {
        setFailure(failure, ReadFailure::TooLarge);
        error = quote(path) + " has more than the " + std::to_string(maxBytes) +
                " bytes allowed";
        contents.clear();
        return false;
      }
      contents.append(chunk, size_t(n));
    }
  } catch (const std::bad_alloc &) {
    contents.clear();
    contents.shrink_to_fit();
    setFailure(failure, ReadFailure::Io);
    error = quote(path) + ": out of memory reading " +
            std::to_string(expected) + " bytes";
    return false;
  }
}

bool readRegularFile(const std::string &path, std::string &contents,
                     std::string &error, const ReadOptions &options,
                     ReadFailure *failure) {
  struct stat info;
  int fd = openRegularFile(path, options, info, error, failure);
  if (fd < 0)
    return false;
  bool ok =
      readDescriptor(fd, path, options.maxBytes, contents, error, failure);
  ::close(fd);
  return ok;
}

bool writeFileReplacing(const std::string &path,
                        const std::vector<ByteRange> &pieces,
                        std::string &error, mode_t mode) {
  // stat follows links: what matters is the kind of file written to.
  std::string target = path;
  struct stat info;
  bool exists = stat(path.c_str(), &info) == 0;
  struct stat link;
  bool isLink = lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
  if (!exists && isLink) {
    error = quote(path) + " is a symbolic link to nothing";
    return false;
  }
  if (exists && !S_ISREG(info.st_mode)) {
    if (S_ISFIFO(info.st_mode) || S_ISCHR(info.st_mode))
      return writeThrough(path, info, pieces, error);
    error = quote(path) + " is " + describeFileType(info.st_mode) +
            ", not a file that can be written";
    return false;
  }
  if (isLink) {
    // Replace the file the link names, in its directory, and keep the link.
    char *resolved = realpath(path.c_str(), nullptr);
    if (!resolved) {
      error = quote(path) +
              ": cannot follow the symbolic link: " + std::strerror(errno);
      return false;
    }
    target = resolved;
    std::free(resolved);
  }

  // The temporary lives next to the target so that rename() is atomic; its
  // name is unique per process and call.
  static std::atomic<unsigned> counter{0};
  std::string temp = target + ".tmp." + std::to_string(::getpid()) + "." +
                     std::to_string(counter.fetch_add(1));
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    error = quote(path) + ": cannot create " + quote(temp) + ": " +
            std::strerror(errno);
    return false;
  }
  // A replaced file keeps its permissions.
  if (exists)
    fchmod(fd, info.st_mode & 07777);
  int savedErrno = 0;
  bool written = writePieces(fd, pieces, savedErrno);
  if (::close(fd) != 0 && written) {
    written = false;
    savedErrno = errno;
  }
  if (!written) {
    ::unlink(temp.c_str());
    error = quote(path) + ": write failed: " + std::strerror(savedErrno);
    return false;
  }
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    savedErrno = errno;
    ::unlink(temp.c_str());
    error =
        quote(path) + ": cannot replace the file: " + std::strerror(savedErrno);
    return false;
  }
  return true;
}

bool writeFileReplacing(const std::string &path, const std::string &contents,
                        std::string &error, mode_t mode) {
  return writeFileReplacing(path, {ByteRange{contents.data(), contents.size()}},
                            error, mode);
}

} // namespace ejk
