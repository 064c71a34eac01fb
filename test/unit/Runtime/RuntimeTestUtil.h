//===- RuntimeTestUtil.h - Helpers shared by the runtime tests --*- C++ -*-===//
//
// Temp directories, manifest writing and environment overrides. The kernels
// come from TestKernels.c, built as a module whose path CMake passes in
// EJK_TEST_KERNELS_PATH.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_TEST_UNIT_RUNTIME_RUNTIMETESTUTIL_H
#define EJK_TEST_UNIT_RUNTIME_RUNTIMETESTUTIL_H

#include "ejk/Runtime/ejk_runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

namespace ejk::test {

/// Elements per workgroup of the vector kernels (CHUNK in TestKernels.c).
constexpr int64_t kChunk = 16;

/// The absolute path of the test kernel library.
inline std::string kernelsPath() { return EJK_TEST_KERNELS_PATH; }

/// A fresh directory, removed with its contents at scope exit.
class TempDir {
public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ejk-runtime-XXXXXX")
            .string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()))
      path_ = buffer.data();
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty())
      std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

  /// Writes \p text to file \p name and returns its path.
  std::string write(const std::string &name, const std::string &text) const {
    std::string target = file(name);
    std::ofstream(target, std::ios::binary) << text;
    return target;
  }

private:
  std::string path_;
};

/// Sets (or, with nullptr, unsets) an environment variable for a scope.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) {
      hadOld_ = true;
      old_ = old;
    }
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (hadOld_)
      setenv(name_.c_str(), old_.c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  std::string name_;
  bool hadOld_ = false;
  std::string old_;
};

/// A manifest with one entry per element of \p entries (each a JSON object
/// text), naming \p library.
inline std::string manifestText(const std::vector<std::string> &entries,
                                const std::string &library = kernelsPath()) {
  std::string text = "{\"format\": \"ejk-artifact\", \"version\": 1, "
                     "\"target\": \"cpu\", \"compiler_version\": \"0.1.0\", "
                     "\"library\": \"" +
                     library + "\", \"entries\": [";
  for (size_t i = 0; i < entries.size(); ++i)
    text += (i ? ", " : "") + entries[i];
  return text + "]}";
}

/// Entry "add": out = a + b over n f32 elements, n a multiple of kChunk.
inline std::string addEntry(int64_t n, const std::string &name = "add") {
  std::string shape = "[" + std::to_string(n) + "]";
  return "{\"name\": \"" + name +
         "\", \"buffers\": ["
         "{\"role\": \"input\", \"shape\": " +
         shape +
         ", \"dtype\": \"f32\"}, "
         "{\"role\": \"input\", \"shape\": " +
         shape +
         ", \"dtype\": \"f32\"}, "
         "{\"role\": \"output\", \"shape\": " +
         shape +
         ", \"dtype\": \"f32\"}], "
         "\"dispatches\": [{\"symbol\": \"add_dispatch\", \"grid\": [" +
         std::to_string(n / kChunk) +
         ", 1, 1], \"bindings\": [0, 1, 2], \"flops\": " + std::to_string(n) +
         ", \"bytes\": " + std::to_string(12 * n) + "}]}";
}

/// Entry "twostep": out = 2 * in + 1 through a temporary, in two dispatches.
inline std::string twoStepEntry(int64_t n) {
  std::string shape = "[" + std::to_string(n) + "]";
  std::string grid = "[" + std::to_string(n / kChunk) + ", 1, 1]";
  return "{\"name\": \"twostep\", \"buffers\": ["
         "{\"role\": \"input\", \"shape\": " +
         shape +
         ", \"dtype\": \"f32\"}, "
         "{\"role\": \"output\", \"shape\": " +
         shape +
         ", \"dtype\": \"f32\"}, "
         "{\"role\": \"temporary\", \"shape\": " +
         shape +
         ", \"dtype\": \"f32\"}], "
         "\"dispatches\": ["
         "{\"symbol\": \"scale_to_temp\", \"grid\": " +
         grid +
         ", \"bindings\": [0, 2]}, "
         "{\"symbol\": \"temp_plus_one\", \"grid\": " +
         grid + ", \"bindings\": [2, 1]}]}";
}

