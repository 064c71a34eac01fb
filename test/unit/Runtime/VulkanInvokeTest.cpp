//===- VulkanInvokeTest.cpp - Running SPIR-V kernels on a Vulkan device ---===//
//
// Each test runs twice: with the buffers as the device offers them (mapped
// on lavapipe) and with EJK_VULKAN_STAGING=1, which sends every upload and
// download through staging buffers and queue copies.
//
//===----------------------------------------------------------------------===//

#include "VulkanTestUtil.h"

#include <algorithm>
#include <cstdint>
#include <thread>

#include <unistd.h>

using namespace ejk::test;

namespace {

class VulkanInvokeTest : public VulkanFixture,
                         public ::testing::WithParamInterface<bool> {
protected:
  VulkanInvokeTest() : staging_("EJK_VULKAN_STAGING", GetParam() ? "1" : "0") {}

  /// Runs "add" over n elements and checks every result.
  void runAdd(int64_t n) {
    std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      a[size_t(i)] = float(i);
      b[size_t(i)] = 0.5f * float(i % 7);
    }
    ejk_buffer *inputs[2] = {buffer(a), buffer(b)};
    ejk_buffer *out = buffer(std::vector<float>(size_t(n), -1.0f));
    ASSERT_EQ(ejk_invoke(module_, "add", inputs, 2, &out, 1), EJK_OK)
        << ejk_last_error();
    std::vector<float> c = read<float>(out, size_t(n));
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(c[size_t(i)], a[size_t(i)] + b[size_t(i)]) << "at " << i;
  }

  ScopedEnv staging_;
};

TEST_P(VulkanInvokeTest, BuffersStartZeroedAndRoundTrip) {
  ejk_buffer *handle = nullptr;
  const size_t n = 1000; // not a multiple of 16: the tail is exact
  ASSERT_EQ(ejk_buffer_create(device_, n * 4, &handle), EJK_OK)
      << ejk_last_error();
  buffers_.emplace_back(handle);
  size_t size = 0;
  EXPECT_EQ(ejk_buffer_size(handle, &size), EJK_OK);
  EXPECT_EQ(size, n * 4);
  EXPECT_EQ(read<float>(handle, n), std::vector<float>(n, 0.0f));

  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = float(i) * 1.5f;
  ASSERT_EQ(ejk_buffer_upload(handle, values.data(), n * 4, 0), EJK_OK);
  EXPECT_EQ(read<float>(handle, n), values);
  // Partial copies at odd offsets.
  float patch[3] = {-1.0f, -2.0f, -3.0f};
  ASSERT_EQ(ejk_buffer_upload(handle, patch, sizeof patch, 4 * 997), EJK_OK);
  uint8_t bytes[5] = {};
  ASSERT_EQ(ejk_buffer_download(handle, bytes, 5, 4 * 997 + 1), EJK_OK);
  uint8_t expected[5];
  std::memcpy(expected, reinterpret_cast<uint8_t *>(patch) + 1, 5);
  EXPECT_EQ(std::vector<uint8_t>(bytes, bytes + 5),
            std::vector<uint8_t>(expected, expected + 5));
  // Out of range, and empty buffers.
  EXPECT_EQ(ejk_buffer_upload(handle, values.data(), 8, n * 4 - 4),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_download(handle, values.data(), n * 4 + 1, 0),
            EJK_ERROR_INVALID_ARGUMENT);
  ejk_buffer *empty = nullptr;
  ASSERT_EQ(ejk_buffer_create(device_, 0, &empty), EJK_OK) << ejk_last_error();
  buffers_.emplace_back(empty);
  EXPECT_EQ(ejk_buffer_upload(empty, nullptr, 0, 0), EJK_OK);
  EXPECT_EQ(ejk_buffer_download(empty, nullptr, 0, 0), EJK_OK);
  // Device memory has no host pointer: copies only.
  void *pointer = &size;
  EXPECT_EQ(ejk_buffer_host_pointer(handle, &pointer), EJK_ERROR_UNAVAILABLE);
  EXPECT_EQ(pointer, nullptr);
}

