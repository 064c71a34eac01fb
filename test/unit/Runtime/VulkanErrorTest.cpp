//===- VulkanErrorTest.cpp - Every way a Vulkan load or invoke can fail ---===//

#include "VulkanTestUtil.h"

#include "ejk/Support/Fingerprint.h"

#include <cstdlib>

using namespace ejk::test;

namespace {

class VulkanErrorTest : public VulkanFixture {
protected:
  /// A field of the device's fingerprint.
  std::string fingerprint(const std::string &key) {
    size_t length = 0;
    EXPECT_EQ(ejk_device_fingerprint(device_, nullptr, 0, &length), EJK_OK);
    std::string text(length + 1, '\0');
    EXPECT_EQ(
        ejk_device_fingerprint(device_, text.data(), text.size(), nullptr),
        EJK_OK);
    ejk::DeviceFingerprint fp;
    std::string error;
    EXPECT_TRUE(ejk::DeviceFingerprint::parse(text.c_str(), fp, error))
        << error;
    return fp.get(key);
  }

  /// The manifest of "add" with \p extra in its dispatch.
  std::string addWith(const std::string &extra,
                      const std::string &spirv = shaderPath("add.spv")) {
    return vulkanManifest({vulkanAddEntry(256, spirv, extra)});
  }
};

/// Index of the first instruction with \p opcode and word count \p count.
size_t findInstruction(const std::vector<uint32_t> &words, uint32_t opcode,
                       uint32_t count) {
  for (size_t i = 5; i < words.size(); i += words[i] >> 16)
    if ((words[i] & 0xffff) == opcode && (words[i] >> 16) == count)
      return i;
  ADD_FAILURE() << "no instruction " << opcode;
  return 0;
}

TEST_F(VulkanErrorTest, MissingSpirvFileIsNotFound) {
  std::string path = dir_.file("nowhere.spv");
  expectLoadError(addWith("", path), EJK_ERROR_NOT_FOUND,
                  "entry 'add' dispatch 0 ('add_dispatch'): SPIR-V file '" +
                      path + "' does not exist");
}

TEST_F(VulkanErrorTest, FileThatIsNotSpirvIsFormat) {
  std::string odd = dir_.write("odd.spv", std::string(22, '\1'));
  expectLoadError(addWith("", odd), EJK_ERROR_FORMAT,
                  "is not SPIR-V: its size (22 bytes) is not a multiple of 4");
  std::string text = dir_.write("text.spv", std::string(64, 'a'));
  expectLoadError(addWith("", text), EJK_ERROR_FORMAT,
                  "is not SPIR-V: magic number 0x61616161, expected "
                  "0x07230203");
  std::string cut =
      patchedShader("add.spv", "cut.spv", [](std::vector<uint32_t> &words) {
        words[5] = (0xffffu << 16) | 17;
      });
  expectLoadError(addWith("", cut), EJK_ERROR_FORMAT,
                  "SPIR-V instruction at word 5 runs past the end of the file");
}

TEST_F(VulkanErrorTest, MissingEntryPointIsNotFound) {
  std::string manifest = addWith("");
  size_t at = manifest.find("\"entry_point\": \"main\"");
  manifest.replace(at, 21, "\"entry_point\": \"attention\"");
  expectLoadError(manifest, EJK_ERROR_NOT_FOUND,
                  "has no GLCompute entry point 'attention' (it has: 'main')");
}

TEST_F(VulkanErrorTest, MissingVulkanFieldsAreFormat) {
  std::string manifest = addWith("");
  std::string noSpirv = manifest;
  noSpirv.replace(noSpirv.find("\"spirv\""), 7, "\"spirf\"");
  expectLoadError(noSpirv, EJK_ERROR_FORMAT,
                  "dispatch 0 ('add_dispatch'): missing 'spirv'");
  std::string noEntry = manifest;
  noEntry.replace(noEntry.find("\"entry_point\""), 13, "\"entry\"");
  expectLoadError(noEntry, EJK_ERROR_FORMAT, "missing 'entry_point'");
  std::string emptySpirv = manifest;
  size_t at = emptySpirv.find("\"spirv\": \"") + 10;
  emptySpirv.erase(at, emptySpirv.find('"', at) - at);
  expectLoadError(emptySpirv, EJK_ERROR_FORMAT, "'spirv' is empty");
  expectLoadError(addWith(", \"push_constants\": [1, 2]"), EJK_ERROR_FORMAT,
                  "'push_constants' has 2 bytes, not a multiple of 4");
  expectLoadError(addWith(", \"push_constants\": [1, 2, 3, 256]"),
                  EJK_ERROR_FORMAT,
                  "'push_constants' element 3 must be an integer in [0, 255]");
  expectLoadError(addWith(", \"requires\": \"float16\""), EJK_ERROR_FORMAT,
                  "'requires' must be an array of strings");
}

TEST_F(VulkanErrorTest, MissingRequiredFeatureIsUnavailable) {
  if (fingerprint("cooperative_matrix") == "1")
    GTEST_SKIP() << "the device has VK_KHR_cooperative_matrix";
  expectLoadError(addWith(", \"requires\": [\"storage16\", "
                          "\"cooperative_matrix\"]"),
                  EJK_ERROR_UNAVAILABLE,
                  "the kernel requires device feature 'cooperative_matrix', "
                  "which Vulkan device '");
}

TEST_F(VulkanErrorTest, MissingCooperativeMatrix2IsUnavailable) {
  if (fingerprint("cooperative_matrix2") == "1")
    GTEST_SKIP() << "the device has VK_NV_cooperative_matrix2";
  // A known feature (the fingerprint writes no line for it on such a
  // device), refused by name.
  EXPECT_EQ(fingerprint("cooperative_matrix2"), "");
  expectLoadError(addWith(", \"requires\": [\"cooperative_matrix2\"]"),
                  EJK_ERROR_UNAVAILABLE,
                  "the kernel requires device feature 'cooperative_matrix2', "
                  "which Vulkan device '");
}

TEST_F(VulkanErrorTest, UnknownRequiredFeatureIsFormat) {
  expectLoadError(addWith(", \"requires\": [\"warp_drive\"]"), EJK_ERROR_FORMAT,
                  "unknown required feature 'warp_drive' (known: float16, ");
}

TEST_F(VulkanErrorTest, SpirvCapabilityTheDeviceLacksIsUnavailable) {
  if (fingerprint("cooperative_matrix") == "1")
    GTEST_SKIP() << "the device has VK_KHR_cooperative_matrix";
  // OpCapability CooperativeMatrixKHR (6022), inserted after the header:
  // the runtime must refuse before the driver sees it.
  std::string path = shaderWithCapability(6022u, "coop.spv");
  expectLoadError(addWith("", path), EJK_ERROR_UNAVAILABLE,
                  "the SPIR-V declares capability 6022, which needs device "
                  "feature 'cooperative_matrix'");
}

TEST_F(VulkanErrorTest, CooperativeMatrix2CapabilityTheDeviceLacks) {
  if (fingerprint("cooperative_matrix2") == "1")
    GTEST_SKIP() << "the device has VK_NV_cooperative_matrix2";
  // OpCapability CooperativeMatrixReductionsNV (5430).
  std::string path = shaderWithCapability(5430u, "cm2.spv");
  expectLoadError(addWith("", path), EJK_ERROR_UNAVAILABLE,
                  "the SPIR-V declares capability 5430, which needs device "
                  "feature 'cooperative_matrix2'");
}

TEST_F(VulkanErrorTest, CooperativeMatrixBlockLoadsAreRefusedEverywhere) {
  // OpCapability CooperativeMatrixBlockLoadsNV (5434): the runtime enables
  // VK_NV_cooperative_matrix2 with block loads off, on every device.
  std::string path = shaderWithCapability(5434u, "blockloads.spv");
  expectLoadError(addWith("", path), EJK_ERROR_UNAVAILABLE,
                  "the SPIR-V declares capability 5434, which needs device "
                  "feature 'cooperative_matrix2_block_loads'; the runtime "
                  "enables it on no device");
}

TEST_F(VulkanErrorTest, SpirvNewerThanTheDeviceIsUnavailable) {
  std::string path =
      patchedShader("add.spv", "new.spv", [](std::vector<uint32_t> &words) {
        words[1] = 0x00010900; // SPIR-V 1.9
      });
  expectLoadError(addWith("", path), EJK_ERROR_UNAVAILABLE,
                  "the kernel is SPIR-V 1.9, but Vulkan device '");
}

TEST_F(VulkanErrorTest, WorkgroupSizeMustMatchAndFit) {
  expectLoadError(
      vulkanManifest({vulkanAddEntry(256).replace(
          vulkanAddEntry(256).find("[64, 1, 1]"), 10, "[32, 1, 1]")}),
      EJK_ERROR_FORMAT,
      "'workgroup_size' is [32, 1, 1], but the SPIR-V declares [64, 1, 1]");
  // OpExecutionMode %main LocalSize 100000 1 1.
  std::string path =
      patchedShader("add.spv", "huge.spv", [](std::vector<uint32_t> &words) {
        size_t at = findInstruction(words, 16, 6);
        words[at + 3] = 100000;
      });
  std::string manifest = vulkanManifest({vulkanAddEntry(256, path)});
  manifest.replace(manifest.find(", \"workgroup_size\": [64, 1, 1]"), 30, "");
  expectLoadError(manifest, EJK_ERROR_UNAVAILABLE,
                  "workgroup size [100000, 1, 1] exceeds the limits on Vulkan "
                  "device '");
}

TEST_F(VulkanErrorTest, DeviceLimitsAreChecked) {
  std::string maxCount = fingerprint("max_workgroup_count");
  unsigned long long maxX = std::strtoull(maxCount.c_str(), nullptr, 10);
  ASSERT_GT(maxX, 0u);
  std::string entry = vulkanAddEntry(256);
  entry.replace(entry.find("\"grid\": [4, 1, 1]"), 17,
                "\"grid\": [" + std::to_string(maxX + 1) + ", 1, 1]");
  expectLoadError(vulkanManifest({entry}), EJK_ERROR_UNAVAILABLE,
                  "'grid' dim 0 is " + std::to_string(maxX + 1) +
                      ", more than the " +
                      maxCount.substr(0, maxCount.find(',')) +
                      " workgroups (maxComputeWorkGroupCount)");

  long shared = std::atol(fingerprint("max_shared_memory").c_str());
  expectLoadError(
      addWith(", \"shared_memory_bytes\": " + std::to_string(shared + 1)),
      EJK_ERROR_UNAVAILABLE,
      "uses " + std::to_string(shared + 1) +
          " bytes of shared memory, more than the " + std::to_string(shared) +
          " bytes");

  long push = std::atol(fingerprint("max_push_constants").c_str());
  std::string bytes;
  for (long i = 0; i < push + 4; ++i)
    bytes += (i ? ", " : "") + std::string("0");
  expectLoadError(addWith(", \"push_constants\": [" + bytes + "]"),
                  EJK_ERROR_UNAVAILABLE,
                  std::to_string(push + 4) + " bytes of push constants");
}

TEST_F(VulkanErrorTest, SubgroupSizeMustBeTheDevices) {
  long size = std::atol(fingerprint("subgroup_size").c_str());
  ASSERT_GT(size, 0);
  expectLoadError(addWith(", \"subgroup_size\": " + std::to_string(size * 2)),
                  EJK_ERROR_UNAVAILABLE,
                  "the kernel was compiled for subgroup size " +
                      std::to_string(size * 2) + ", but Vulkan device '");
  expectLoadError(addWith(", \"subgroup_size\": -1"), EJK_ERROR_FORMAT,
                  "'subgroup_size' must be a non-negative integer");
  // The device's own size loads.
  EXPECT_EQ(tryLoad(addWith(", \"subgroup_size\": " + std::to_string(size))),
            EJK_OK)
      << ejk_last_error();
}

TEST_F(VulkanErrorTest, SpirvInterfaceMustMatchTheDispatch) {
  // add.spv uses bindings 0, 1 and 2.
  std::string entry = vulkanAddEntry(256);
  entry.replace(entry.find("\"bindings\": [0, 1, 2]"), 21,
                "\"bindings\": [0, 1]");
  expectLoadError(vulkanManifest({entry}), EJK_ERROR_FORMAT,
                  "the SPIR-V uses binding 2, but the dispatch has 2 bindings");

  std::string set1 =
      patchedShader("add.spv", "set1.spv", [](std::vector<uint32_t> &words) {
        size_t at = findInstruction(words, 71, 4); // OpDecorate x Decoration v
        while ((words[at] & 0xffff) != 71 || words[at + 2] != 34)
          at += words[at] >> 16;
        words[at + 3] = 1; // DescriptorSet 1
      });
  expectLoadError(addWith("", set1), EJK_ERROR_FORMAT,
                  "the SPIR-V uses descriptor set 1; ejk kernels bind "
                  "everything at set 0");

  std::string affine =
      "{\"name\": \"affine\", \"buffers\": [" + f32Buffer("input", 64) + ", " +
      f32Buffer("output", 64) + "], \"dispatches\": [" +
      vulkanDispatch("affine", shaderPath("affine.spv"), 1, "[0, 1]") + "]}";
  expectLoadError(vulkanManifest({affine}), EJK_ERROR_FORMAT,
                  "the SPIR-V uses push constants, but the dispatch has no "
                  "'push_constants'");
}

TEST_F(VulkanErrorTest, TargetMustMatchTheDevice) {
  expectLoadError(manifestText({addEntry(64)}), EJK_ERROR_INVALID_ARGUMENT,
                  "'target' is 'cpu', but the device is 'vulkan'");
  ejk_device *cpu = nullptr;
  ASSERT_EQ(ejk_device_create("cpu", &cpu), EJK_OK);
  std::string path = dir_.write("vk.json", addWith(""));
  ejk_module *module = nullptr;
  EXPECT_EQ(ejk_module_load(cpu, path.c_str(), &module),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error())
                .find("'target' is 'vulkan', but the device is 'cpu'"),
            std::string::npos)
      << ejk_last_error();
  ejk_device_destroy(cpu);
}

