//===- PathText.h - paths and errno for messages ----------------*- C++ -*-===//
//
// MLIR-free; the stores, the artifact cache and the autotuner build paths and
// error messages with these.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SUPPORT_PATHTEXT_H
#define EJK_SUPPORT_PATHTEXT_H

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

namespace ejk {

/// `strerror(errno)`, for "cannot open 'x': <reason>" messages.
inline std::string errnoText() { return std::strerror(errno); }

/// `directory/name`, with one separator (none when `directory` is empty).
inline std::string joinPath(std::string_view directory, std::string_view name) {
  std::string path(directory);
  if (!path.empty() && path.back() != '/')
    path += '/';
  path += name;
  return path;
}

} // namespace ejk

#endif // EJK_SUPPORT_PATHTEXT_H
