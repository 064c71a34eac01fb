//===- BadInputTest.cpp - What the C API promises on bad input ------------===//
//
// No function aborts, hangs or touches freed memory, whatever it is given:
// a path that is not a regular file, a handle that is stale, destroyed
// twice, of another kind or garbage, outputs that alias inputs. Each case
// runs where a crash or a hang fails the test instead of the suite.
//
//===----------------------------------------------------------------------===//

#include "../TestSupport/ChildProcess.h"

#include "RuntimeTestUtil.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace ejk::test;

namespace {

using BadInputTest = RuntimeFixture;

bool contains(const char *text, const std::string &part) {
  return std::string(text).find(part) != std::string::npos;
}

} // namespace

TEST_F(BadInputTest, ModuleLoadRefusesWhatIsNotARegularFile) {
  createDevice();
  // /dev/zero used to be read until memory ran out: std::bad_alloc, abort.
  EXPECT_TRUE(ejk::test::finishesInChild([&] {
    ejk_module *module = nullptr;
    return ejk_module_load(device_, "/dev/zero", &module) == EJK_ERROR_IO &&
           !module && contains(ejk_last_error(), "is a character device");
  }));
  // A FIFO without a writer used to block the open forever.
  std::string fifo = dir_.file("manifest.json");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(ejk::test::finishesInChild([&] {
    ejk_module *module = nullptr;
    return ejk_module_load(device_, fifo.c_str(), &module) == EJK_ERROR_IO &&
           contains(ejk_last_error(), "is a FIFO, not a regular file");
  }));
}

TEST_F(BadInputTest, ModuleLoadBoundsTheManifestSize) {
  createDevice();
  // A sparse file: huge, but nothing to write.
  std::string path = dir_.file("huge.json");
  int fd = open(path.c_str(), O_WRONLY | O_CREAT, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, off_t(1) << 36), 0);
  close(fd);
  ejk_module *module = nullptr;
  EXPECT_EQ(ejk_module_load(device_, path.c_str(), &module), EJK_ERROR_IO);
  EXPECT_TRUE(contains(ejk_last_error(), "more than the 67108864 allowed"))
      << ejk_last_error();
}

TEST_F(BadInputTest, StaleAndDoubleDestroyedHandlesAreErrors) {
  load(manifestText({addEntry(64)}));
  ejk_buffer *a = nullptr;
  ASSERT_EQ(ejk_buffer_create(device_, 256, &a), EJK_OK);
  ASSERT_EQ(ejk_buffer_destroy(a), EJK_OK);
  // A double destroy used to free the object twice.
  EXPECT_TRUE(ejk::test::finishesInChild([&] {
    return ejk_buffer_destroy(a) == EJK_ERROR_INVALID_ARGUMENT &&
           contains(ejk_last_error(),
                    "ejk_buffer_destroy: 'buffer' is not a live buffer "
                    "handle (destroyed already, or never created)");
  }));
  EXPECT_TRUE(ejk::test::finishesInChild([&] {
    size_t bytes = 0;
    return ejk_buffer_size(a, &bytes) == EJK_ERROR_INVALID_ARGUMENT &&
           contains(ejk_last_error(), "'buffer' is not a live buffer");
  }));
  // A new object never answers to the stale handle, even in its slot.
  ejk_buffer *b = nullptr;
  ASSERT_EQ(ejk_buffer_create(device_, 128, &b), EJK_OK);
  EXPECT_NE(a, b);
  size_t bytes = 0;
  EXPECT_EQ(ejk_buffer_size(a, &bytes), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_buffer_size(b, &bytes), EJK_OK);
  EXPECT_EQ(bytes, 128u);
  EXPECT_EQ(ejk_buffer_destroy(b), EJK_OK);

  ejk_module *module = module_;
  module_ = nullptr;
  ASSERT_EQ(ejk_module_destroy(module), EJK_OK);
  EXPECT_TRUE(ejk::test::finishesInChild([&] {
    return ejk_module_destroy(module) == EJK_ERROR_INVALID_ARGUMENT &&
           ejk_invoke(module, "add", nullptr, 0, nullptr, 0) ==
               EJK_ERROR_INVALID_ARGUMENT &&
           contains(ejk_last_error(), "'module' is not a live module handle");
  }));
}

