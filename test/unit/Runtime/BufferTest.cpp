//===- BufferTest.cpp - Buffer allocation and copies ----------------------===//

#include "RuntimeTestUtil.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace ejk::test;

namespace {

class BufferTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(ejk_device_create("cpu", &device_), EJK_OK) << ejk_last_error();
  }
  void TearDown() override { ejk_device_destroy(device_); }

  /// Two 64-byte buffers, the first holding bytes 0..63 (`bytes`), the
  /// second zeroes: the device copies' tests.
  void twoBuffers(ejk_buffer *&a, ejk_buffer *&b, std::vector<uint8_t> &bytes) {
    ASSERT_EQ(ejk_buffer_create(device_, 64, &a), EJK_OK);
    ASSERT_EQ(ejk_buffer_create(device_, 64, &b), EJK_OK);
    bytes.resize(64);
    for (size_t i = 0; i < bytes.size(); ++i)
      bytes[i] = uint8_t(i);
    ASSERT_EQ(ejk_buffer_upload(a, bytes.data(), 64, 0), EJK_OK);
  }

  ejk_device *device_ = nullptr;
};

TEST_F(BufferTest, HostRegistrationIsAcceptedAndIgnoredOnTheCpu) {
  std::vector<uint8_t> host(4096, 1);
  EXPECT_EQ(ejk_host_register(device_, host.data(), host.size()), EJK_OK);
  EXPECT_EQ(ejk_host_register(device_, nullptr, 16),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_host_unregister(device_, host.data()), EJK_OK);
  EXPECT_EQ(ejk_host_register(nullptr, host.data(), host.size()),
            EJK_ERROR_INVALID_ARGUMENT);
}

TEST_F(BufferTest, HostPointerIsTheCpuBuffersMemory) {
  ejk_buffer *buffer = nullptr;
  ASSERT_EQ(ejk_buffer_create(device_, 64, &buffer), EJK_OK);
  void *pointer = nullptr;
  ASSERT_EQ(ejk_buffer_host_pointer(buffer, &pointer), EJK_OK);
  ASSERT_NE(pointer, nullptr);
  // Writes through the pointer are the buffer's contents, and uploads show
  // through it: no copy either way.
  static_cast<uint8_t *>(pointer)[5] = 42;
  std::vector<uint8_t> back(64, 0xff);
  ASSERT_EQ(ejk_buffer_download(buffer, back.data(), 64, 0), EJK_OK);
  EXPECT_EQ(back[5], 42);
  EXPECT_EQ(back[6], 0);
  uint8_t seven = 7;
  ASSERT_EQ(ejk_buffer_upload(buffer, &seven, 1, 63), EJK_OK);
  EXPECT_EQ(static_cast<uint8_t *>(pointer)[63], 7);
  void *again = nullptr;
  EXPECT_EQ(ejk_buffer_host_pointer(buffer, &again), EJK_OK);
  EXPECT_EQ(again, pointer);
  EXPECT_EQ(ejk_buffer_host_pointer(buffer, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_host_pointer(nullptr, &again),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(again, nullptr);
  EXPECT_EQ(ejk_buffer_destroy(buffer), EJK_OK);
}

TEST_F(BufferTest, LargeCpuBuffersSitOnHugePageBoundaries) {
  // 4 MiB and more: 2 MiB aligned and advised MADV_HUGEPAGE (unless
  // EJK_CPU_HUGE_PAGES=0, which the test environment does not set), still
  // zero-filled, and usable to their last byte.
  const size_t bytes = (size_t(4) << 20) + 3;
  ejk_buffer *buffer = nullptr;
  ASSERT_EQ(ejk_buffer_create(device_, bytes, &buffer), EJK_OK);
  void *pointer = nullptr;
  ASSERT_EQ(ejk_buffer_host_pointer(buffer, &pointer), EJK_OK);
  if (!std::getenv("EJK_CPU_HUGE_PAGES")) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pointer) % (size_t(2) << 20), 0u);
  }
  const uint8_t *data = static_cast<const uint8_t *>(pointer);
  EXPECT_EQ(data[0], 0);
  EXPECT_EQ(data[bytes - 1], 0);
  uint8_t last = 9;
  ASSERT_EQ(ejk_buffer_upload(buffer, &last, 1, bytes - 1), EJK_OK);
  EXPECT_EQ(data[bytes - 1], 9);
  EXPECT_EQ(ejk_buffer_destroy(buffer), EJK_OK);
}