TEST_P(VulkanInvokeTest, LargeCopiesCrossStagingChunks) {
  // Just over 40 MiB: three 16 MiB staging pieces, the last one partial, so
  // both staging slots are used and the first is used again.
  const size_t n = (size_t(10) << 20) + 3;
  std::vector<uint32_t> values(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = uint32_t(i * 2654435761u);
  ejk_buffer *handle = buffer(values);
  ASSERT_NE(handle, nullptr);
  EXPECT_TRUE(read<uint32_t>(handle, n) == values);
  // A range that starts inside the first piece and spans two boundaries.
  const size_t first = (size_t(1) << 20) + 1, count = size_t(9) << 20;
  std::vector<uint32_t> middle(count);
  ASSERT_EQ(ejk_buffer_download(handle, middle.data(), count * 4, first * 4),
            EJK_OK)
      << ejk_last_error();
  EXPECT_TRUE(std::equal(middle.begin(), middle.end(), values.begin() + first));
  std::vector<uint32_t> patch(count);
  for (size_t i = 0; i < count; ++i)
    patch[i] = ~values[first + i];
  ASSERT_EQ(ejk_buffer_upload(handle, patch.data(), count * 4, first * 4),
            EJK_OK)
      << ejk_last_error();
  std::copy(patch.begin(), patch.end(), values.begin() + first);
  EXPECT_TRUE(read<uint32_t>(handle, n) == values);
}

TEST_P(VulkanInvokeTest, RegisteredHostMemoryCopiesDirectly) {
  // With staging forced, copies from and into registered memory take the
  // imported buffer (one device copy); the values must be the same as
  // through staging, at any offset on either side.
  const size_t n = (size_t(5) << 20) + 3;
  std::vector<uint32_t> host(n);
  for (size_t i = 0; i < n; ++i)
    host[i] = uint32_t(i * 2246822519u);
  ASSERT_EQ(ejk_host_register(device_, host.data(), n * 4), EJK_OK)
      << ejk_last_error();
  ejk_buffer *handle = nullptr;
  ASSERT_EQ(ejk_buffer_create(device_, n * 4, &handle), EJK_OK)
      << ejk_last_error();
  buffers_.emplace_back(handle);
  ASSERT_EQ(ejk_buffer_upload(handle, host.data(), n * 4, 0), EJK_OK)
      << ejk_last_error();
  std::vector<uint32_t> expected = host;
  // A sub-range of the registered memory into an odd device offset.
  ASSERT_EQ(ejk_buffer_upload(handle, host.data() + 7, 4 * 1001, 4 * 3),
            EJK_OK);
  std::copy(host.begin() + 7, host.begin() + 7 + 1001, expected.begin() + 3);
  std::fill(host.begin(), host.end(), 0u);
  ASSERT_EQ(ejk_buffer_download(handle, host.data(), n * 4, 0), EJK_OK)
      << ejk_last_error();
  EXPECT_TRUE(host == expected);
  // Into the middle of the registered memory.
  ASSERT_EQ(ejk_buffer_download(handle, host.data() + 11, 4 * 5, 4 * 2),
            EJK_OK);
  EXPECT_EQ(host[11], expected[2]);
  EXPECT_EQ(host[15], expected[6]);
  EXPECT_EQ(host[16], expected[16]);

  // Overlaps, empty ranges and unknown addresses are errors.
  EXPECT_EQ(ejk_host_register(device_, host.data() + 5, 64),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error()).find("overlaps"), std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(ejk_host_register(device_, nullptr, 64),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_host_register(device_, host.data(), 0),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_host_unregister(device_, host.data() + 1),
            EJK_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(ejk_host_unregister(device_, host.data()), EJK_OK);
  EXPECT_EQ(ejk_host_unregister(device_, host.data()),
            EJK_ERROR_INVALID_ARGUMENT);
  // Unregistered memory stages again.
  std::fill(host.begin(), host.end(), 0u);
  ASSERT_EQ(ejk_buffer_download(handle, host.data(), n * 4, 0), EJK_OK);
  EXPECT_TRUE(host == expected);
}

TEST_P(VulkanInvokeTest, AddIsCorrect) {
  load(vulkanManifest({vulkanAddEntry(4096)}));
  runAdd(4096);
  uint64_t ns = 0;
  EXPECT_EQ(ejk_last_invoke_time_ns(module_, &ns), EJK_OK);
  EXPECT_GT(ns, 0u);
  // Again on the same module: pipelines and buffers are reusable.
  runAdd(4096);
}

TEST_P(VulkanInvokeTest, SpirvPathIsRelativeToTheManifest) {
  dir_.write("kernel.spv", readBinary(shaderPath("add.spv")));
  load(vulkanManifest({vulkanAddEntry(128, "kernel.spv")}));
  runAdd(128);
}

TEST_P(VulkanInvokeTest, TwoDispatchesChainThroughATemporary) {
  const int64_t n = 64 * 300;
  std::string entry =
      "{\"name\": \"twostep\", \"buffers\": [" + f32Buffer("input", n) + ", " +
      f32Buffer("output", n) + ", " + f32Buffer("temporary", n) +
      "], \"dispatches\": [" +
      vulkanDispatch("scale_to_temp", shaderPath("scale_to_temp.spv"), n / 64,
                     "[0, 2]") +
      ", " +
      vulkanDispatch("temp_plus_one", shaderPath("temp_plus_one.spv"), n / 64,
                     "[2, 1]") +
      "]}";
  load(vulkanManifest({entry}));
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i)
    x[size_t(i)] = float(i) - 100.0f;
  ejk_buffer *in = buffer(x);
  ejk_buffer *out = buffer(std::vector<float>(n, 0.0f));
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(ejk_invoke(module_, "twostep", &in, 1, &out, 1), EJK_OK)
        << ejk_last_error();
    std::vector<float> y = read<float>(out, size_t(n));
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(y[size_t(i)], 2.0f * x[size_t(i)] + 1.0f) << "at " << i;
  }
  // With timestamps, one GPU time per dispatch, together within the
  // invoke's (the invoke's also spans the first barrier).
  uint64_t total = 0, times[2] = {0, 0};
  size_t count = 9;
  ASSERT_EQ(ejk_last_invoke_time_ns(module_, &total), EJK_OK);
  ASSERT_EQ(ejk_last_invoke_dispatch_times_ns(module_, times, 2, &count),
            EJK_OK);
  size_t length = 0;
  ASSERT_EQ(ejk_device_fingerprint(device_, nullptr, 0, &length), EJK_OK);
  std::string text(length + 1, '\0');
  ASSERT_EQ(ejk_device_fingerprint(device_, text.data(), text.size(), nullptr),
            EJK_OK);
  if (text.find("timestamp_bits=0") == std::string::npos) {
    EXPECT_EQ(count, 2u);
    EXPECT_LE(times[0] + times[1], total);
  } else {
    EXPECT_EQ(count, 0u);
  }
}

