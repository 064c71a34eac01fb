//===- AsyncTest.cpp - ejk_invoke_async and invocations -------------------===//

#include "RuntimeTestUtil.h"

#include <string>
#include <thread>
#include <vector>

using namespace ejk::test;

namespace {

using AsyncTest = RuntimeFixture;

TEST_F(AsyncTest, RunsAndWaits) {
  load(manifestText({addEntry(256)}));
  std::vector<float> a(256, 1.5f), b(256, 2.0f);
  ejk_buffer *inputs[] = {buffer(a), buffer(b)};
  ejk_buffer *outputs[] = {buffer(std::vector<float>(256, 0.0f))};
  ejk_invocation *invocation = nullptr;
  ASSERT_EQ(
      ejk_invoke_async(module_, "add", inputs, 2, outputs, 1, &invocation),
      EJK_OK)
      << ejk_last_error();
  ASSERT_NE(invocation, nullptr);
  EXPECT_EQ(ejk_invocation_wait(invocation), EJK_OK) << ejk_last_error();
  // Waiting again gives the same answer.
  EXPECT_EQ(ejk_invocation_wait(invocation), EJK_OK);
  uint64_t ns = 0;
  EXPECT_EQ(ejk_invocation_time_ns(invocation, &ns), EJK_OK);
  EXPECT_GT(ns, 0u);
  for (float value : read<float>(outputs[0], 256))
    ASSERT_EQ(value, 3.5f);
  EXPECT_EQ(ejk_invocation_destroy(invocation), EJK_OK);
}

TEST_F(AsyncTest, InvocationsOnOneDeviceRunInSubmissionOrder) {
  // x <- x + 1, forty times, each step reading the previous step's output:
  // the result is 40 only if the steps ran in order, one after another.
  load(manifestText({addEntry(1024)}));
  ejk_buffer *one = buffer(std::vector<float>(1024, 1.0f));
  ejk_buffer *x[2] = {buffer(std::vector<float>(1024, 0.0f)),
                      buffer(std::vector<float>(1024, 0.0f))};
  std::vector<ejk_invocation *> invocations;
  for (int step = 0; step < 40; ++step) {
    ejk_buffer *inputs[] = {x[step % 2], one};
    ejk_buffer *outputs[] = {x[(step + 1) % 2]};
    ejk_invocation *invocation = nullptr;
    ASSERT_EQ(
        ejk_invoke_async(module_, "add", inputs, 2, outputs, 1, &invocation),
        EJK_OK)
        << ejk_last_error();
    invocations.push_back(invocation);
  }
  EXPECT_EQ(ejk_invocation_wait(invocations.back()), EJK_OK);
  for (float value : read<float>(x[0], 1024))
    ASSERT_EQ(value, 40.0f);
  for (ejk_invocation *invocation : invocations) {
    uint64_t ns = 0;
    // Earlier invocations are done too.
    EXPECT_EQ(ejk_invocation_time_ns(invocation, &ns), EJK_OK);
    ejk_invocation_destroy(invocation);
  }
}

TEST_F(AsyncTest, ArgumentErrorsAreReturnedByTheCall) {
  load(manifestText({addEntry(64)}));
  ejk_buffer *a = buffer(std::vector<float>(64, 1.0f));
  ejk_buffer *small = buffer(std::vector<float>(8, 1.0f));
  ejk_buffer *inputs[] = {a, a};
  ejk_buffer *outputs[] = {a};
  ejk_invocation *invocation = reinterpret_cast<ejk_invocation *>(0x1);

  EXPECT_EQ(
      ejk_invoke_async(module_, "add", inputs, 1, outputs, 1, &invocation),
      EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(invocation, nullptr);
  EXPECT_STREQ(ejk_last_error(),
               "entry 'add' takes 2 inputs and 1 outputs, got 1 and 1");

  EXPECT_EQ(
      ejk_invoke_async(module_, "sub", inputs, 2, outputs, 1, &invocation),
      EJK_ERROR_NOT_FOUND);
  EXPECT_EQ(invocation, nullptr);

  ejk_buffer *withNull[] = {a, nullptr};
  EXPECT_EQ(
      ejk_invoke_async(module_, "add", withNull, 2, outputs, 1, &invocation),
      EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(), "entry 'add' input 1 is NULL");

  ejk_buffer *tooSmall[] = {small};
  EXPECT_EQ(
      ejk_invoke_async(module_, "add", inputs, 2, tooSmall, 1, &invocation),
      EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(),
               "entry 'add' output 0 needs 256 bytes, buffer has 32");

  EXPECT_EQ(
      ejk_invoke_async(module_, "add", nullptr, 2, outputs, 1, &invocation),
      EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(),
               "ejk_invoke_async: 'inputs' is NULL but 'num_inputs' is 2");

  EXPECT_EQ(ejk_invoke_async(module_, "add", inputs, 2, outputs, 1, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(), "ejk_invoke_async: 'invocation' is NULL");
  EXPECT_EQ(
      ejk_invoke_async(nullptr, "add", inputs, 2, outputs, 1, &invocation),
      EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(), "ejk_invoke_async: 'module' is NULL");
}

TEST_F(AsyncTest, InvocationFunctionsCheckTheirArguments) {
  EXPECT_EQ(ejk_invocation_wait(nullptr), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(), "ejk_invocation_wait: 'invocation' is NULL");
  uint64_t ns = 0;
  EXPECT_EQ(ejk_invocation_time_ns(nullptr, &ns), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_invocation_destroy(nullptr), EJK_OK);

  load(manifestText({addEntry(64)}));
  ejk_buffer *a = buffer(std::vector<float>(64, 1.0f));
  ejk_buffer *out = buffer(std::vector<float>(64, 0.0f));
  ejk_buffer *inputs[] = {a, a};
  ejk_invocation *invocation = nullptr;
  ASSERT_EQ(ejk_invoke_async(module_, "add", inputs, 2, &out, 1, &invocation),
            EJK_OK);
  EXPECT_EQ(ejk_invocation_time_ns(invocation, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  ejk_invocation_wait(invocation);
  ejk_invocation_destroy(invocation);
}

TEST_F(AsyncTest, HandlesMayGoBeforeTheInvocationFinishes) {
  // The invocation holds the module, the device and its buffers: releasing
  // every handle but the output right after submitting is safe.
  load(manifestText({addEntry(4096)}));
  ejk_buffer *a = nullptr, *b = nullptr, *out = nullptr;
  std::vector<float> ones(4096, 1.0f);
  ASSERT_EQ(ejk_buffer_create(device_, 4096 * 4, &a), EJK_OK);
  ASSERT_EQ(ejk_buffer_create(device_, 4096 * 4, &b), EJK_OK);
  ASSERT_EQ(ejk_buffer_create(device_, 4096 * 4, &out), EJK_OK);
  ejk_buffer_upload(a, ones.data(), 4096 * 4, 0);
  ejk_buffer_upload(b, ones.data(), 4096 * 4, 0);
  ejk_buffer *inputs[] = {a, b};
  ejk_invocation *invocation = nullptr;
  ASSERT_EQ(ejk_invoke_async(module_, "add", inputs, 2, &out, 1, &invocation),
            EJK_OK);
  ejk_buffer_destroy(a);
  ejk_buffer_destroy(b);
  ejk_module_destroy(module_);
  module_ = nullptr;
  ejk_device_destroy(device_);
  device_ = nullptr;
  EXPECT_EQ(ejk_invocation_wait(invocation), EJK_OK) << ejk_last_error();
  std::vector<float> result(4096);
  ASSERT_EQ(ejk_buffer_download(out, result.data(), 4096 * 4, 0), EJK_OK);
  for (float value : result)
    ASSERT_EQ(value, 2.0f);
  ejk_invocation_destroy(invocation);
  ejk_buffer_destroy(out);
}

TEST_F(AsyncTest, DestroyingAnUnwaitedInvocationLetsItFinish) {
  load(manifestText({addEntry(64)}));
  ejk_buffer *a = buffer(std::vector<float>(64, 1.0f));
  ejk_buffer *out = buffer(std::vector<float>(64, 0.0f));
  ejk_buffer *inputs[] = {a, a};
  ejk_invocation *first = nullptr, *second = nullptr;
  ASSERT_EQ(ejk_invoke_async(module_, "add", inputs, 2, &out, 1, &first),
            EJK_OK);
  ejk_invocation_destroy(first);
  // In order: once the second is done, so is the first.
  ASSERT_EQ(ejk_invoke_async(module_, "add", inputs, 2, &out, 1, &second),
            EJK_OK);
  EXPECT_EQ(ejk_invocation_wait(second), EJK_OK);
  ejk_invocation_destroy(second);
  for (float value : read<float>(out, 64))
    ASSERT_EQ(value, 2.0f);
}

TEST_F(AsyncTest, ManyThreadsSubmitAtOnce) {
  load(manifestText({addEntry(512)}));
  constexpr int kThreads = 4, kPerThread = 10;
  std::vector<ejk_buffer *> outs;
  ejk_buffer *a = buffer(std::vector<float>(512, 1.0f));
  for (int t = 0; t < kThreads * kPerThread; ++t)
    outs.push_back(buffer(std::vector<float>(512, 0.0f)));
  std::vector<std::thread> threads;
  std::vector<int> failures(kThreads, 0);
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::vector<ejk_invocation *> mine;
      for (int i = 0; i < kPerThread; ++i) {
        ejk_buffer *inputs[] = {a, a};
        ejk_invocation *invocation = nullptr;
        if (ejk_invoke_async(module_, "add", inputs, 2,
                             &outs[t * kPerThread + i], 1,
                             &invocation) != EJK_OK) {
          ++failures[t];
          continue;
        }
        mine.push_back(invocation);
      }
      for (ejk_invocation *invocation : mine) {
        if (ejk_invocation_wait(invocation) != EJK_OK)
          ++failures[t];
        ejk_invocation_destroy(invocation);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], 0);
  for (ejk_buffer *out : outs)
    for (float value : read<float>(out, 512))
      ASSERT_EQ(value, 2.0f);
}

} // namespace
