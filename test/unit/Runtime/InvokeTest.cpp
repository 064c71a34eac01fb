//===- InvokeTest.cpp - Running entry points ------------------------------===//

#include "RuntimeTestUtil.h"

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace ejk::test;

extern "C" int ejk_test_run_add_from_c(const char *manifest, size_t n);

namespace {

using InvokeTest = RuntimeFixture;

std::vector<float> iota(size_t n, float start, float step) {
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i)
    values[i] = start + step * float(i);
  return values;
}

TEST_F(InvokeTest, AddsVectors) {
  load(manifestText({addEntry(256)}));
  std::vector<float> a = iota(256, 0.0f, 1.0f), b = iota(256, 100.0f, -0.5f);
  ejk_buffer *inputs[] = {buffer(a), buffer(b)};
  ejk_buffer *outputs[] = {buffer(std::vector<float>(256, -1.0f))};
  ASSERT_EQ(ejk_invoke(module_, "add", inputs, 2, outputs, 1), EJK_OK)
      << ejk_last_error();
  std::vector<float> out = read<float>(outputs[0], 256);
  for (size_t i = 0; i < 256; ++i)
    ASSERT_EQ(out[i], a[i] + b[i]) << "element " << i;
  uint64_t ns = 0;
  EXPECT_EQ(ejk_last_invoke_time_ns(module_, &ns), EJK_OK);
  EXPECT_GT(ns, 0u);
}

TEST_F(InvokeTest, WorksFromC) {
  std::string path = dir_.write("artifact.json", manifestText({addEntry(48)}));
  EXPECT_EQ(ejk_test_run_add_from_c(path.c_str(), 48), 0);
  // The C code checks what it computes: a wrong size makes it fail.
  EXPECT_NE(ejk_test_run_add_from_c(path.c_str(), 32), 0);
}

TEST_F(InvokeTest, TimeIsZeroBeforeFirstInvoke) {
  load(manifestText({addEntry(64)}));
  uint64_t ns = 1;
  EXPECT_EQ(ejk_last_invoke_time_ns(module_, &ns), EJK_OK);
  EXPECT_EQ(ns, 0u);
  size_t count = 7;
  EXPECT_EQ(ejk_last_invoke_dispatch_times_ns(module_, nullptr, 0, &count),
            EJK_OK);
  EXPECT_EQ(count, 0u);
}