TEST_F(BadInputTest, GarbageAndWrongKindHandlesAreErrors) {
  load(manifestText({addEntry(64)}));
  ejk_buffer *a = buffer(std::vector<float>(64));
  EXPECT_TRUE(ejk::test::finishesInChild([&] {
    ejk_module *garbage = reinterpret_cast<ejk_module *>(uintptr_t(0x1000));
    size_t count = 0;
    return ejk_module_entry_count(garbage, &count) ==
               EJK_ERROR_INVALID_ARGUMENT &&
           ejk_module_destroy(garbage) == EJK_ERROR_INVALID_ARGUMENT;
  }));
  // A buffer handle passed where a module is expected.
  ejk_module *wrong = reinterpret_cast<ejk_module *>(a);
  size_t count = 0;
  EXPECT_EQ(ejk_module_entry_count(wrong, &count), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(), "ejk_module_entry_count: 'module' is a "
                                 "buffer handle, not a module handle");
  ejk_buffer *outputs[] = {reinterpret_cast<ejk_buffer *>(device_)};
  ejk_buffer *inputs[] = {a, a};
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 2, outputs, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(), "ejk_invoke: 'outputs[0]' is a device "
                                 "handle, not a buffer handle");
}

TEST_F(BadInputTest, OutputsMayNotAliasInputs) {
  load(manifestText({addEntry(64)}));
  ejk_buffer *a = buffer(std::vector<float>(64, 1.0f));
  ejk_buffer *b = buffer(std::vector<float>(64, 2.0f));
  ejk_buffer *inputs[] = {a, b};
  ejk_buffer *outputs[] = {b};
  EXPECT_EQ(ejk_invoke(module_, "add", inputs, 2, outputs, 1),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(), "entry 'add' output 0 is the same buffer as "
                                 "input 1; outputs may not alias inputs");
  ejk_invocation *invocation = nullptr;
  EXPECT_EQ(
      ejk_invoke_async(module_, "add", inputs, 2, outputs, 1, &invocation),
      EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(invocation, nullptr);
  // The inputs were not written.
  EXPECT_EQ(read<float>(b, 64), std::vector<float>(64, 2.0f));
  // An input given twice is fine: inputs are only read.
  ejk_buffer *out = buffer(std::vector<float>(64, 0.0f));
  ejk_buffer *twice[] = {a, a};
  ASSERT_EQ(ejk_invoke(module_, "add", twice, 2, &out, 1), EJK_OK)
      << ejk_last_error();
  EXPECT_EQ(read<float>(out, 64), std::vector<float>(64, 2.0f));
}

TEST(ManifestValidateTest, RunsTheLoadChecksWithoutLoading) {
  std::string overflow =
      manifestText({"{\"name\": \"f\", \"buffers\": [{\"role\": \"input\", "
                    "\"shape\": [4611686018427387904, 4], \"dtype\": "
                    "\"f32\"}], \"dispatches\": []}"},
                   "/no/such/library.so");
  EXPECT_EQ(ejk_manifest_validate(overflow.data(), overflow.size(), "m.json"),
            EJK_ERROR_FORMAT);
  EXPECT_STREQ(ejk_last_error(), "m.json: entry 'f' buffer 0: the byte size "
                                 "of 'shape' overflows");
  std::string good = manifestText({addEntry(64)}, "/no/such/library.so");
  EXPECT_EQ(ejk_manifest_validate(good.data(), good.size(), nullptr), EJK_OK);
  EXPECT_EQ(ejk_manifest_validate(nullptr, 0, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
}
