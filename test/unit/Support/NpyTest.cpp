//===- NpyTest.cpp - .npy reading and writing -----------------------------===//

#include "../TestSupport/ChildProcess.h"

#include "ejk/Support/Npy.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

using ejk::NpyArray;

namespace {

/// A fresh directory, removed with its contents at scope exit.
class TempDir {
public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "ejk-npy-XXXXXX").string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (mkdtemp(buffer.data()))
      path_ = buffer.data();
  }
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty())
      std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

  /// The names of the files in the directory.
  std::vector<std::string> list() const {
    std::vector<std::string> names;
    std::error_code error;
    for (const auto &item : std::filesystem::directory_iterator(path_, error))
      names.push_back(item.path().filename().string());
    return names;
  }

private:
  std::string path_;
};

std::string readFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

/// A .npy file image with \p header (padded to a multiple of 64 with the
/// prefix unless \p pad is false) and \p data, in format \p major.0.
std::string npyImage(const std::string &header, const std::string &data,
                     int major = 1, bool pad = true) {
  size_t prefix = major == 1 ? 10 : 12;
  std::string dict = header;
  if (pad)
    while ((prefix + dict.size() + 1) % 64 != 0)
      dict += ' ';
  dict += '\n';
  std::string bytes("\x93NUMPY", 6);
  bytes += char(major);
  bytes += char(0);
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    bytes += char((dict.size() >> (8 * i)) & 0xff);
  return bytes + dict + data;
}

/// An array of \p dtype and \p shape whose bytes count up from \p seed.
NpyArray makeArray(const std::string &dtype, std::vector<int64_t> shape,
                   uint8_t seed = 1) {
  NpyArray array;
  array.dtype = dtype;
  array.shape = std::move(shape);
  size_t bytes = size_t(array.numElements()) * ejk::npyDtypeSize(dtype);
  for (size_t i = 0; i < bytes; ++i)
    array.data.push_back(dtype == "bool" ? uint8_t((i + seed) % 2)
                                         : uint8_t(i * 7 + seed));
  return array;
}

const char *const kAllDtypes[] = {"f32", "f16", "f64",  "i32", "i64",
                                  "i8",  "u8",  "bool", "u16"};

TEST(NpyTest, DtypeSizes) {
  EXPECT_EQ(ejk::npyDtypeSize("f32"), 4u);
  EXPECT_EQ(ejk::npyDtypeSize("f16"), 2u);
  EXPECT_EQ(ejk::npyDtypeSize("f64"), 8u);
  EXPECT_EQ(ejk::npyDtypeSize("i32"), 4u);
  EXPECT_EQ(ejk::npyDtypeSize("i64"), 8u);
  EXPECT_EQ(ejk::npyDtypeSize("i8"), 1u);
  EXPECT_EQ(ejk::npyDtypeSize("u8"), 1u);
  EXPECT_EQ(ejk::npyDtypeSize("bool"), 1u);
  EXPECT_EQ(ejk::npyDtypeSize("u16"), 2u);
  EXPECT_EQ(ejk::npyDtypeSize("bf16"), 0u);
}

TEST(NpyTest, NumElements) {
  NpyArray array;
  EXPECT_EQ(array.numElements(), 1);
  array.shape = {2, 0, 3};
  EXPECT_EQ(array.numElements(), 0);
  array.shape = {2, 3, 4};
  EXPECT_EQ(array.numElements(), 24);
  array.shape = {-1};
  EXPECT_EQ(array.numElements(), -1);
  array.shape = {int64_t(1) << 62, 4};
  EXPECT_EQ(array.numElements(), -1);
}

TEST(NpyTest, RoundTripsEveryDtype) {
  TempDir dir;
  for (const char *dtype : kAllDtypes) {
    for (const std::vector<int64_t> &shape :
         {std::vector<int64_t>{}, std::vector<int64_t>{5},
          std::vector<int64_t>{2, 3, 4}, std::vector<int64_t>{3, 0}}) {
      NpyArray array = makeArray(dtype, shape);
      std::string path = dir.file(std::string(dtype) + ".npy");
      std::string error;
      ASSERT_TRUE(ejk::writeNpy(path, array, error)) << error;
      NpyArray back;
      ASSERT_TRUE(ejk::readNpy(path, back, error)) << error;
      EXPECT_EQ(back.dtype, array.dtype);
      EXPECT_EQ(back.shape, array.shape);
      EXPECT_EQ(back.data, array.data) << dtype;
    }
  }
}