TEST_P(VulkanInvokeTest, EveryWorkgroupOfTheGridRunsOnce) {
  struct Grid {
    int64_t x, y, z;
  };
  for (Grid grid :
       {Grid{1, 1, 1}, Grid{7, 5, 3}, Grid{300, 1, 2}, Grid{1, 129, 1}}) {
    int64_t workgroups = grid.x * grid.y * grid.z;
    std::string entry =
        "{\"name\": \"count\", \"buffers\": [{\"role\": \"output\", "
        "\"shape\": [" +
        std::to_string(workgroups + 1) +
        "], \"dtype\": \"i32\"}], \"dispatches\": [" +
        vulkanDispatch("count", shaderPath("count.spv"), grid.x, "[0]",
                       ", \"workgroup_size\": [2, 2, 1]", grid.y, grid.z) +
        "]}";
    load(vulkanManifest({entry}));
    ejk_buffer *hits = buffer(std::vector<int32_t>(size_t(workgroups + 1), 0));
    ASSERT_EQ(ejk_invoke(module_, "count", nullptr, 0, &hits, 1), EJK_OK)
        << ejk_last_error();
    std::vector<int32_t> counts = read<int32_t>(hits, size_t(workgroups + 1));
    for (int64_t i = 0; i < workgroups; ++i)
      ASSERT_EQ(counts[size_t(i)], 1) << "workgroup " << i << " of " << grid.x
                                      << "x" << grid.y << "x" << grid.z;
    EXPECT_EQ(counts[size_t(workgroups)], 4 * workgroups);
  }
}