TEST_F(BufferTest, RoundTripsAtOffsets) {
  ejk_buffer *buffer = nullptr;
  ASSERT_EQ(ejk_buffer_create(device_, 100, &buffer), EJK_OK);
  size_t size = 0;
  EXPECT_EQ(ejk_buffer_size(buffer, &size), EJK_OK);
  EXPECT_EQ(size, 100u);

  // New buffers are zero-filled.
  std::vector<uint8_t> all(100, 0xff);
  ASSERT_EQ(ejk_buffer_download(buffer, all.data(), 100, 0), EJK_OK);
  EXPECT_EQ(all, std::vector<uint8_t>(100, 0));

  std::vector<uint8_t> pattern(30);
  for (size_t i = 0; i < pattern.size(); ++i)
    pattern[i] = uint8_t(i + 1);
  ASSERT_EQ(ejk_buffer_upload(buffer, pattern.data(), 30, 70), EJK_OK);
  std::vector<uint8_t> back(30);
  ASSERT_EQ(ejk_buffer_download(buffer, back.data(), 30, 70), EJK_OK);
  EXPECT_EQ(back, pattern);
  ASSERT_EQ(ejk_buffer_download(buffer, all.data(), 100, 0), EJK_OK);
  EXPECT_EQ(all[69], 0);
  EXPECT_EQ(all[70], 1);
  EXPECT_EQ(all[99], 30);
  EXPECT_EQ(ejk_buffer_destroy(buffer), EJK_OK);
}

TEST_F(BufferTest, ZeroBytesIsAllowed) {
  ejk_buffer *buffer = nullptr;
  ASSERT_EQ(ejk_buffer_create(device_, 0, &buffer), EJK_OK);
  size_t size = 1;
  EXPECT_EQ(ejk_buffer_size(buffer, &size), EJK_OK);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(ejk_buffer_upload(buffer, nullptr, 0, 0), EJK_OK);
  EXPECT_EQ(ejk_buffer_download(buffer, nullptr, 0, 0), EJK_OK);
  ejk_buffer_destroy(buffer);
}

TEST_F(BufferTest, OutOfRangeCopiesFail) {
  ejk_buffer *buffer = nullptr;
  ASSERT_EQ(ejk_buffer_create(device_, 64, &buffer), EJK_OK);
  std::vector<uint8_t> data(128, 7);
  EXPECT_EQ(ejk_buffer_upload(buffer, data.data(), 65, 0),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(ejk_last_error()),
            "upload of 65 bytes at offset 0 is out of range for a buffer of "
            "64 bytes");
  EXPECT_EQ(ejk_buffer_upload(buffer, data.data(), 8, 60),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_download(buffer, data.data(), 1, 64),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(ejk_last_error()),
            "download of 1 bytes at offset 64 is out of range for a buffer "
            "of 64 bytes");
  // offset + bytes wraps around size_t: still out of range.
  EXPECT_EQ(ejk_buffer_download(buffer, data.data(), 16,
                                std::numeric_limits<size_t>::max() - 8),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_upload(buffer, data.data(),
                              std::numeric_limits<size_t>::max(), 1),
            EJK_ERROR_INVALID_ARGUMENT);
  // A failed upload changed nothing.
  std::vector<uint8_t> back(64, 1);
  ASSERT_EQ(ejk_buffer_download(buffer, back.data(), 64, 0), EJK_OK);
  EXPECT_EQ(back, std::vector<uint8_t>(64, 0));
  // The exact end is in range.
  EXPECT_EQ(ejk_buffer_upload(buffer, data.data(), 4, 60), EJK_OK);
  EXPECT_EQ(ejk_buffer_download(buffer, data.data(), 0, 64), EJK_OK);
  ejk_buffer_destroy(buffer);
}