TEST(NpyTest, WritesVersion1HeaderLikeNumpy) {
  TempDir dir;
  std::string path = dir.file("a.npy");
  std::string error;
  ASSERT_TRUE(ejk::writeNpy(path, makeArray("f32", {2, 3}), error)) << error;
  std::string bytes = readFile(path);
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  size_t headerLength = uint8_t(bytes[8]) | (size_t(uint8_t(bytes[9])) << 8);
  size_t dataOffset = 10 + headerLength;
  EXPECT_EQ(dataOffset % 64, 0u);
  EXPECT_EQ(bytes[dataOffset - 1], '\n');
  EXPECT_EQ(bytes.size(), dataOffset + 24);
  std::string header = bytes.substr(10, headerLength);
  EXPECT_EQ(
      header.rfind(
          "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 0),
      0u)
      << header;

  // One-byte types carry '|'; a 1-tuple keeps its comma.
  ASSERT_TRUE(ejk::writeNpy(path, makeArray("u8", {7}), error)) << error;
  EXPECT_NE(readFile(path).find("'descr': '|u1'"), std::string::npos);
  EXPECT_NE(readFile(path).find("'shape': (7,)"), std::string::npos);
  ASSERT_TRUE(ejk::writeNpy(path, makeArray("bool", {}), error)) << error;
  EXPECT_NE(readFile(path).find("'descr': '|b1'"), std::string::npos);
  EXPECT_NE(readFile(path).find("'shape': ()"), std::string::npos);
}

TEST(NpyTest, ReadsVersion2And3Headers) {
  TempDir dir;
  std::string data;
  for (int i = 0; i < 6; ++i) {
    int32_t value = i * 11 - 20;
    data.append(reinterpret_cast<const char *>(&value), 4);
  }
  for (int major : {2, 3}) {
    std::string path = dir.file("v" + std::to_string(major) + ".npy");
    writeFile(path, npyImage("{'descr': '<i4', 'fortran_order': False, "
                             "'shape': (3, 2), }",
                             data, major));
    NpyArray array;
    std::string error;
    ASSERT_TRUE(ejk::readNpy(path, array, error)) << error;
    EXPECT_EQ(array.dtype, "i32");
    EXPECT_EQ(array.shape, (std::vector<int64_t>{3, 2}));
    EXPECT_EQ(std::string(array.data.begin(), array.data.end()), data);
  }
}

TEST(NpyTest, ReadsHeaderVariants) {
  TempDir dir;
  std::string path = dir.file("a.npy");
  std::string error;
  NpyArray array;
  // Keys in another order, double quotes, no trailing comma, no padding.
  writeFile(path, npyImage("{\"shape\": (2,), \"fortran_order\": False, "
                           "\"descr\": \"<f2\"}",
                           std::string(4, '\x01'), 1, /*pad=*/false));
  ASSERT_TRUE(ejk::readNpy(path, array, error)) << error;
  EXPECT_EQ(array.dtype, "f16");
  EXPECT_EQ(array.shape, std::vector<int64_t>{2});
  // Native-order and not-applicable marks; Python 2 long suffixes.
  writeFile(path, npyImage("{'descr': '=i8', 'fortran_order': False, "
                           "'shape': (1L, 2L), }",
                           std::string(16, '\0')));
  ASSERT_TRUE(ejk::readNpy(path, array, error)) << error;
  EXPECT_EQ(array.dtype, "i64");
  EXPECT_EQ(array.shape, (std::vector<int64_t>{1, 2}));
  for (const char *descr : {"|i1", "<i1", "=b1", "|u1"}) {
    writeFile(path, npyImage(std::string("{'descr': '") + descr +
                                 "', 'fortran_order': False, 'shape': (3,), }",
                             "abc"));
    ASSERT_TRUE(ejk::readNpy(path, array, error)) << descr << ": " << error;
    EXPECT_EQ(array.data.size(), 3u);
  }
  writeFile(path, npyImage("{'descr': '<u2', 'fortran_order': False, "
                           "'shape': (), }",
                           "zz"));
  ASSERT_TRUE(ejk::readNpy(path, array, error)) << error;
  EXPECT_EQ(array.dtype, "u16");
  EXPECT_TRUE(array.shape.empty());
}

/// Reads an image expected to fail with a message containing \p expected.
void expectReadError(const std::string &image, const std::string &expected) {
  TempDir dir;
  std::string path = dir.file("bad.npy");
  writeFile(path, image);
  NpyArray array;
  array.dtype = "f32";
  std::string error;
  EXPECT_FALSE(ejk::readNpy(path, array, error)) << expected;
  EXPECT_NE(error.find(expected), std::string::npos) << error;
  EXPECT_NE(error.find(path), std::string::npos) << error;
  // A failed read leaves no partial array behind.
  EXPECT_TRUE(array.dtype.empty());
  EXPECT_TRUE(array.data.empty());
}

TEST(NpyTest, RejectsBigEndian) {
  expectReadError(npyImage("{'descr': '>f4', 'fortran_order': False, "
                           "'shape': (2,), }",
                           std::string(8, '\0')),
                  "big-endian data ('>f4') is not supported");
}

TEST(NpyTest, RejectsFortranOrder) {
  expectReadError(npyImage("{'descr': '<f4', 'fortran_order': True, "
                           "'shape': (2, 2), }",
                           std::string(16, '\0')),
                  "fortran_order=True arrays are not supported");
}

TEST(NpyTest, RejectsTruncatedAndOversizedData) {
  std::string header =
      "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  expectReadError(npyImage(header, std::string(47, '\0')),
                  "truncated data: the shape needs 48 bytes of data, the "
                  "file has 47");
  expectReadError(npyImage(header, ""), "truncated data");
  expectReadError(npyImage(header, std::string(49, '\0')),
                  "the shape needs 48 bytes of data, the file has 49");
  // The header itself cut short.
  expectReadError(npyImage(header, "").substr(0, 40), "truncated header");
  expectReadError(std::string("\x93NUMPY\x01\x00\x10", 9), "truncated header");
}

