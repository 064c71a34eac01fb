//===- VulkanDeviceTest.cpp - Vulkan device selection and fingerprints ----===//

#include "VulkanTestUtil.h"

#include "ejk/Runtime/Runtime.hpp"
#include "ejk/Support/Fingerprint.h"

#include <cctype>

using namespace ejk::test;

namespace {

/// The fingerprint text of \p device.
std::string fingerprintText(ejk_device *device) {
  size_t length = 0;
  EXPECT_EQ(ejk_device_fingerprint(device, nullptr, 0, &length), EJK_OK)
      << ejk_last_error();
  std::string text(length + 1, '\0');
  EXPECT_EQ(ejk_device_fingerprint(device, text.data(), text.size(), &length),
            EJK_OK)
      << ejk_last_error();
  text.resize(length);
  return text;
}

ejk::DeviceFingerprint parseFingerprint(const std::string &text) {
  ejk::DeviceFingerprint fingerprint;
  std::string error;
  EXPECT_TRUE(ejk::DeviceFingerprint::parse(text, fingerprint, error)) << error;
  return fingerprint;
}

/// Skips the calling test when the machine has no Vulkan device.
#define REQUIRE_VULKAN()                                                       \
  do {                                                                         \
    ejk_device *probe = nullptr;                                               \
    if (ejk_device_create("vulkan", &probe) != EJK_OK)                         \
      GTEST_SKIP() << "no Vulkan device: " << ejk_last_error();                \
    ejk_device_destroy(probe);                                                 \
  } while (false)

TEST(VulkanDeviceTest, NoLoaderIsUnavailable) {
  ScopedEnv loader("EJK_VULKAN_LOADER", "/nonexistent/libvulkan.so.1");
  for (const char *spec : {"vulkan", "vulkan:0", "vulkan:llvmpipe"}) {
    ejk_device *device = reinterpret_cast<ejk_device *>(0x1);
    EXPECT_EQ(ejk_device_create(spec, &device), EJK_ERROR_UNAVAILABLE) << spec;
    EXPECT_EQ(device, nullptr);
    std::string message = ejk_last_error();
    EXPECT_NE(message.find("no Vulkan loader"), std::string::npos) << message;
    EXPECT_NE(message.find("/nonexistent/libvulkan.so.1"), std::string::npos)
        << message;
  }
  // The CPU device does not need Vulkan.
  ejk_device *cpu = nullptr;
  ASSERT_EQ(ejk_device_create("cpu", &cpu), EJK_OK) << ejk_last_error();
  ejk_device_destroy(cpu);
}

TEST(VulkanDeviceTest, LibraryThatIsNotALoaderIsUnavailable) {
  ScopedEnv loader("EJK_VULKAN_LOADER", kernelsPath().c_str());
  ejk_device *device = nullptr;
  EXPECT_EQ(ejk_device_create("vulkan", &device), EJK_ERROR_UNAVAILABLE);
  EXPECT_NE(std::string(ejk_last_error()).find("is not a Vulkan loader"),
            std::string::npos)
      << ejk_last_error();
}

TEST(VulkanDeviceTest, EmptySelectorIsInvalid) {
  ejk_device *device = nullptr;
  EXPECT_EQ(ejk_device_create("vulkan:", &device), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error()).find("empty selector"),
            std::string::npos)
      << ejk_last_error();
}

