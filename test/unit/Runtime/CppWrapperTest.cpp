//===- CppWrapperTest.cpp - The header-only C++ wrapper -------------------===//

#include "ejk/Runtime/Runtime.hpp"

#include "RuntimeTestUtil.h"

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace ejk::test;

namespace {

TEST(CppWrapperTest, RunsAnEntry) {
  TempDir dir;
  std::string path = dir.write("artifact.json", manifestText({addEntry(32)}));

  ejk::Device device;
  ASSERT_TRUE(ejk::Device::create("cpu", device)) << "create";
  EXPECT_GE(device.threadCount(), 1u);
  ejk::Module module;
  ejk::Status status = ejk::Module::load(device, path, module);
  ASSERT_TRUE(status) << status.message;

  std::vector<std::string> names;
  ASSERT_TRUE(module.entryNames(names));
  EXPECT_EQ(names, std::vector<std::string>{"add"});
  size_t numInputs = 0, numOutputs = 0;
  ASSERT_TRUE(module.signature("add", numInputs, numOutputs));
  EXPECT_EQ(numInputs, 2u);
  EXPECT_EQ(numOutputs, 1u);
  ejk_tensor_desc desc;
  ASSERT_TRUE(module.arg("add", true, 0, desc));
  EXPECT_EQ(desc.shape[0], 32);

  std::vector<float> a(32, 1.5f), b(32, 2.0f), out(32, 0.0f);
  ejk::Buffer bufferA, bufferB, bufferOut;
  ASSERT_TRUE(ejk::Buffer::create(device, 32 * 4, bufferA));
  ASSERT_TRUE(ejk::Buffer::create(device, 32 * 4, bufferB));
  ASSERT_TRUE(ejk::Buffer::create(device, 32 * 4, bufferOut));
  EXPECT_EQ(bufferA.size(), 128u);
  ASSERT_TRUE(bufferA.upload(a));
  ASSERT_TRUE(bufferB.upload(b));
  status = module.invoke("add", {&bufferA, &bufferB}, {&bufferOut});
  ASSERT_TRUE(status) << status.message;
  ASSERT_TRUE(bufferOut.download(out));
  EXPECT_EQ(out, std::vector<float>(32, 3.5f));
  EXPECT_GT(module.lastInvokeTimeNs(), 0u);
}

TEST(CppWrapperTest, ErrorsCarryCodeAndMessage) {
  ejk::Device device;
  ejk::Status status = ejk::Device::create("tpu", device);
  EXPECT_FALSE(status);
  EXPECT_EQ(status.code, EJK_ERROR_UNAVAILABLE);
  EXPECT_NE(status.message.find("unknown device 'tpu'"), std::string::npos);
  EXPECT_FALSE(device);

  ASSERT_TRUE(ejk::Device::create("cpu", device));
  ejk::Module module;
  status = ejk::Module::load(device, "/nonexistent/ejk.json", module);
  EXPECT_EQ(status.code, EJK_ERROR_NOT_FOUND);
  EXPECT_FALSE(module);

  ejk::Buffer buffer;
  ASSERT_TRUE(ejk::Buffer::create(device, 8, buffer));
  char data[16] = {};
  status = buffer.upload(data, 16);
  EXPECT_EQ(status.code, EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(status.message.find("out of range"), std::string::npos);

  // Calls on empty handles fail instead of crashing.
  ejk::Buffer empty;
  EXPECT_EQ(empty.upload(data, 1).code, EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(empty.size(), 0u);
  ejk::Module emptyModule;
  std::vector<std::string> names;
  EXPECT_EQ(emptyModule.entryNames(names).code, EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(emptyModule.invoke("add", {}, {}).code, EJK_ERROR_INVALID_ARGUMENT);
}

TEST(CppWrapperTest, LoadsBytesAndRunsAsync) {
  std::ifstream in(kernelsPath(), std::ios::binary);
  std::stringstream library;
  library << in.rdbuf();
  std::string bytes = library.str();

  ejk::Device device;
  ASSERT_TRUE(ejk::Device::create("cpu", device));
  ejk::Module module;
  ejk::Status status = ejk::Module::loadBytes(
      device, manifestText({addEntry(32)}), bytes.data(), bytes.size(), module);
  ASSERT_TRUE(status) << status.message;
  std::vector<float> a(32, 1.0f), out(32, 0.0f);
  ejk::Buffer bufferA, bufferOut;
  ASSERT_TRUE(ejk::Buffer::create(device, 32 * 4, bufferA));
  ASSERT_TRUE(ejk::Buffer::create(device, 32 * 4, bufferOut));
  ASSERT_TRUE(bufferA.upload(a));
  ejk::Invocation invocation;
  status =
      module.invokeAsync("add", {&bufferA, &bufferA}, {&bufferOut}, invocation);
  ASSERT_TRUE(status) << status.message;
  ASSERT_TRUE(invocation.wait());
  EXPECT_GT(invocation.timeNs(), 0u);
  ASSERT_TRUE(bufferOut.download(out));
  EXPECT_EQ(out, std::vector<float>(32, 2.0f));

  ejk::Invocation failed;
  status = module.invokeAsync("add", {&bufferA}, {&bufferOut}, failed);
  EXPECT_EQ(status.code, EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_FALSE(bool(failed));
}

TEST(CppWrapperTest, HandlesMove) {
  ejk::Device device;
  ASSERT_TRUE(ejk::Device::create("cpu", device));
  ejk::Buffer first;
  ASSERT_TRUE(ejk::Buffer::create(device, 24, first));
  ejk_buffer *raw = first.get();
  ejk::Buffer second = std::move(first);
  EXPECT_FALSE(first);
  EXPECT_EQ(second.get(), raw);
  ejk::Buffer third;
  ASSERT_TRUE(ejk::Buffer::create(device, 8, third));
  third = std::move(second);
  EXPECT_EQ(third.get(), raw);
  EXPECT_EQ(third.size(), 24u);
}

} // namespace