TEST(NpyTest, RejectsMalformedFiles) {
  expectReadError("", "not a .npy file (bad magic)");
  expectReadError("PK\x03\x04 zip archive", "not a .npy file (bad magic)");
  std::string valid =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
  std::string image = npyImage(valid, std::string(4, '\0'));
  image[6] = 4;
  expectReadError(image, "unsupported .npy format version 4.0");
  image[6] = 1;
  image[7] = 1;
  expectReadError(image, "unsupported .npy format version 1.1");
  expectReadError(npyImage("{'descr': '<c8', 'fortran_order': False, "
                           "'shape': (1,), }",
                           std::string(8, '\0')),
                  "unsupported dtype '<c8'");
  expectReadError(npyImage("{'descr': '|f4', 'fortran_order': False, "
                           "'shape': (1,), }",
                           std::string(4, '\0')),
                  "lacks a byte order");
  expectReadError(npyImage("{'descr': [('a', '<f4')], 'fortran_order': "
                           "False, 'shape': (1,), }",
                           std::string(4, '\0')),
                  "structured dtypes are not supported");
  expectReadError(
      npyImage("{'descr': '<f4', 'shape': (1,), }", std::string(4, '\0')),
      "must have 'descr', 'fortran_order' and 'shape'");
  expectReadError(npyImage("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (-1,), }",
                           ""),
                  "'shape' must be a tuple of non-negative integers");
  expectReadError(npyImage("{'descr': '<f4', 'fortran_order': 0, "
                           "'shape': (1,), }",
                           std::string(4, '\0')),
                  "'fortran_order' must be True or False");
  expectReadError(npyImage("['descr', '<f4']", ""), "expected '{'");
  expectReadError(npyImage("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (1,), 'extra': 1}",
                           std::string(4, '\0')),
                  "unexpected key 'extra'");
  expectReadError(npyImage("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (4611686018427387904, 4), }",
                           ""),
                  "the shape's byte size overflows");
}

TEST(NpyTest, RejectsExtentsBeyondInt64) {
  // 2^64 + 32 used to wrap to 32 (the bound was checked after multiplying)
  // and the file was read as a 32-element array.
  expectReadError(npyImage("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (18446744073709551648,), }",
                           std::string(128, '\0')),
                  "'shape' must be a tuple of non-negative integers below "
                  "2^63");
  expectReadError(npyImage("{'descr': '<f4', 'fortran_order': False, "
                           "'shape': (9223372036854775808,), }",
                           ""),
                  "below 2^63");
}