TEST(VulkanDeviceTest, SelectorMatchingNothingListsTheDevices) {
  REQUIRE_VULKAN();
  ejk_device *device = nullptr;
  {
    ScopedEnv selector("EJK_VULKAN_DEVICE", "no-such-gpu");
    EXPECT_EQ(ejk_device_create("vulkan", &device), EJK_ERROR_UNAVAILABLE);
    std::string message = ejk_last_error();
    EXPECT_NE(message.find("no Vulkan device matches EJK_VULKAN_DEVICE "
                           "'no-such-gpu'"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("(devices: 0: '"), std::string::npos) << message;
  }
  for (const char *spec : {"vulkan:99", "vulkan:123456789012345678901234"}) {
    EXPECT_EQ(ejk_device_create(spec, &device), EJK_ERROR_UNAVAILABLE) << spec;
    EXPECT_NE(std::string(ejk_last_error()).find("(devices: 0: '"),
              std::string::npos)
        << ejk_last_error();
  }
  EXPECT_EQ(device, nullptr);
}

TEST(VulkanDeviceTest, SelectsByIndexAndByNameSubstring) {
  REQUIRE_VULKAN();
  ScopedEnv noSelector("EJK_VULKAN_DEVICE", nullptr);
  ejk_device *first = nullptr;
  ASSERT_EQ(ejk_device_create("vulkan:0", &first), EJK_OK) << ejk_last_error();
  std::string name =
      parseFingerprint(fingerprintText(first)).get("device_name");
  ejk_device_destroy(first);
  ASSERT_GE(name.size(), 3u);

  // A case-insensitive substring, from the spec and from the environment.
  std::string upper = name.substr(1, 3);
  for (char &c : upper)
    c = char(std::toupper(static_cast<unsigned char>(c)));
  ejk_device *byName = nullptr;
  ASSERT_EQ(ejk_device_create(("vulkan:" + upper).c_str(), &byName), EJK_OK)
      << ejk_last_error();
  EXPECT_EQ(parseFingerprint(fingerprintText(byName)).get("device_name"), name);
  ejk_device_destroy(byName);

  ScopedEnv selector("EJK_VULKAN_DEVICE", upper.c_str());
  ejk_device *fromEnv = nullptr;
  ASSERT_EQ(ejk_device_create("vulkan", &fromEnv), EJK_OK) << ejk_last_error();
  EXPECT_EQ(parseFingerprint(fingerprintText(fromEnv)).get("device_name"),
            name);
  const char *kind = nullptr;
  EXPECT_EQ(ejk_device_kind(fromEnv, &kind), EJK_OK);
  EXPECT_STREQ(kind, "vulkan");
  ejk_device_destroy(fromEnv);
}

TEST(VulkanDeviceTest, FingerprintDescribesTheDevice) {
  REQUIRE_VULKAN();
  ejk_device *device = nullptr;
  ASSERT_EQ(ejk_device_create("vulkan", &device), EJK_OK) << ejk_last_error();
  std::string text = fingerprintText(device);
  ejk_device_destroy(device);
  ejk::DeviceFingerprint fp = parseFingerprint(text);
  EXPECT_EQ(fp.kind, "vulkan");
  EXPECT_EQ(text.rfind("kind=vulkan\n", 0), 0u) << text;
  for (const char *key :
       {"vendor_id", "device_id", "driver_version", "device_name",
        "device_type", "api_version", "spirv_version", "subgroup_size",
        "subgroup_operations", "max_shared_memory", "max_workgroup_invocations",
        "max_workgroup_size", "max_workgroup_count", "max_push_constants",
        "timestamp_bits", "timestamp_period_ns"})
    EXPECT_FALSE(fp.get(key).empty()) << key << " missing from\n" << text;
  std::string uuid = fp.get("pipeline_cache_uuid");
  EXPECT_EQ(uuid.size(), 32u) << text;
  EXPECT_EQ(uuid.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(fp.get("vendor_id").rfind("0x", 0), 0u);
  EXPECT_GT(std::atoi(fp.get("subgroup_size").c_str()), 0);
  EXPECT_GE(std::atoi(fp.get("max_shared_memory").c_str()),
            16384); // spec minimum
  EXPECT_GE(std::atoi(fp.get("max_workgroup_invocations").c_str()), 128);
  for (const char *flag : {"float16", "storage16", "storage8", "int64",
                           "cooperative_matrix", "vulkan_memory_model"})
    EXPECT_TRUE(fp.get(flag) == "0" || fp.get(flag) == "1") << flag << " in\n"
                                                            << text;
  // The shapes are listed exactly when the extension is there.
  EXPECT_EQ(fp.get("cooperative_matrix") == "1",
            !fp.get("cooperative_matrix_shapes").empty())
      << text;
  // The SM count: only where the device says (VK_NV_shader_sm_builtins),
  // a positive number; others' fingerprints are what they were.
  if (fp.get("vendor_id") != "0x10de") {
    EXPECT_TRUE(fp.get("sm_count").empty()) << text;
  } else if (!fp.get("sm_count").empty()) {
    EXPECT_GT(std::atoi(fp.get("sm_count").c_str()), 0) << text;
  }
  EXPECT_EQ(fp.hash().size(), 16u);
}

TEST(VulkanDeviceTest, CpuFingerprintIsTheHostCpus) {
  ejk_device *device = nullptr;
  ASSERT_EQ(ejk_device_create("cpu", &device), EJK_OK) << ejk_last_error();
  EXPECT_EQ(fingerprintText(device), ejk::hostCpuFingerprint().text());
  const char *kind = nullptr;
  EXPECT_EQ(ejk_device_kind(device, &kind), EJK_OK);
  EXPECT_STREQ(kind, "cpu");
  ejk_device_destroy(device);
}

TEST(VulkanDeviceTest, FingerprintBufferErrors) {
  ejk_device *device = nullptr;
  ASSERT_EQ(ejk_device_create("cpu", &device), EJK_OK) << ejk_last_error();
  size_t length = 0;
  ASSERT_EQ(ejk_device_fingerprint(device, nullptr, 0, &length), EJK_OK);
  ASSERT_GT(length, 4u);
  std::vector<char> small(length, 'x'); // no room for the NUL
  EXPECT_EQ(ejk_device_fingerprint(device, small.data(), small.size(), nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(
      std::string(ejk_last_error()).find("needs " + std::to_string(length + 1)),
      std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(small[0], '\0');
  EXPECT_EQ(ejk_device_fingerprint(device, nullptr, 8, &length),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(
      ejk_device_fingerprint(nullptr, small.data(), small.size(), &length),
      EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_device_kind(device, nullptr), EJK_ERROR_INVALID_ARGUMENT);
  ejk_device_destroy(device);
}

TEST(VulkanDeviceTest, ThreadCountIsForCpuDevicesOnly) {
  REQUIRE_VULKAN();
  ejk_device *device = nullptr;
  ASSERT_EQ(ejk_device_create("vulkan", &device), EJK_OK) << ejk_last_error();
  size_t count = 7;
  EXPECT_EQ(ejk_device_thread_count(device, &count),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error()).find("not 'cpu'"), std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(count, 7u);
  ejk_device_destroy(device);
}

TEST(VulkanDeviceTest, CppWrapperGivesKindAndFingerprint) {
  ejk::Device cpu;
  ASSERT_TRUE(ejk::Device::create("cpu", cpu));
  std::string text;
  ASSERT_TRUE(cpu.fingerprint(text));
  EXPECT_EQ(text, ejk::hostCpuFingerprint().text());
  EXPECT_EQ(cpu.kind(), "cpu");
  EXPECT_GT(cpu.threadCount(), 0u);
  ejk::Device empty;
  EXPECT_EQ(empty.kind(), "");
  ejk::Status status = empty.fingerprint(text);
  EXPECT_EQ(status.code, EJK_ERROR_INVALID_ARGUMENT);

  ejk::Device vulkan;
  if (!ejk::Device::create("vulkan", vulkan))
    GTEST_SKIP() << "no Vulkan device";
  ASSERT_TRUE(vulkan.fingerprint(text));
  EXPECT_EQ(text.rfind("kind=vulkan\n", 0), 0u);
  EXPECT_EQ(vulkan.kind(), "vulkan");
  EXPECT_EQ(vulkan.threadCount(), 0u);
}

TEST(VulkanDeviceTest, ValidationIsReportedWhenRequested) {
  REQUIRE_VULKAN();
  int enabled = 0;
  uint64_t messages = 0;
  EXPECT_EQ(ejk_vulkan_validation(nullptr, &messages),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_vulkan_validation(&enabled, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  ScopedEnv validation("EJK_VULKAN_VALIDATION", "1");
  ejk_device *device = nullptr;
  ASSERT_EQ(ejk_device_create("vulkan", &device), EJK_OK) << ejk_last_error();
  ASSERT_EQ(ejk_vulkan_validation(&enabled, &messages), EJK_OK);
  bool installed = fileExists("/usr/share/vulkan/explicit_layer.d/"
                              "VkLayer_khronos_validation.json");
  if (installed)
    EXPECT_EQ(enabled, 1);
  else
    std::printf("note: VK_LAYER_KHRONOS_validation is not installed\n");
  ejk_device_destroy(device);
}

} // namespace