TEST_P(VulkanInvokeTest, PushConstantsReachTheKernel) {
  const int64_t n = 100; // the kernel guards the last partial workgroup
  float scale = 3.0f, offset = -0.25f;
  uint32_t count = uint32_t(n);
  uint8_t bytes[12];
  std::memcpy(bytes, &scale, 4);
  std::memcpy(bytes + 4, &offset, 4);
  std::memcpy(bytes + 8, &count, 4);
  std::string push = ", \"push_constants\": [";
  for (int i = 0; i < 12; ++i)
    push += (i ? ", " : "") + std::to_string(bytes[i]);
  push += "]";
  std::string entry =
      "{\"name\": \"affine\", \"buffers\": [" + f32Buffer("input", n) + ", " +
      f32Buffer("output", 128) + "], \"dispatches\": [" +
      vulkanDispatch("affine", shaderPath("affine.spv"), 2, "[0, 1]", push) +
      "]}";
  load(vulkanManifest({entry}));
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i)
    x[size_t(i)] = float(i);
  ejk_buffer *in = buffer(x);
  ejk_buffer *out = buffer(std::vector<float>(128, 42.0f));
  ASSERT_EQ(ejk_invoke(module_, "affine", &in, 1, &out, 1), EJK_OK)
      << ejk_last_error();
  std::vector<float> y = read<float>(out, 128);
  for (int64_t i = 0; i < 128; ++i)
    EXPECT_EQ(y[size_t(i)], i < n ? float(i) * scale + offset : 42.0f)
        << "at " << i;
}

TEST_P(VulkanInvokeTest, Float16KernelRunsWhenTheDeviceHasTheFeatures) {
  size_t length = 0;
  ASSERT_EQ(ejk_device_fingerprint(device_, nullptr, 0, &length), EJK_OK);
  std::string text(length + 1, '\0');
  ASSERT_EQ(ejk_device_fingerprint(device_, text.data(), text.size(), nullptr),
            EJK_OK);
  if (text.find("float16=1") == std::string::npos ||
      text.find("storage16=1") == std::string::npos)
    GTEST_SKIP() << "the device lacks float16 or storage16";
  const int64_t n = 256;
  std::string entry =
      "{\"name\": \"double\", \"buffers\": [" + f32Buffer("input", n, "f16") +
      ", " + f32Buffer("output", n, "f16") + "], \"dispatches\": [" +
      vulkanDispatch("double", shaderPath("half_double.spv"), n / 64, "[0, 1]",
                     ", \"requires\": [\"float16\", "
                     "\"storage16\"]") +
      "]}";
  load(vulkanManifest({entry}));
  // f16 bit patterns of 0.5 * k for k in [0, 8), and of their doubles.
  std::vector<uint16_t> x(n), expected(n);
  const uint16_t halves[8] = {0x0000, 0x3800, 0x3c00, 0x3e00,
                              0x4000, 0x4100, 0x4200, 0x4300};
  const uint16_t doubles[8] = {0x0000, 0x3c00, 0x4000, 0x4200,
                               0x4400, 0x4500, 0x4600, 0x4700};
  for (int64_t i = 0; i < n; ++i) {
    x[size_t(i)] = halves[i % 8];
    expected[size_t(i)] = doubles[i % 8];
  }
  ejk_buffer *in = buffer(x);
  ejk_buffer *out = buffer(std::vector<uint16_t>(n, 0xffff));
  ASSERT_EQ(ejk_invoke(module_, "double", &in, 1, &out, 1), EJK_OK)
      << ejk_last_error();
  EXPECT_EQ(read<uint16_t>(out, size_t(n)), expected);
}