TEST(NpyTest, RefusesFifoAndDevicesWithoutBlocking) {
  TempDir dir;
  std::string fifo = dir.file("in.npy");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // The FIFO has no writer: opening it used to block forever.
  EXPECT_TRUE(ejk::test::finishesInChild([&] {
    NpyArray array;
    std::string error;
    return !ejk::readNpy(fifo, array, error) &&
           error.find("is a FIFO, not a regular file") != std::string::npos;
  }));
  EXPECT_TRUE(ejk::test::finishesInChild([&] {
    NpyArray array;
    std::string error;
    return !ejk::readNpy("/dev/zero", array, error) &&
           error.find("is a character device") != std::string::npos;
  }));
}

TEST(NpyTest, WritesThroughDevicesAndFifos) {
  TempDir dir;
  std::string error;
  // /dev/null stays a character device (it used to be replaced by a file
  // where the directory was writable).
  EXPECT_TRUE(ejk::writeNpy("/dev/null", makeArray("f32", {4}), error))
      << error;
  struct stat info;
  ASSERT_EQ(stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));

  // A FIFO without a reader is an error, not a hang, and stays a FIFO.
  std::string fifo = dir.file("out.npy");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_TRUE(ejk::test::finishesInChild([&] {
    std::string childError;
    return !ejk::writeNpy(fifo, makeArray("f32", {4}), childError) &&
           childError.find("no process reads the FIFO") != std::string::npos;
  }));
  ASSERT_EQ(lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
  EXPECT_EQ(dir.list(), std::vector<std::string>{"out.npy"});
}