TEST_F(BufferTest, DeviceCopiesAndNoExportOnTheCpu) {
  ejk_buffer *a = nullptr, *b = nullptr;
  std::vector<uint8_t> bytes;
  twoBuffers(a, b, bytes);
  if (HasFatalFailure())
    return;
  // Two rows of 4 bytes, 16 apart, into 8 apart from byte 1.
  ASSERT_EQ(ejk_buffer_copy_rows(a, 2, 16, b, 1, 8, 4, 2), EJK_OK)
      << ejk_last_error();
  std::vector<uint8_t> back(16);
  ASSERT_EQ(ejk_buffer_download(b, back.data(), 16, 0), EJK_OK);
  EXPECT_EQ(back, (std::vector<uint8_t>{0, 2, 3, 4, 5, 0, 0, 0, 0, 18, 19, 20,
                                        21, 0, 0, 0}));
  EXPECT_EQ(ejk_buffer_copy(a, 60, b, 0, 8), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_copy_rows(a, 0, SIZE_MAX / 2, b, 0, 0, 4, 3),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_copy(nullptr, 0, b, 0, 8), EJK_ERROR_INVALID_ARGUMENT);
  // Buffers of two devices.
  ejk_device *other = nullptr;
  ejk_buffer *c = nullptr;
  ASSERT_EQ(ejk_device_create("cpu", &other), EJK_OK);
  ASSERT_EQ(ejk_buffer_create(other, 64, &c), EJK_OK);
  EXPECT_EQ(ejk_buffer_copy(a, 0, c, 0, 8), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error()).find("different devices"),
            std::string::npos);
  // The CPU device exports no memory and has no UUID.
  ejk_buffer *exportable = nullptr;
  EXPECT_EQ(ejk_buffer_create_exportable(device_, 64, &exportable),
            EJK_ERROR_UNAVAILABLE);
  EXPECT_EQ(exportable, nullptr);
  uint8_t uuid[16];
  EXPECT_EQ(ejk_device_uuid(device_, uuid), EJK_ERROR_UNAVAILABLE);
  int fd = 0;
  uint64_t size = 0;
  EXPECT_EQ(ejk_buffer_export_fd(a, &fd, &size), EJK_ERROR_INVALID_ARGUMENT);
  for (ejk_buffer *buffer : {a, b, c})
    ejk_buffer_destroy(buffer);
  ejk_device_destroy(other);
}

// Copies whose result would depend on the order of their rows are refused
// with the ranges named, on the CPU as on Vulkan (which leaves them
// undefined); ranges of one buffer that do not meet are fine.
TEST_F(BufferTest, OverlappingDeviceCopiesFail) {
  ejk_buffer *a = nullptr, *b = nullptr;
  std::vector<uint8_t> bytes;
  twoBuffers(a, b, bytes);
  if (HasFatalFailure())
    return;
  // Destination rows on top of each other (stride 2, rows of 4; stride 0).
  EXPECT_EQ(ejk_buffer_copy_rows(a, 0, 4, b, 0, 2, 4, 3),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error()).find("destination rows overlap"),
            std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(ejk_buffer_copy_rows(a, 0, 4, b, 0, 0, 4, 2),
            EJK_ERROR_INVALID_ARGUMENT);
  // One source row into several destination rows is fine.
  ASSERT_EQ(ejk_buffer_copy_rows(a, 8, 0, b, 0, 4, 4, 3), EJK_OK)
      << ejk_last_error();
  std::vector<uint8_t> back(12);
  ASSERT_EQ(ejk_buffer_download(b, back.data(), 12, 0), EJK_OK);
  EXPECT_EQ(back,
            (std::vector<uint8_t>{8, 9, 10, 11, 8, 9, 10, 11, 8, 9, 10, 11}));
  // One buffer: [0, 16) into [8, 24) overlaps; rows interleaved with the
  // source's (their spans [0, 20) and [8, 28) meet) too; [0, 8) into
  // [40, 48) does not, nor rows whose spans do not meet.
  EXPECT_EQ(ejk_buffer_copy(a, 0, a, 8, 16), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error()).find("[0, 16) and [8, 24)"),
            std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(ejk_buffer_copy_rows(a, 0, 16, a, 8, 16, 4, 2),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_copy_rows(a, 0, 16, a, 20, 16, 4, 2), EJK_OK)
      << ejk_last_error();
  ASSERT_EQ(ejk_buffer_copy(a, 0, a, 40, 8), EJK_OK) << ejk_last_error();
  ASSERT_EQ(ejk_buffer_download(a, back.data(), 8, 40), EJK_OK);
  EXPECT_EQ(std::vector<uint8_t>(back.begin(), back.begin() + 8),
            std::vector<uint8_t>(bytes.begin(), bytes.begin() + 8));
  // Nothing to copy: no error, whatever the offsets.
  EXPECT_EQ(ejk_buffer_copy_rows(a, 1000, 0, b, 1000, 0, 4, 0), EJK_OK);
  EXPECT_EQ(ejk_buffer_copy(a, 1000, b, 1000, 0), EJK_OK);
  for (ejk_buffer *buffer : {a, b})
    ejk_buffer_destroy(buffer);
}