TEST_P(VulkanInvokeTest, ConcurrentInvokesAreSerializedAndCorrect) {
  load(vulkanManifest({vulkanAddEntry(1024)}));
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<float> a(1024, float(t)), b(1024, 1.0f), c(1024);
      ejk_buffer *ha = nullptr, *hb = nullptr, *hc = nullptr;
      if (ejk_buffer_create(device_, 4096, &ha) != EJK_OK ||
          ejk_buffer_create(device_, 4096, &hb) != EJK_OK ||
          ejk_buffer_create(device_, 4096, &hc) != EJK_OK) {
        ++failures[size_t(t)];
      } else {
        for (int round = 0; round < 5; ++round) {
          ejk_buffer *inputs[2] = {ha, hb};
          if (ejk_buffer_upload(ha, a.data(), 4096, 0) != EJK_OK ||
              ejk_buffer_upload(hb, b.data(), 4096, 0) != EJK_OK ||
              ejk_invoke(module_, "add", inputs, 2, &hc, 1) != EJK_OK ||
              ejk_buffer_download(hc, c.data(), 4096, 0) != EJK_OK ||
              c != std::vector<float>(1024, float(t) + 1.0f))
            ++failures[size_t(t)];
        }
      }
      ejk_buffer_destroy(ha);
      ejk_buffer_destroy(hb);
      ejk_buffer_destroy(hc);
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

TEST_P(VulkanInvokeTest, AsyncInvocationsRunInSubmissionOrder) {
  const size_t n = 4096;
  load(vulkanManifest({vulkanAddEntry(int64_t(n))}));
  std::vector<float> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = 0.25f * float(i % 5);
  }
  ejk_buffer *ha = buffer(a), *hb = buffer(b);
  ejk_buffer *hc = buffer(std::vector<float>(n, 0.0f));
  ejk_buffer *hd = buffer(std::vector<float>(n, 0.0f));
  // d = (a + b) + b: the second reads what the first wrote, without a wait.
  ejk_buffer *first[2] = {ha, hb}, *second[2] = {hc, hb};
  ejk_invocation *one = nullptr, *two = nullptr;
  ASSERT_EQ(ejk_invoke_async(module_, "add", first, 2, &hc, 1, &one), EJK_OK)
      << ejk_last_error();
  ASSERT_EQ(ejk_invoke_async(module_, "add", second, 2, &hd, 1, &two), EJK_OK)
      << ejk_last_error();
  // The invocations hold the module: destroying the handle now is safe.
  ejk_module_destroy(module_);
  module_ = nullptr;
  ASSERT_EQ(ejk_invocation_wait(two), EJK_OK) << ejk_last_error();
  ASSERT_EQ(ejk_invocation_wait(one), EJK_OK) << ejk_last_error();
  uint64_t ns = 0;
  EXPECT_EQ(ejk_invocation_time_ns(two, &ns), EJK_OK);
  EXPECT_GT(ns, 0u);
  ejk_invocation_destroy(one);
  ejk_invocation_destroy(two);
  std::vector<float> d = read<float>(hd, n);
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ(d[i], (a[i] + b[i]) + b[i]) << "at " << i;
}

