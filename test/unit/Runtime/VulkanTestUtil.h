//===- VulkanTestUtil.h - Helpers for the Vulkan runtime tests --*- C++ -*-===//
//
// The fixture creates a Vulkan device with the validation layer on (when it
// is installed) and a private cache directory, skips the test when the
// machine has no Vulkan device, and fails it when the layer reported
// anything during the test. The kernels are the GLSL shaders in shaders/,
// compiled at build time into EJK_TEST_SHADER_DIR.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_TEST_UNIT_RUNTIME_VULKANTESTUTIL_H
#define EJK_TEST_UNIT_RUNTIME_VULKANTESTUTIL_H

#include "RuntimeTestUtil.h"

#include <sys/stat.h>

#include <cstring>
#include <sstream>
#include <string>
#include <vector>

namespace ejk::test {

/// The compiled test shader \p name ("add.spv").
inline std::string shaderPath(const std::string &name) {
  return std::string(EJK_TEST_SHADER_DIR) + "/" + name;
}

inline bool fileExists(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

inline std::string readBinary(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

/// A manifest for target "vulkan" with the given entries (JSON objects).
inline std::string vulkanManifest(const std::vector<std::string> &entries) {
  std::string text = "{\"format\": \"ejk-artifact\", \"version\": 1, "
                     "\"target\": \"vulkan\", \"entries\": [";
  for (size_t i = 0; i < entries.size(); ++i)
    text += (i ? ", " : "") + entries[i];
  return text + "]}";
}

/// A one-dimensional f32 buffer description.
inline std::string f32Buffer(const char *role, int64_t n,
                             const char *dtype = "f32") {
  return std::string("{\"role\": \"") + role + "\", \"shape\": [" +
         std::to_string(n) + "], \"dtype\": \"" + dtype + "\"}";
}

/// A dispatch of \p spirv; \p extra is appended inside the object.
inline std::string vulkanDispatch(const std::string &symbol,
                                  const std::string &spirv, int64_t gx,
                                  const std::string &bindings,
                                  const std::string &extra = "", int64_t gy = 1,
                                  int64_t gz = 1) {
  return "{\"symbol\": \"" + symbol + "\", \"spirv\": \"" + spirv +
         "\", \"entry_point\": \"main\", \"grid\": [" + std::to_string(gx) +
         ", " + std::to_string(gy) + ", " + std::to_string(gz) +
         "], \"bindings\": " + bindings + extra + "}";
}

/// Entry "add": c = a + b over n floats (n a multiple of 64).
inline std::string
vulkanAddEntry(int64_t n, const std::string &spirv = shaderPath("add.spv"),
               const std::string &extra = "") {
  return "{\"name\": \"add\", \"buffers\": [" + f32Buffer("input", n) + ", " +
         f32Buffer("input", n) + ", " + f32Buffer("output", n) +
         "], \"dispatches\": [" +
         vulkanDispatch("add_dispatch", spirv, n / 64, "[0, 1, 2]",
                        ", \"workgroup_size\": [64, 1, 1]" + extra) +
         "]}";
}

/// Fails the test when the validation layer reported anything since the
/// last reset().
class ValidationWatch {
public:
  ValidationWatch() { reset(); }
  void reset() {
    int enabled = 0;
    ejk_vulkan_validation(&enabled, &start_);
  }
  uint64_t newMessages() const {
    int enabled = 0;
    uint64_t now = 0;
    ejk_vulkan_validation(&enabled, &now);
    return now - start_;
  }
  static bool enabled() {
    int enabled = 0;
    uint64_t messages = 0;
    ejk_vulkan_validation(&enabled, &messages);
    return enabled != 0;
  }

private:
  uint64_t start_ = 0;
};

/// A Vulkan device (validation on, a private cache directory) plus the
/// RuntimeFixture helpers. Tests skip when there is no Vulkan device or the
/// test shaders were not built.
class VulkanFixture : public RuntimeFixture {
protected:
  void SetUp() override {
    if (!fileExists(shaderPath("add.spv")))
      GTEST_SKIP() << "test shaders were not built (glslangValidator was not "
                      "found at configure time; install glslang-tools)";
    ejk_status status = ejk_device_create("vulkan", &device_);
    if (status == EJK_ERROR_UNAVAILABLE)
      GTEST_SKIP() << "no Vulkan device: " << ejk_last_error();
    ASSERT_EQ(status, EJK_OK) << ejk_last_error();
    watch_.reset();
  }

  void TearDown() override {
    buffers_.clear();
    RuntimeFixture::TearDown();
    module_ = nullptr;
    device_ = nullptr;
    EXPECT_EQ(watch_.newMessages(), expectedValidationMessages_)
        << "the Vulkan validation layer reported problems (see stderr)";
  }

  /// Writes \p manifest and loads it, returning the status.
  ejk_status tryLoad(const std::string &manifest,
                     const std::string &name = "artifact.json") {
    std::string path = dir_.write(name, manifest);
    ejk_module_destroy(module_);
    module_ = nullptr;
    return ejk_module_load(device_, path.c_str(), &module_);
  }

  /// Asserts that loading \p manifest fails with \p code and a message
  /// containing \p text.
  void expectLoadError(const std::string &manifest, ejk_status code,
                       const std::string &text) {
    EXPECT_EQ(tryLoad(manifest), code) << ejk_last_error();
    EXPECT_EQ(module_, nullptr);
    std::string message = ejk_last_error();
    EXPECT_NE(message.find(text), std::string::npos)
        << "message: " << message << "\nexpected to contain: " << text;
  }

  /// A copy of the shader \p name in the test's directory, patched by
  /// \p patch, under \p as.
  template <typename Patch>
  std::string patchedShader(const std::string &name, const std::string &as,
                            Patch patch) {
    std::string bytes = readBinary(shaderPath(name));
    std::vector<uint32_t> words(bytes.size() / 4);
    std::memcpy(words.data(), bytes.data(), words.size() * 4);
    patch(words);
    return dir_.write(as,
                      std::string(reinterpret_cast<const char *>(words.data()),
                                  words.size() * 4));
  }

  /// add.spv with `OpCapability capability` inserted after the header,
  /// under \p as: a module declaring what a device may lack.
  std::string shaderWithCapability(uint32_t capability, const std::string &as) {
    return patchedShader("add.spv", as, [&](std::vector<uint32_t> &words) {
      std::vector<uint32_t> patched(words.begin(), words.begin() + 5);
      patched.push_back((2u << 16) | 17u); // OpCapability, 2 words
      patched.push_back(capability);
      patched.insert(patched.end(), words.begin() + 5, words.end());
      words.swap(patched);
    });
  }

  ScopedEnv validation_{"EJK_VULKAN_VALIDATION", "1"};
  ScopedEnv cacheDir_{"EJK_CACHE_DIR", (dir_.path() + "/cache").c_str()};
  ScopedEnv noDevice_{"EJK_VULKAN_DEVICE", nullptr};
  ValidationWatch watch_;
  uint64_t expectedValidationMessages_ = 0;
};

} // namespace ejk::test

#endif // EJK_TEST_UNIT_RUNTIME_VULKANTESTUTIL_H
