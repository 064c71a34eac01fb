//===- TuningTestUtil.h - Helpers for the tuning tests ----------*- C++ -*-===//

#ifndef EJK_TEST_UNIT_STORE_TUNINGTESTUTIL_H
#define EJK_TEST_UNIT_STORE_TUNINGTESTUTIL_H

#include "ejk/Support/Fingerprint.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>

namespace ejk::test {

/// A fresh directory under $TMPDIR, removed at the end of the test.
class TempDir {
public:
  TempDir() {
    const char *base = std::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/ejk-tuning-test-XXXXXX";
    path = ::mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDir() {
    if (!path.empty())
      std::system(("rm -rf '" + path + "'").c_str());
  }
  std::string path;
};

/// A fixed CPU fingerprint, so that tests do not depend on the machine.
inline DeviceFingerprint testFingerprint(const std::string &model = "test") {
  DeviceFingerprint fp;
  fp.kind = "cpu";
  fp.fields["model_name"] = model;
  fp.fields["vector_bits"] = "256";
  fp.fields["cores"] = "4";
  fp.fields["l2_cache"] = "1024K";
  fp.fields["isa"] = "avx,avx2,fma";
  return fp;
}

inline std::string readText(const std::string &path) {
  std::ifstream file(path);
  std::stringstream buffer;
  buffer << file.rdbuf();
  return buffer.str();
}

inline void writeText(const std::string &path, const std::string &text) {
  std::ofstream(path) << text;
}

inline bool exists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

} // namespace ejk::test

#endif // EJK_TEST_UNIT_STORE_TUNINGTESTUTIL_H