TEST_P(VulkanInvokeTest, AsyncArgumentErrorsComeBackAtOnce) {
  load(vulkanManifest({vulkanAddEntry(128)}));
  ejk_buffer *small = buffer(std::vector<float>(4, 0.0f));
  ejk_buffer *inputs[2] = {small, small};
  ejk_invocation *invocation = nullptr;
  EXPECT_EQ(ejk_invoke_async(module_, "add", inputs, 2, &small, 1, &invocation),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(invocation, nullptr);
}

TEST_P(VulkanInvokeTest, LoadBytesIsUnavailable) {
  std::string manifest = vulkanManifest({vulkanAddEntry(128)});
  const char library[1] = {0};
  ejk_module *module = nullptr;
  EXPECT_EQ(ejk_module_load_bytes(device_, manifest.data(), manifest.size(),
                                  library, sizeof library, &module),
            EJK_ERROR_UNAVAILABLE);
  EXPECT_EQ(module, nullptr);
  std::string message = ejk_last_error();
  EXPECT_NE(message.find("'cpu' device"), std::string::npos) << message;
  EXPECT_NE(message.find("ejk_module_load"), std::string::npos) << message;
}

TEST_P(VulkanInvokeTest, LoadFilesFromMemory) {
  // Two dispatches that name their SPIR-V by bare names: nothing is read
  // from disk, the names match the files given.
  const int64_t n = 64 * 10;
  std::string entry =
      "{\"name\": \"twostep\", \"buffers\": [" + f32Buffer("input", n) + ", " +
      f32Buffer("output", n) + ", " + f32Buffer("temporary", n) +
      "], \"dispatches\": [" +
      vulkanDispatch("scale_to_temp", "scale.spv", n / 64, "[0, 2]") + ", " +
      vulkanDispatch("temp_plus_one", "plus_one.spv", n / 64, "[2, 1]") + "]}";
  std::string manifest = vulkanManifest({entry});
  std::string scale = readBinary(shaderPath("scale_to_temp.spv"));
  std::string plusOne = readBinary(shaderPath("temp_plus_one.spv"));
  std::string unused = "not needed";
  std::vector<ejk_file> files = {
      {"plus_one.spv", plusOne.data(), plusOne.size()},
      {"README", unused.data(), unused.size()},
      {"scale.spv", scale.data(), scale.size()}};
  ASSERT_EQ(ejk_module_load_files(device_, manifest.data(), manifest.size(),
                                  files.data(), files.size(), &module_),
            EJK_OK)
      << ejk_last_error();
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i)
    x[size_t(i)] = float(i) - 7.0f;
  ejk_buffer *in = buffer(x);
  ejk_buffer *out = buffer(std::vector<float>(n, 0.0f));
  ASSERT_EQ(ejk_invoke(module_, "twostep", &in, 1, &out, 1), EJK_OK)
      << ejk_last_error();
  std::vector<float> y = read<float>(out, size_t(n));
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(y[size_t(i)], 2.0f * x[size_t(i)] + 1.0f) << "at " << i;

  // A file the manifest names but the caller did not give.
  ejk_module *missing = nullptr;
  EXPECT_EQ(ejk_module_load_files(device_, manifest.data(), manifest.size(),
                                  files.data(), 2, &missing),
            EJK_ERROR_NOT_FOUND);
  EXPECT_EQ(missing, nullptr);
  std::string message = ejk_last_error();
  EXPECT_NE(message.find("manifest (in memory): entry 'twostep' dispatch 0 "
                         "('scale_to_temp'): SPIR-V file 'scale.spv' is not "
                         "among the files given ('README', 'plus_one.spv')"),
            std::string::npos)
      << message;
  // A file without a name is an argument error.
  ejk_file nameless = {nullptr, scale.data(), scale.size()};
  EXPECT_EQ(ejk_module_load_files(device_, manifest.data(), manifest.size(),
                                  &nameless, 1, &missing),
            EJK_ERROR_INVALID_ARGUMENT);
}

