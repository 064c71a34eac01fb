//===- DeviceTest.cpp - Device creation and EJK_NUM_THREADS ---------------===//

#include "RuntimeTestUtil.h"

#include <string>
#include <thread>

using namespace ejk::test;

namespace {

TEST(DeviceTest, AbiVersionMatchesHeader) {
  EXPECT_EQ(ejk_runtime_abi_version(), EJK_RUNTIME_ABI_VERSION);
}

TEST(DeviceTest, CpuDeviceUsesNumThreads) {
  ScopedEnv env("EJK_NUM_THREADS", "3");
  ejk_device *device = nullptr;
  ASSERT_EQ(ejk_device_create("cpu", &device), EJK_OK) << ejk_last_error();
  size_t count = 0;
  EXPECT_EQ(ejk_device_thread_count(device, &count), EJK_OK);
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(ejk_device_destroy(device), EJK_OK);
}

TEST(DeviceTest, DefaultsToHardwareThreads) {
  ScopedEnv env("EJK_NUM_THREADS", nullptr);
  ejk_device *device = nullptr;
  ASSERT_EQ(ejk_device_create("cpu", &device), EJK_OK) << ejk_last_error();
  size_t count = 0;
  EXPECT_EQ(ejk_device_thread_count(device, &count), EJK_OK);
  unsigned hardware = std::thread::hardware_concurrency();
  EXPECT_EQ(count, hardware == 0 ? 1u : size_t(hardware));
  ejk_device_destroy(device);
}

TEST(DeviceTest, InvalidNumThreadsFailsAtCreate) {
  for (const char *value : {"0", "-2", "abc", "4x", " 4", "1.5", "99999",
                            "184467440737095516160"}) {
    ScopedEnv env("EJK_NUM_THREADS", value);
    ejk_device *device = reinterpret_cast<ejk_device *>(0x1);
    EXPECT_EQ(ejk_device_create("cpu", &device), EJK_ERROR_INVALID_ARGUMENT)
        << value;
    EXPECT_EQ(device, nullptr);
    std::string message = ejk_last_error();
    EXPECT_NE(message.find("EJK_NUM_THREADS"), std::string::npos) << message;
    EXPECT_NE(message.find(std::string("'") + value + "'"), std::string::npos)
        << message;
  }
}

TEST(DeviceTest, UnknownSpecIsUnavailable) {
  ejk_device *device = nullptr;
  EXPECT_EQ(ejk_device_create("tpu", &device), EJK_ERROR_UNAVAILABLE);
  EXPECT_EQ(device, nullptr);
  EXPECT_NE(std::string(ejk_last_error()).find("unknown device 'tpu'"),
            std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(ejk_device_create("", &device), EJK_ERROR_UNAVAILABLE);
  EXPECT_EQ(ejk_device_create("CPU", &device), EJK_ERROR_UNAVAILABLE);
}

TEST(DeviceTest, NullArguments) {
  ejk_device *device = nullptr;
  EXPECT_EQ(ejk_device_create(nullptr, &device), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error()).find("'spec' is NULL"),
            std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(ejk_device_create("cpu", nullptr), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error()).find("'out' is NULL"),
            std::string::npos)
      << ejk_last_error();
  size_t count = 0;
  EXPECT_EQ(ejk_device_thread_count(nullptr, &count),
            EJK_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(ejk_device_create("cpu", &device), EJK_OK);
  EXPECT_EQ(ejk_device_thread_count(device, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  ejk_device_destroy(device);
  // Destroying nothing is fine, as with free().
  EXPECT_EQ(ejk_device_destroy(nullptr), EJK_OK);
}

TEST(DeviceTest, LastErrorIsPerThread) {
  ejk_device *device = nullptr;
  ASSERT_EQ(ejk_device_create("tpu", &device), EJK_ERROR_UNAVAILABLE);
  std::string mine = ejk_last_error();
  std::string theirs = "unset";
  std::thread other([&] {
    theirs = ejk_last_error();
    ejk_device *ignored = nullptr;
    ejk_device_create("gpu", &ignored);
  });
  other.join();
  EXPECT_EQ(theirs, "");
  EXPECT_EQ(std::string(ejk_last_error()), mine);
}

TEST(DeviceTest, StatusAndDtypeNames) {
  EXPECT_STREQ(ejk_status_name(EJK_OK), "EJK_OK");
  EXPECT_STREQ(ejk_status_name(EJK_ERROR_FORMAT), "EJK_ERROR_FORMAT");
  EXPECT_STREQ(ejk_status_name(static_cast<ejk_status>(99)),
               "EJK_ERROR_UNKNOWN");
  struct {
    ejk_dtype dtype;
    const char *name;
    size_t size;
  } expected[] = {{EJK_DTYPE_F32, "f32", 4},   {EJK_DTYPE_F16, "f16", 2},
                  {EJK_DTYPE_BF16, "bf16", 2}, {EJK_DTYPE_F64, "f64", 8},
                  {EJK_DTYPE_I1, "i1", 1},     {EJK_DTYPE_I8, "i8", 1},
                  {EJK_DTYPE_I32, "i32", 4},   {EJK_DTYPE_I64, "i64", 8}};
  for (const auto &item : expected) {
    EXPECT_STREQ(ejk_dtype_name(item.dtype), item.name);
    EXPECT_EQ(ejk_dtype_size(item.dtype), item.size) << item.name;
  }
  EXPECT_EQ(ejk_dtype_size(static_cast<ejk_dtype>(42)), 0u);
  EXPECT_STREQ(ejk_dtype_name(static_cast<ejk_dtype>(42)), "unknown");
}

} // namespace