// Every new device-copy and export function refuses null arguments with
// EJK_ERROR_INVALID_ARGUMENT and a message naming the function, and
// leaves its outputs cleared.
TEST_F(BufferTest, DeviceCopyAndExportNullArgumentsFail) {
  ejk_buffer *a = nullptr;
  ASSERT_EQ(ejk_buffer_create(device_, 64, &a), EJK_OK);
  auto named = [](const char *function) {
    return std::string(ejk_last_error()).find(function) != std::string::npos;
  };
  EXPECT_EQ(ejk_buffer_copy_rows(a, 0, 4, nullptr, 0, 4, 4, 2),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(named("ejk_buffer_copy_rows")) << ejk_last_error();
  EXPECT_EQ(ejk_buffer_copy(a, 0, nullptr, 0, 4), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(named("ejk_buffer_copy")) << ejk_last_error();
  ejk_buffer *out = reinterpret_cast<ejk_buffer *>(0x1);
  EXPECT_EQ(ejk_buffer_create_exportable(nullptr, 64, &out),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  EXPECT_TRUE(named("ejk_buffer_create_exportable")) << ejk_last_error();
  EXPECT_EQ(ejk_buffer_create_exportable(device_, 64, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  int fd = 7;
  uint64_t size = 0;
  EXPECT_EQ(ejk_buffer_export_fd(a, nullptr, &size),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_export_fd(a, &fd, nullptr), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_export_fd(nullptr, &fd, &size),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(fd, -1);
  EXPECT_TRUE(named("ejk_buffer_export_fd")) << ejk_last_error();
  uint8_t uuid[16];
  EXPECT_EQ(ejk_device_uuid(nullptr, uuid), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_device_uuid(device_, nullptr), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_TRUE(named("ejk_device_uuid")) << ejk_last_error();
  ejk_buffer_destroy(a);
}

TEST_F(BufferTest, HugeAllocationFailsCleanly) {
  ejk_buffer *buffer = reinterpret_cast<ejk_buffer *>(0x1);
  ejk_status status = ejk_buffer_create(
      device_, std::numeric_limits<size_t>::max() - 16, &buffer);
  EXPECT_NE(status, EJK_OK);
  EXPECT_EQ(buffer, nullptr);
  EXPECT_NE(std::string(ejk_last_error()), "");
  // Beyond the address space but not overflowing the rounding: malloc fails.
  status = ejk_buffer_create(device_, size_t(1) << 62, &buffer);
  EXPECT_EQ(status, EJK_ERROR_INTERNAL);
  EXPECT_NE(std::string(ejk_last_error()).find("out of memory"),
            std::string::npos)
      << ejk_last_error();
}

TEST_F(BufferTest, NullArguments) {
  ejk_buffer *buffer = nullptr;
  EXPECT_EQ(ejk_buffer_create(nullptr, 4, &buffer), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error()).find("'device' is NULL"),
            std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(ejk_buffer_create(device_, 4, nullptr), EJK_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(ejk_buffer_create(device_, 4, &buffer), EJK_OK);
  char data[4] = {};
  size_t size = 0;
  EXPECT_EQ(ejk_buffer_upload(nullptr, data, 4, 0), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_upload(buffer, nullptr, 4, 0),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(ejk_last_error()), "upload source is NULL");
  EXPECT_EQ(ejk_buffer_download(nullptr, data, 4, 0),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_download(buffer, nullptr, 4, 0),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_size(nullptr, &size), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_size(buffer, nullptr), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_destroy(nullptr), EJK_OK);
  ejk_buffer_destroy(buffer);
}

TEST_F(BufferTest, OutlivesItsDeviceHandle) {
  ejk_buffer *buffer = nullptr;
  ASSERT_EQ(ejk_buffer_create(device_, 8, &buffer), EJK_OK);
  ejk_device_destroy(device_);
  device_ = nullptr;
  uint64_t value = 42, back = 0;
  EXPECT_EQ(ejk_buffer_upload(buffer, &value, 8, 0), EJK_OK);
  EXPECT_EQ(ejk_buffer_download(buffer, &back, 8, 0), EJK_OK);
  EXPECT_EQ(back, 42u);
  ejk_buffer_destroy(buffer);
}

} // namespace