TEST(NpyTest, WriteThroughSymlinkKeepsTheLink) {
  TempDir dir;
  std::string target = dir.file("target.npy"), link = dir.file("link.npy");
  writeFile(target, "old");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  std::string error;
  NpyArray array = makeArray("i32", {3});
  ASSERT_TRUE(ejk::writeNpy(link, array, error)) << error;
  struct stat info;
  ASSERT_EQ(lstat(link.c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  NpyArray back;
  ASSERT_TRUE(ejk::readNpy(target, back, error)) << error;
  EXPECT_EQ(back.data, array.data);
}

TEST(NpyTest, ReadMissingFile) {
  TempDir dir;
  NpyArray array;
  std::string error;
  EXPECT_FALSE(ejk::readNpy(dir.file("absent.npy"), array, error));
  EXPECT_NE(error.find("No such file"), std::string::npos) << error;
  EXPECT_FALSE(ejk::readNpy(dir.path(), array, error));
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
}

TEST(NpyTest, WriteRejectsInconsistentArrays) {
  TempDir dir;
  std::string path = dir.file("a.npy");
  std::string error;
  NpyArray array = makeArray("f32", {2, 2});
  array.data.pop_back();
  EXPECT_FALSE(ejk::writeNpy(path, array, error));
  EXPECT_NE(error.find("the shape needs 16 bytes of data, the array holds 15"),
            std::string::npos)
      << error;
  array = makeArray("f32", {2});
  array.dtype = "bf16";
  EXPECT_FALSE(ejk::writeNpy(path, array, error));
  EXPECT_NE(error.find("unknown dtype 'bf16'"), std::string::npos) << error;
  array = makeArray("f32", {});
  array.shape = {-2};
  EXPECT_FALSE(ejk::writeNpy(path, array, error));
  EXPECT_NE(error.find("invalid shape"), std::string::npos) << error;
  // Nothing was created.
  EXPECT_TRUE(dir.list().empty());
}

TEST(NpyTest, WriteIntoMissingDirectoryFailsCleanly) {
  TempDir dir;
  std::string path = dir.file("no/such/dir/a.npy");
  std::string error;
  EXPECT_FALSE(ejk::writeNpy(path, makeArray("i32", {4}), error));
  EXPECT_NE(error.find("No such file or directory"), std::string::npos)
      << error;
  EXPECT_NE(error.find(path), std::string::npos) << error;
  EXPECT_TRUE(dir.list().empty());
}

TEST(NpyTest, FailedRenameKeepsTargetAndRemovesTemp) {
  TempDir dir;
  // A non-empty directory in the way: rename() over it fails.
  std::string path = dir.file("target.npy");
  std::error_code ec;
  std::filesystem::create_directories(path + "/inside", ec);
  ASSERT_FALSE(ec) << ec.message();
  std::string error;
  EXPECT_FALSE(ejk::writeNpy(path, makeArray("f64", {3}), error));
  EXPECT_NE(error.find("is a directory, not a file that can be written"),
            std::string::npos)
      << error;
  EXPECT_EQ(dir.list(), std::vector<std::string>{"target.npy"});
  EXPECT_TRUE(std::filesystem::is_directory(path + "/inside"));
}

TEST(NpyTest, WriteFailingMidwayKeepsExistingFile) {
  TempDir dir;
  std::string path = dir.file("keep.npy");
  NpyArray original = makeArray("u8", {100});
  std::string error;
  ASSERT_TRUE(ejk::writeNpy(path, original, error)) << error;
  std::string before = readFile(path);

  // A file-size limit makes the write of a 1 MiB array fail after its first
  // 64 KiB, as a full disk would; works even for root, unlike permissions.
  // In a child process so the limit and the signal stay out of the test.
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {65536, 65536};
    setrlimit(RLIMIT_FSIZE, &limit);
    std::string childError;
    bool written =
        ejk::writeNpy(path, makeArray("f32", {512, 512}), childError);
    bool reported = childError.find("write failed") != std::string::npos;
    _exit(!written && reported ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "writeNpy did not fail with 'write failed' under the size limit";
  EXPECT_EQ(readFile(path), before);
  EXPECT_EQ(dir.list(), std::vector<std::string>{"keep.npy"});
  NpyArray back;
  ASSERT_TRUE(ejk::readNpy(path, back, error)) << error;
  EXPECT_EQ(back.data, original.data);
}

TEST(NpyTest, OverwritesExistingFile) {
  TempDir dir;
  std::string path = dir.file("a.npy");
  std::string error;
  ASSERT_TRUE(ejk::writeNpy(path, makeArray("f32", {1000}), error)) << error;
  NpyArray small = makeArray("i8", {3}, 9);
  ASSERT_TRUE(ejk::writeNpy(path, small, error)) << error;
  NpyArray back;
  ASSERT_TRUE(ejk::readNpy(path, back, error)) << error;
  EXPECT_EQ(back.data, small.data);
  EXPECT_EQ(dir.list(), std::vector<std::string>{"a.npy"});
}

//===----------------------------------------------------------------------===//
// Interoperability with numpy itself
//===----------------------------------------------------------------------===//

/// A python3 that can import numpy, or "" when there is none. The first
/// python3 on PATH may lack numpy (a pyenv shim), so the system one is
/// tried too.
std::string findNumpyPython() {
  std::vector<std::string> candidates;
  if (const char *override = std::getenv("EJK_TEST_PYTHON"))
    candidates.push_back(override);
  candidates.push_back("python3");
  candidates.push_back("/usr/bin/python3");
  for (const std::string &python : candidates) {
    std::string command = python + " -c 'import numpy' > /dev/null 2>&1";
    if (std::system(command.c_str()) == 0)
      return python;
  }
  return "";
}

/// Runs \p script with \p python; true when it exits with 0.
bool runPython(const std::string &python, const std::string &script,
               const TempDir &dir) {
  std::string scriptPath = dir.file("script.py");
  writeFile(scriptPath, script);
  std::string command = python + " " + scriptPath + " " + dir.path();
  return std::system(command.c_str()) == 0;
}

const char *numpyDtype(const std::string &dtype) {
  if (dtype == "f32")
    return "float32";
  if (dtype == "f16")
    return "float16";
  if (dtype == "f64")
    return "float64";
  if (dtype == "i32")
    return "int32";
  if (dtype == "i64")
    return "int64";
  if (dtype == "i8")
    return "int8";
  if (dtype == "u8")
    return "uint8";
  if (dtype == "bool")
    return "bool_";
  return "uint16";
}

TEST(NpyTest, NumpyReadsOurFiles) {
  std::string python = findNumpyPython();
  if (python.empty())
    GTEST_SKIP() << "no python3 with numpy";
  TempDir dir;
  std::string checks;
  for (const char *dtype : kAllDtypes) {
    NpyArray array = makeArray(dtype, {3, 4});
    std::string error;
    ASSERT_TRUE(
        ejk::writeNpy(dir.file(std::string(dtype) + ".npy"), array, error))
        << error;
    // The raw bytes, for numpy to compare its view of the data with.
    writeFile(dir.file(std::string(dtype) + ".bin"),
              std::string(array.data.begin(), array.data.end()));
    checks +=
        std::string("check('") + dtype + "', np." + numpyDtype(dtype) + ")\n";
  }
  std::string script = "import sys, numpy as np\n"
                       "d = sys.argv[1]\n"
                       "def check(name, dt):\n"
                       "    a = np.load(d + '/' + name + '.npy')\n"
                       "    assert a.dtype == dt, (name, a.dtype)\n"
                       "    assert a.shape == (3, 4), (name, a.shape)\n"
                       "    raw = open(d + '/' + name + '.bin', 'rb').read()\n"
                       "    assert a.tobytes() == raw, name\n" +
                       checks +
                       "s = np.load(d + '/scalar.npy')\n"
                       "assert s.shape == () and s.dtype == np.float64\n";
  std::string error;
  NpyArray scalar = makeArray("f64", {});
  ASSERT_TRUE(ejk::writeNpy(dir.file("scalar.npy"), scalar, error)) << error;
  EXPECT_TRUE(runPython(python, script, dir));
}

TEST(NpyTest, WeReadNumpyFiles) {
  std::string python = findNumpyPython();
  if (python.empty())
    GTEST_SKIP() << "no python3 with numpy";
  TempDir dir;
  std::string script =
      "import sys, numpy as np\n"
      "from numpy.lib import format as fmt\n"
      "d = sys.argv[1]\n"
      "types = {'f32': np.float32, 'f16': np.float16, 'f64': np.float64,\n"
      "         'i32': np.int32, 'i64': np.int64, 'i8': np.int8,\n"
      "         'u8': np.uint8, 'bool': np.bool_, 'u16': np.uint16}\n"
      "for name, dt in types.items():\n"
      "    a = (np.arange(24) % 7 - 3).astype(dt).reshape(2, 3, 4)\n"
      "    np.save(d + '/' + name + '.npy', a)\n"
      "    open(d + '/' + name + '.bin', 'wb').write(a.tobytes())\n"
      "a = np.arange(6, dtype=np.int64).reshape(3, 2)\n"
      "for v in [(2, 0), (3, 0)]:\n"
      "    with open(d + '/v%d.npy' % v[0], 'wb') as f:\n"
      "        fmt.write_array(f, a, version=v)\n"
      "np.save(d + '/big.npy', np.arange(3, dtype='>f4'))\n"
      "np.save(d + '/fortran.npy', np.asfortranarray(np.ones((2, 3))))\n"
      "np.save(d + '/scalar.npy', np.float32(2.5))\n";
  ASSERT_TRUE(runPython(python, script, dir));

  std::string error;
  for (const char *dtype : kAllDtypes) {
    NpyArray array;
    ASSERT_TRUE(
        ejk::readNpy(dir.file(std::string(dtype) + ".npy"), array, error))
        << error;
    EXPECT_EQ(array.dtype, dtype);
    EXPECT_EQ(array.shape, (std::vector<int64_t>{2, 3, 4}));
    EXPECT_EQ(std::string(array.data.begin(), array.data.end()),
              readFile(dir.file(std::string(dtype) + ".bin")))
        << dtype;
  }
  for (const char *name : {"v2.npy", "v3.npy"}) {
    NpyArray array;
    ASSERT_TRUE(ejk::readNpy(dir.file(name), array, error)) << error;
    EXPECT_EQ(array.dtype, "i64");
    EXPECT_EQ(array.shape, (std::vector<int64_t>{3, 2}));
    ASSERT_EQ(array.data.size(), 48u);
    int64_t last = 0;
    std::memcpy(&last, array.data.data() + 40, 8);
    EXPECT_EQ(last, 5);
  }
  NpyArray array;
  EXPECT_FALSE(ejk::readNpy(dir.file("big.npy"), array, error));
  EXPECT_NE(error.find("big-endian"), std::string::npos) << error;
  EXPECT_FALSE(ejk::readNpy(dir.file("fortran.npy"), array, error));
  EXPECT_NE(error.find("fortran_order=True"), std::string::npos) << error;
  ASSERT_TRUE(ejk::readNpy(dir.file("scalar.npy"), array, error)) << error;
  EXPECT_EQ(array.dtype, "f32");
  EXPECT_TRUE(array.shape.empty());
  float value = 0;
  std::memcpy(&value, array.data.data(), 4);
  EXPECT_EQ(value, 2.5f);
}

} // namespace
