//===- CacheTestUtil.h - helpers of the artifact cache tests ----*- C++ -*-===//

#ifndef EJK_TEST_UNIT_DRIVER_CACHETESTUTIL_H
#define EJK_TEST_UNIT_DRIVER_CACHETESTUTIL_H

#include "ejk/Driver/ArtifactCache.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

namespace ejk::test {

/// A fresh directory, removed with everything in it at destruction.
class TempDir {
public:
  TempDir() {
    llvm::SmallString<128> path;
    if (!llvm::sys::fs::createUniqueDirectory("ejk-cache-test", path))
      path_ = std::string(path);
  }
  ~TempDir() {
    if (!path_.empty()) {
      // Undo read-only modes that tests set, so the directory can go.
      std::string command = "chmod -R u+rwx '" + path_ + "' 2>/dev/null";
      (void)std::system(command.c_str());
      llvm::sys::fs::remove_directories(path_, /*IgnoreErrors=*/true);
    }
  }
  const std::string &path() const { return path_; }
  std::string operator/(const std::string &name) const {
    return path_ + "/" + name;
  }

private:
  std::string path_;
};

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void writeFile(const std::string &path, const std::string &contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << contents;
}

inline unsigned modeOf(const std::string &path) {
  struct stat info;
  if (lstat(path.c_str(), &info) != 0)
    return ~0u;
  return info.st_mode & 07777;
}

/// Runs \p body in a child process and returns its exit status (-1 when it
/// did not exit normally). The child never returns into the test runner.
inline int runInChild(const std::function<int()> &body) {
  pid_t pid = fork();
  if (pid == 0)
    _exit(body());
  if (pid < 0)
    return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
    return -1;
  return WEXITSTATUS(status);
}

} // namespace ejk::test

#endif // EJK_TEST_UNIT_DRIVER_CACHETESTUTIL_H