TEST_F(InvokeTest, DispatchTimesSplitTheInvokeTime) {
  load(manifestText({addEntry(4096)}));
  std::vector<float> a(4096, 1.0f);
  ejk_buffer *inputs[] = {buffer(a), buffer(a)};
  ejk_buffer *outputs[] = {buffer(a)};
  ASSERT_EQ(ejk_invoke(module_, "add", inputs, 2, outputs, 1), EJK_OK)
      << ejk_last_error();
  uint64_t total = 0, times[4] = {0, 0, 0, 0};
  size_t count = 0;
  ASSERT_EQ(ejk_last_invoke_time_ns(module_, &total), EJK_OK);
  // Asking for the count alone, then the times.
  ASSERT_EQ(ejk_last_invoke_dispatch_times_ns(module_, nullptr, 0, &count),
            EJK_OK);
  EXPECT_EQ(count, 1u);
  ASSERT_EQ(ejk_last_invoke_dispatch_times_ns(module_, times, 4, &count),
            EJK_OK);
  EXPECT_EQ(count, 1u);
  EXPECT_GT(times[0], 0u);
  EXPECT_LE(times[0], total);
  EXPECT_EQ(times[1], 0u); // nothing past the count is written
  EXPECT_EQ(ejk_last_invoke_dispatch_times_ns(module_, nullptr, 1, &count),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_last_invoke_dispatch_times_ns(module_, times, 4, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
}

TEST_F(InvokeTest, LargerBuffersAreAccepted) {
  load(manifestText({addEntry(64)}));
  std::vector<float> a(80, 1.0f), b(64, 2.0f);
  ejk_buffer *inputs[] = {buffer(a), buffer(b)};
  ejk_buffer *outputs[] = {buffer(std::vector<float>(100, 0.0f))};
  ASSERT_EQ(ejk_invoke(module_, "add", inputs, 2, outputs, 1), EJK_OK)
      << ejk_last_error();
  std::vector<float> out = read<float>(outputs[0], 100);
  EXPECT_EQ(out[63], 3.0f);
  // The kernel touches only the manifest's 64 elements.
  EXPECT_EQ(out[64], 0.0f);
}

TEST_F(InvokeTest, TemporariesAndDispatchOrder) {
  ScopedEnv env("EJK_NUM_THREADS", "4");
  load(manifestText({twoStepEntry(1024)}));
  std::vector<float> in = iota(1024, -3.0f, 0.25f);
  ejk_buffer *inputs[] = {buffer(in)};
  ejk_buffer *outputs[] = {buffer(std::vector<float>(1024, 0.0f))};
  // Twice: the second call must get a fresh, zeroed temporary too (the
  // kernel accumulates into it).
  for (int round = 0; round < 2; ++round) {
    ASSERT_EQ(ejk_invoke(module_, "twostep", inputs, 1, outputs, 1), EJK_OK)
        << ejk_last_error();
    std::vector<float> out = read<float>(outputs[0], 1024);
    for (size_t i = 0; i < in.size(); ++i)
      ASSERT_EQ(out[i], 2.0f * in[i] + 1.0f) << "round " << round << " i " << i;
  }
}

TEST_F(InvokeTest, BuffersAre64ByteAligned) {
  std::string entry =
      "{\"name\": \"align\", \"buffers\": ["
      "{\"role\": \"input\", \"shape\": [3], \"dtype\": \"i8\"},"
      "{\"role\": \"output\", \"shape\": [4], \"dtype\": \"i64\"},"
      "{\"role\": \"temporary\", \"shape\": [5], \"dtype\": \"i8\"},"
      "{\"role\": \"temporary\", \"shape\": [0], \"dtype\": \"f32\"}],"
      "\"dispatches\": [{\"symbol\": \"record_alignment\", \"grid\": [4, 1, 1],"
      " \"bindings\": [1, 0, 2, 3]}]}";
  load(manifestText({entry}));
  ejk_buffer *inputs[] = {buffer(std::vector<int8_t>(3, 0))};
  ejk_buffer *outputs[] = {buffer(std::vector<int64_t>(4, -1))};
  ASSERT_EQ(ejk_invoke(module_, "align", inputs, 1, outputs, 1), EJK_OK)
      << ejk_last_error();
  EXPECT_EQ(read<int64_t>(outputs[0], 4), std::vector<int64_t>(4, 0));
}

/// Checks that every workgroup of a grid runs exactly once and none outside
/// it, for each EJK_NUM_THREADS.
class GridCoverageTest : public RuntimeFixture,
                         public ::testing::WithParamInterface<const char *> {};

TEST_P(GridCoverageTest, EveryWorkgroupExactlyOnce) {
  ScopedEnv env("EJK_NUM_THREADS", GetParam());
  createDevice();
  size_t threads = 0;
  ASSERT_EQ(ejk_device_thread_count(device_, &threads), EJK_OK);
  ASSERT_EQ(threads, size_t(std::stoul(GetParam())));
  struct Grid {
    int64_t x, y, z;
  };
  // Single workgroup, each axis alone, and a large grid that hands out
  // several indices per atomic increment.
  for (Grid grid : {Grid{1, 1, 1}, Grid{7, 1, 1}, Grid{1, 5, 1}, Grid{1, 1, 3},
                    Grid{5, 3, 2}, Grid{300, 70, 3}}) {
    ejk_module_destroy(module_);
    module_ = nullptr;
    load(manifestText({countEntry(grid.x, grid.y, grid.z)}));
    size_t total = size_t(grid.x * grid.y * grid.z);
    ejk_buffer *inputs[] = {
        buffer(std::vector<int64_t>{grid.x, grid.y, grid.z})};
    ejk_buffer *outputs[] = {buffer(std::vector<int32_t>(total + 1, 0))};
    ASSERT_EQ(ejk_invoke(module_, "count", inputs, 1, outputs, 1), EJK_OK)
        << ejk_last_error();
    std::vector<int32_t> hits = read<int32_t>(outputs[0], total + 1);
    EXPECT_EQ(hits[total], 0) << "workgroups outside the grid";
    for (size_t i = 0; i < total; ++i)
      ASSERT_EQ(hits[i], 1) << "workgroup " << i << " of grid " << grid.x << "x"
                            << grid.y << "x" << grid.z;
  }
}

INSTANTIATE_TEST_SUITE_P(NumThreads, GridCoverageTest,
                         ::testing::Values("1", "2", "4", "13"));

TEST_F(InvokeTest, OneThreadRunsOnTheCaller) {
  ScopedEnv env("EJK_NUM_THREADS", "1");
  load(manifestText({threadsEntry(8)}));
  ejk_buffer *outputs[] = {buffer(std::vector<uint64_t>(8, 0))};
  ASSERT_EQ(ejk_invoke(module_, "threads", nullptr, 0, outputs, 1), EJK_OK)
      << ejk_last_error();
  std::vector<uint64_t> ids = read<uint64_t>(outputs[0], 8);
  for (uint64_t id : ids)
    EXPECT_EQ(id, uint64_t(pthread_self()));
}

TEST_F(InvokeTest, PoolThreadsAndCallerShareTheGrid) {
  ScopedEnv env("EJK_NUM_THREADS", "4");
  load(manifestText({threadsEntry(64)}));
  ejk_buffer *outputs[] = {buffer(std::vector<uint64_t>(64, 0))};
  ASSERT_EQ(ejk_invoke(module_, "threads", nullptr, 0, outputs, 1), EJK_OK)
      << ejk_last_error();
  std::vector<uint64_t> ids = read<uint64_t>(outputs[0], 64);
  std::set<uint64_t> distinct(ids.begin(), ids.end());
  // 64 workgroups of 2 ms each: several threads take some (all 4 unless
  // the machine is too busy to wake them in time), never more than 4.
  EXPECT_GE(distinct.size(), 2u);
  EXPECT_LE(distinct.size(), 4u);
  EXPECT_EQ(distinct.count(uint64_t(pthread_self())), 1u);
  EXPECT_EQ(distinct.count(0), 0u);
}

TEST_F(InvokeTest, ConcurrentInvokesOnOneDevice) {
  ScopedEnv env("EJK_NUM_THREADS", "3");
  load(manifestText({twoStepEntry(512), addEntry(512)}));
  constexpr int kThreads = 4, kRounds = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ejk_buffer *in = nullptr, *other = nullptr, *out = nullptr;
      std::vector<float> values = iota(512, float(t), 1.0f);
      if (ejk_buffer_create(device_, 512 * 4, &in) != EJK_OK ||
          ejk_buffer_create(device_, 512 * 4, &other) != EJK_OK ||
          ejk_buffer_create(device_, 512 * 4, &out) != EJK_OK ||
          ejk_buffer_upload(in, values.data(), 512 * 4, 0) != EJK_OK ||
          ejk_buffer_upload(other, values.data(), 512 * 4, 0) != EJK_OK) {
        ++failures;
        return;
      }
      std::vector<float> result(512);
      for (int round = 0; round < kRounds; ++round) {
        bool twoStep = (round + t) % 2 == 0;
        ejk_buffer *inputs[] = {in, other};
        ejk_status status =
            twoStep ? ejk_invoke(module_, "twostep", inputs, 1, &out, 1)
                    : ejk_invoke(module_, "add", inputs, 2, &out, 1);
        if (status != EJK_OK ||
            ejk_buffer_download(out, result.data(), 512 * 4, 0) != EJK_OK) {
          ++failures;
          continue;
        }
        for (size_t i = 0; i < 512; ++i) {
          float expected =
              twoStep ? 2.0f * values[i] + 1.0f : values[i] + values[i];
          if (result[i] != expected) {
            ++failures;
            break;
          }
        }
      }
      ejk_buffer_destroy(in);
      ejk_buffer_destroy(other);
      ejk_buffer_destroy(out);
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(InvokeTest, WrongArgumentCounts) {
  load(manifestText({addEntry(64)}));
  ejk_buffer *a = buffer(std::vector<float>(64));
  ejk_buffer *inputs[] = {a, a, a};
  ejk_buffer *outputs[] = {a, a};
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 1, outputs, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(ejk_last_error()),
            "entry 'add' takes 2 inputs and 1 outputs, got 1 and 1");
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 3, outputs, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 2, outputs, 2),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(ejk_last_error()),
            "entry 'add' takes 2 inputs and 1 outputs, got 2 and 2");
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 2, outputs, 0),
            EJK_ERROR_INVALID_ARGUMENT);
}

