//===- FileIO.h - Reading and writing whole files safely --------*- C++ -*-===//
//
// Every tool and library of ejk reads its files through readRegularFile and
// writes them through writeFileReplacing, so that a path naming something
// other than a regular file (a FIFO, a device, a directory) is a clear error
// or is written through, never a hang, an endless read, or a device
// replaced by a file. MLIR-free: the runtime and the front use it too.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SUPPORT_FILEIO_H
#define EJK_SUPPORT_FILEIO_H

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ejk {

/// How a file may be opened for reading.
struct ReadOptions {
  /// Larger files are refused (before anything is allocated).
  uint64_t maxBytes = uint64_t(1) << 30;
  /// Refuse a symbolic link in the last component (O_NOFOLLOW).
  bool noFollow = false;
  /// Require a file of this user that no one else may read or write.
  bool requirePrivate = false;
};

/// Why a read failed, for callers that treat some causes differently.
enum class ReadFailure {
  None,
  /// The path does not exist (ENOENT or ENOTDIR).
  NotFound,
  /// It exists but is not a regular file (or not private, or a link).
  NotRegular,
  /// Larger than ReadOptions::maxBytes.
  TooLarge,
  /// open or read failed otherwise, or memory ran out.
  Io,
};

/// "a directory", "a FIFO", "a character device", ... for \p mode.
const char *describeFileType(mode_t mode);

/// Opens \p path for reading without ever blocking: the open itself uses
/// O_NONBLOCK (a FIFO without a writer, or a device, would otherwise block
/// in open), then the descriptor must be a regular file within the options'
/// bounds. Returns the descriptor (O_CLOEXEC, in blocking mode) and its
/// fstat in \p info, or -1 with \p error naming the path and the problem.
int openRegularFile(const std::string &path, const ReadOptions &options,
                    struct stat &info, std::string &error,
                    ReadFailure *failure = nullptr);

/// Reads all of \p fd (from openRegularFile) into \p contents, stopping
/// with an error beyond \p maxBytes: a file that grows while read, or a
/// /proc file whose st_size is 0, is bounded too. Does not close \p fd.
bool readDescriptor(int fd, const std::string &path, uint64_t maxBytes,
                    std::string &contents, std::string &error,
                    ReadFailure *failure = nullptr);

/// openRegularFile + readDescriptor: the whole of the regular file \p path.
/// Out of memory is an error, never an exception.
bool readRegularFile(const std::string &path, std::string &contents,
                     std::string &error, const ReadOptions &options = {},
                     ReadFailure *failure = nullptr);

/// A piece of the bytes writeFileReplacing writes.
struct ByteRange {
  const void *data;
  size_t size;
};

/// Writes \p pieces, in order, to \p path:
///  - a regular file, or a path that does not exist, is replaced
///    atomically: a temporary file next to it, renamed over it once
///    complete (a symbolic link is followed, so the file it names is
///    replaced and the link kept);
///  - an existing FIFO, character device or socket (/dev/null,
///    /dev/stdout) is written through, never replaced; a FIFO without a
///    reader is an error, not a hang;
///  - anything else (a directory, a block device) is an error.
/// New files get \p mode (less the umask). On failure the path is left as
/// it was and no temporary file remains; \p error names the path.
bool writeFileReplacing(const std::string &path,
                        const std::vector<ByteRange> &pieces,
                        std::string &error, mode_t mode = 0666);

/// writeFileReplacing of one string.
bool writeFileReplacing(const std::string &path, const std::string &contents,
                        std::string &error, mode_t mode = 0666);

} // namespace ejk

#endif // EJK_SUPPORT_FILEIO_H
