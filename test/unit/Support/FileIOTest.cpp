//===- FileIOTest.cpp - Reading and writing whole files safely ------------===//
//
// readRegularFile never blocks and never reads without a bound;
// writeFileReplacing replaces regular files and writes through to devices
// and FIFOs. Cases that used to hang run in a child killed after 10 s.
//
//===----------------------------------------------------------------------===//

#include "../TestSupport/ChildProcess.h"

#include "ejk/Support/FileIO.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

using namespace ejk;

namespace {

std::string tempDirectory() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "ejk-fileio-XXXXXX").string();
  return mkdtemp(pattern.data()) ? pattern : "";
}

class FileIOTest : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_FALSE(dir_.empty()); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_ = tempDirectory();
};

} // namespace

TEST_F(FileIOTest, ReadsRegularFilesAndProcFiles) {
  std::string path = dir_ + "/a.txt", text, error;
  ASSERT_TRUE(writeFileReplacing(path, "hello", error)) << error;
  ASSERT_TRUE(readRegularFile(path, text, error)) << error;
  EXPECT_EQ(text, "hello");
  // st_size is 0 for /proc files: read to the end anyway.
  ASSERT_TRUE(readRegularFile("/proc/self/status", text, error)) << error;
  EXPECT_NE(text.find("Name:"), std::string::npos);
}

TEST_F(FileIOTest, RefusesWhatIsNotARegularFileWithoutBlocking) {
  std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(ejk::test::finishesInChild([&] {
    std::string text, error;
    ReadFailure failure = ReadFailure::None;
    return !readRegularFile(fifo, text, error, ReadOptions(), &failure) &&
           failure == ReadFailure::NotRegular &&
           error == "'" + fifo + "' is a FIFO, not a regular file";
  }));
  EXPECT_TRUE(ejk::test::finishesInChild([&] {
    std::string text, error;
    return !readRegularFile("/dev/zero", text, error) &&
           error == "'/dev/zero' is a character device, not a regular file";
  }));
  std::string text, error;
  ReadFailure failure = ReadFailure::None;
  EXPECT_FALSE(readRegularFile(dir_, text, error, ReadOptions(), &failure));
  EXPECT_EQ(failure, ReadFailure::NotRegular);
  EXPECT_FALSE(
      readRegularFile(dir_ + "/absent", text, error, ReadOptions(), &failure));
  EXPECT_EQ(failure, ReadFailure::NotFound);
}

TEST_F(FileIOTest, BoundsTheSize) {
  std::string path = dir_ + "/big", text, error;
  ASSERT_TRUE(writeFileReplacing(path, std::string(100, 'x'), error));
  ReadOptions options;
  options.maxBytes = 99;
  ReadFailure failure = ReadFailure::None;
  EXPECT_FALSE(readRegularFile(path, text, error, options, &failure));
  EXPECT_EQ(failure, ReadFailure::TooLarge);
  EXPECT_NE(error.find("has 100 bytes, more than the 99 allowed"),
            std::string::npos)
      << error;
}

TEST_F(FileIOTest, NoFollowAndPrivate) {
  std::string path = dir_ + "/f", link = dir_ + "/l", text, error;
  ASSERT_TRUE(writeFileReplacing(path, "x", error, 0600));
  ASSERT_EQ(chmod(path.c_str(), 0600), 0);
  ASSERT_EQ(symlink(path.c_str(), link.c_str()), 0);
  ReadOptions options;
  options.noFollow = true;
  options.requirePrivate = true;
  EXPECT_TRUE(readRegularFile(path, text, error, options)) << error;
  EXPECT_FALSE(readRegularFile(link, text, error, options));
  EXPECT_NE(error.find("is a symbolic link"), std::string::npos) << error;
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  EXPECT_FALSE(readRegularFile(path, text, error, options));
  EXPECT_NE(error.find("not a private regular file"), std::string::npos);
}

TEST_F(FileIOTest, WritesThroughDevicesNeverReplacingThem) {
  std::string error;
  EXPECT_TRUE(writeFileReplacing("/dev/null", "data", error)) << error;
  struct stat info;
  ASSERT_EQ(stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
  EXPECT_FALSE(writeFileReplacing(dir_, "data", error));
  EXPECT_NE(error.find("is a directory, not a file that can be written"),
            std::string::npos)
      << error;
}

TEST_F(FileIOTest, ReplacedFileKeepsItsMode) {
  std::string path = dir_ + "/m", error;
  ASSERT_TRUE(writeFileReplacing(path, "one", error));
  ASSERT_EQ(chmod(path.c_str(), 0640), 0);
  ASSERT_TRUE(writeFileReplacing(path, "two", error));
  struct stat info;
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0640u);
}