TEST_F(InvokeTest, TooSmallBuffers) {
  load(manifestText({addEntry(256)}));
  ejk_buffer *big = buffer(std::vector<float>(256));
  ejk_buffer *small = buffer(std::vector<float>(4));
  ejk_buffer *inputs[] = {big, small};
  ejk_buffer *outputs[] = {big};
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 2, outputs, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(ejk_last_error()),
            "entry 'add' input 1 needs 1024 bytes, buffer has 16");
  ejk_buffer *inputs2[] = {big, big};
  ejk_buffer *outputs2[] = {small};
  EXPECT_EQ(ejk_invoke(module_, "add", inputs2, 2, outputs2, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(ejk_last_error()),
            "entry 'add' output 0 needs 1024 bytes, buffer has 16");
}

TEST_F(InvokeTest, UnknownEntry) {
  load(manifestText({addEntry(64)}));
  EXPECT_EQ(ejk_invoke(module_, "Add", nullptr, 0, nullptr, 0),
            EJK_ERROR_NOT_FOUND);
  EXPECT_EQ(std::string(ejk_last_error()),
            "module has no entry 'Add' (entries: 'add')");
}

TEST_F(InvokeTest, BufferFromAnotherDevice) {
  load(manifestText({addEntry(64)}));
  ejk_device *otherDevice = nullptr;
  ASSERT_EQ(ejk_device_create("cpu", &otherDevice), EJK_OK);
  ejk_buffer *foreign = nullptr;
  ASSERT_EQ(ejk_buffer_create(otherDevice, 256, &foreign), EJK_OK);
  ejk_buffer *mine = buffer(std::vector<float>(64));
  ejk_buffer *inputs[] = {mine, mine};
  ejk_buffer *outputs[] = {foreign};
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 2, outputs, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(ejk_last_error()),
            "entry 'add' output 0 was created on another device than the "
            "module");
  ejk_buffer_destroy(foreign);
  ejk_device_destroy(otherDevice);
}

TEST_F(InvokeTest, NullArguments) {
  load(manifestText({addEntry(64)}));
  ejk_buffer *a = buffer(std::vector<float>(64));
  ejk_buffer *inputs[] = {a, a};
  ejk_buffer *outputs[] = {a};
  EXPECT_EQ(ejk_invoke(nullptr, "add", inputs, 2, outputs, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error()).find("'module' is NULL"),
            std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(ejk_invoke(module_, nullptr, inputs, 2, outputs, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_invoke(module_, "add", nullptr, 2, outputs, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(ejk_last_error()),
            "ejk_invoke: 'inputs' is NULL but 'num_inputs' is 2");
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 2, nullptr, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  ejk_buffer *withNull[] = {a, nullptr};
  EXPECT_EQ(ejk_invoke(module_, "add", withNull, 2, outputs, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(ejk_last_error()), "entry 'add' input 1 is NULL");
}

} // namespace