TEST_F(VulkanErrorTest, WrongBufferSizesAreInvalid) {
  load(addWith(""));
  ejk_buffer *a = buffer(std::vector<float>(256, 1.0f));
  ejk_buffer *b = buffer(std::vector<float>(255, 1.0f));
  ejk_buffer *c = buffer(std::vector<float>(256, 0.0f));
  ejk_buffer *inputs[2] = {a, b};
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 2, &c, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error())
                .find("entry 'add' input 1 needs 1024 bytes, buffer has 1020"),
            std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 1, &c, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  // Nothing ran: the output is still zero.
  EXPECT_EQ(read<float>(c, 256), std::vector<float>(256, 0.0f));
}

TEST_F(VulkanErrorTest, BuffersFromAnotherDeviceAreInvalid) {
  load(addWith(""));
  ejk_buffer *a = buffer(std::vector<float>(256, 1.0f));
  ejk_buffer *c = buffer(std::vector<float>(256, 0.0f));

  ejk_device *cpu = nullptr;
  ASSERT_EQ(ejk_device_create("cpu", &cpu), EJK_OK);
  ejk_buffer *onCpu = nullptr;
  ASSERT_EQ(ejk_buffer_create(cpu, 1024, &onCpu), EJK_OK);
  ejk_buffer *inputs[2] = {a, onCpu};
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 2, &c, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error())
                .find("input 1 was created on another device"),
            std::string::npos)
      << ejk_last_error();

  ejk_device *other = nullptr;
  ASSERT_EQ(ejk_device_create("vulkan", &other), EJK_OK) << ejk_last_error();
  ejk_buffer *onOther = nullptr;
  ASSERT_EQ(ejk_buffer_create(other, 1024, &onOther), EJK_OK);
  inputs[1] = a;
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 2, &onOther, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error())
                .find("output 0 was created on another device"),
            std::string::npos)
      << ejk_last_error();
  ejk_buffer_destroy(onOther);
  ejk_buffer_destroy(onCpu);
  ejk_device_destroy(other);
  ejk_device_destroy(cpu);
}

TEST_F(VulkanErrorTest, ValidationLayerFindingsFailTheLoad) {
  if (!ValidationWatch::enabled())
    GTEST_SKIP() << "VK_LAYER_KHRONOS_validation is not installed";
  if (!fileExists(shaderPath("invalid.spv")))
    GTEST_SKIP() << "spirv-as was not found at build time";
  std::string manifest = vulkanManifest(
      {"{\"name\": \"bad\", \"buffers\": [], \"dispatches\": [" +
       vulkanDispatch("bad", shaderPath("invalid.spv"), 1, "[]") + "]}"});
  expectLoadError(manifest, EJK_ERROR_INTERNAL,
                  "dispatch 0 ('bad'): vkCreateShaderModule: the Vulkan "
                  "validation layer reported: ");
  // The messenger saw it; the fixture would otherwise fail the test.
  expectedValidationMessages_ = watch_.newMessages();
  EXPECT_GE(expectedValidationMessages_, 1u);
}

} // namespace