/// Entry "count": hits[workgroup] += 1 over a gx x gy x gz grid.
inline std::string countEntry(int64_t gx, int64_t gy, int64_t gz) {
  return "{\"name\": \"count\", \"buffers\": ["
         "{\"role\": \"input\", \"shape\": [3], \"dtype\": \"i64\"}, "
         "{\"role\": \"output\", \"shape\": [" +
         std::to_string(gx * gy * gz + 1) +
         "], \"dtype\": \"i32\"}], "
         "\"dispatches\": [{\"symbol\": \"count_hits\", \"grid\": [" +
         std::to_string(gx) + ", " + std::to_string(gy) + ", " +
         std::to_string(gz) + "], \"bindings\": [0, 1]}]}";
}

/// Entry "threads": ids[x] = the thread that ran workgroup x.
inline std::string threadsEntry(int64_t workgroups) {
  return "{\"name\": \"threads\", \"buffers\": ["
         "{\"role\": \"output\", \"shape\": [" +
         std::to_string(workgroups) +
         "], \"dtype\": \"i64\"}], "
         "\"dispatches\": [{\"symbol\": \"record_thread\", \"grid\": [" +
         std::to_string(workgroups) + ", 1, 1], \"bindings\": [0]}]}";
}

/// A device, module and helpers for tests that run kernels.
class RuntimeFixture : public ::testing::Test {
protected:
  void TearDown() override {
    ejk_module_destroy(module_);
    ejk_device_destroy(device_);
  }

  /// Creates the device (EJK_NUM_THREADS as the test set it).
  void createDevice() {
    ASSERT_EQ(ejk_device_create("cpu", &device_), EJK_OK) << ejk_last_error();
  }

  /// Writes \p manifest and loads it on the device, replacing (and
  /// destroying) the module an earlier call loaded.
  void load(const std::string &manifest) {
    if (!device_)
      createDevice();
    ejk_module_destroy(module_);
    module_ = nullptr;
    std::string path = dir_.write("artifact.json", manifest);
    ASSERT_EQ(ejk_module_load(device_, path.c_str(), &module_), EJK_OK)
        << ejk_last_error();
  }

  /// A buffer holding \p values; destroyed with the fixture.
  template <typename T> ejk_buffer *buffer(const std::vector<T> &values) {
    ejk_buffer *handle = nullptr;
    EXPECT_EQ(ejk_buffer_create(device_, values.size() * sizeof(T), &handle),
              EJK_OK)
        << ejk_last_error();
    if (!handle)
      return nullptr;
    EXPECT_EQ(
        ejk_buffer_upload(handle, values.data(), values.size() * sizeof(T), 0),
        EJK_OK)
        << ejk_last_error();
    buffers_.emplace_back(handle);
    return handle;
  }

  /// The contents of \p handle as \p count values of T.
  template <typename T> std::vector<T> read(ejk_buffer *handle, size_t count) {
    std::vector<T> values(count);
    EXPECT_EQ(ejk_buffer_download(handle, values.data(), count * sizeof(T), 0),
              EJK_OK)
        << ejk_last_error();
    return values;
  }

  struct BufferDeleter {
    void operator()(ejk_buffer *handle) const { ejk_buffer_destroy(handle); }
  };

  TempDir dir_;
  ejk_device *device_ = nullptr;
  ejk_module *module_ = nullptr;
  std::vector<std::unique_ptr<ejk_buffer, BufferDeleter>> buffers_;
};

} // namespace ejk::test

#endif // EJK_TEST_UNIT_RUNTIME_RUNTIMETESTUTIL_H