// Device copies between buffers (ejk_buffer_copy, ejk_buffer_copy_rows),
// exportable memory and the device's UUID (the ring's GPU-to-GPU copies,
// docs/runtime.md "Exportable buffers").
TEST_P(VulkanInvokeTest, DeviceCopiesRowsAndExportableMemory) {
  std::vector<float> src(64);
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = float(i);
  ejk_buffer *from = buffer(src);
  ejk_buffer *into = buffer(std::vector<float>(128, -1.0f));
  // Four rows of 8 floats, 16 apart in the source, into every 32nd float
  // from float 4 of the destination: one submission.
  ASSERT_EQ(
      ejk_buffer_copy_rows(from, 0, 16 * 4, into, 4 * 4, 32 * 4, 8 * 4, 4),
      EJK_OK)
      << ejk_last_error();
  std::vector<float> got = read<float>(into, 128);
  for (size_t i = 0; i < 128; ++i) {
    size_t row = i / 32, col = i % 32;
    float want = col >= 4 && col < 12 ? float(row * 16 + col - 4) : -1.0f;
    ASSERT_EQ(got[i], want) << "at " << i;
  }
  ASSERT_EQ(ejk_buffer_copy(from, 4, into, 0, 8), EJK_OK) << ejk_last_error();
  EXPECT_EQ(read<float>(into, 2), (std::vector<float>{1.0f, 2.0f}));
  // The last row must fit, and so must a plain copy.
  EXPECT_EQ(ejk_buffer_copy_rows(from, 0, 16 * 4, into, 0, 41 * 4, 8 * 4, 4),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error()).find("ejk_buffer_copy to"),
            std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(ejk_buffer_copy(from, 200, into, 0, 64),
            EJK_ERROR_INVALID_ARGUMENT);
  // Overlapping destination rows, and overlapping ranges of one buffer,
  // which Vulkan leaves undefined, are refused.
  EXPECT_EQ(ejk_buffer_copy_rows(from, 0, 16, into, 0, 8, 16, 2),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_copy(from, 0, from, 4, 16), EJK_ERROR_INVALID_ARGUMENT);

  uint8_t uuid[16] = {};
  ASSERT_EQ(ejk_device_uuid(device_, uuid), EJK_OK) << ejk_last_error();
  EXPECT_NE(std::vector<uint8_t>(uuid, uuid + 16), std::vector<uint8_t>(16, 0));
  ejk_buffer *exportable = nullptr;
  ejk_status status =
      ejk_buffer_create_exportable(device_, 1 << 20, &exportable);
  if (status == EJK_ERROR_UNAVAILABLE)
    GTEST_SKIP() << "the device cannot export memory: " << ejk_last_error();
  ASSERT_EQ(status, EJK_OK) << ejk_last_error();
  buffers_.emplace_back(exportable);
  // It is a buffer like any other: zeroed, copied to and from.
  EXPECT_EQ(read<float>(exportable, 4), std::vector<float>(4, 0.0f));
  ASSERT_EQ(ejk_buffer_copy(from, 0, exportable, 0, 64 * 4), EJK_OK);
  EXPECT_EQ(read<float>(exportable, 64), src);
  int fd = -1;
  uint64_t bytes = 0;
  ASSERT_EQ(ejk_buffer_export_fd(exportable, &fd, &bytes), EJK_OK)
      << ejk_last_error();
  EXPECT_GE(fd, 0);
  EXPECT_GE(bytes, uint64_t(1) << 20);
  close(fd);
  // A buffer not created exportable has no fd.
  EXPECT_EQ(ejk_buffer_export_fd(from, &fd, &bytes),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(fd, -1);
}

INSTANTIATE_TEST_SUITE_P(Memory, VulkanInvokeTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool> &info) {
                           return info.param ? "Staging" : "Direct";
                         });

} // namespace
