//===- ModuleTest.cpp - Loading artifacts and reading their entries -------===//

#include "RuntimeTestUtil.h"

#include <string>

using namespace ejk::test;

namespace {

class ModuleTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(ejk_device_create("cpu", &device_), EJK_OK) << ejk_last_error();
  }
  void TearDown() override {
    ejk_module_destroy(module_);
    ejk_device_destroy(device_);
  }

  /// Loads \p manifest, expecting \p status and (when not EJK_OK) an error
  /// containing \p message.
  void expectLoad(const std::string &manifest, ejk_status status,
                  const std::string &message) {
    std::string path = dir_.write("artifact.json", manifest);
    ejk_module *module = reinterpret_cast<ejk_module *>(0x1);
    ejk_status actual = ejk_module_load(device_, path.c_str(), &module);
    EXPECT_EQ(actual, status)
        << ejk_status_name(actual) << ": " << ejk_last_error();
    if (status == EJK_OK) {
      ejk_module_destroy(module);
      return;
    }
    EXPECT_EQ(module, nullptr);
    std::string error = ejk_last_error();
    EXPECT_NE(error.find(message), std::string::npos) << error;
    // Every message says which manifest it is about.
    EXPECT_NE(error.find(path), std::string::npos) << error;
  }

  /// The add entry with its first dispatch replaced by \p dispatch.
  static std::string withDispatch(const std::string &dispatch) {
    std::string entry = addEntry(64);
    size_t begin = entry.find("\"dispatches\": [") + 15;
    size_t end = entry.rfind("]}");
    return manifestText(
        {entry.substr(0, begin) + dispatch + entry.substr(end)});
  }

  /// The add entry with buffer 1 replaced by \p buffer.
  static std::string withBuffer1(const std::string &buffer) {
    std::string entry = addEntry(64);
    std::string old =
        "{\"role\": \"input\", \"shape\": [64], \"dtype\": \"f32\"}, ";
    size_t second = entry.find(old, entry.find(old) + 1);
    return manifestText({entry.substr(0, second) + buffer + ", " +
                         entry.substr(second + old.size())});
  }

  TempDir dir_;
  ejk_device *device_ = nullptr;
  ejk_module *module_ = nullptr;
};

TEST_F(ModuleTest, IntrospectsEntries) {
  std::string path = dir_.write("artifact.json",
                                manifestText({addEntry(64), twoStepEntry(32)}));
  ASSERT_EQ(ejk_module_load(device_, path.c_str(), &module_), EJK_OK)
      << ejk_last_error();
  size_t count = 0;
  ASSERT_EQ(ejk_module_entry_count(module_, &count), EJK_OK);
  ASSERT_EQ(count, 2u);
  const char *name = nullptr;
  ASSERT_EQ(ejk_module_entry_name(module_, 0, &name), EJK_OK);
  EXPECT_STREQ(name, "add");
  ASSERT_EQ(ejk_module_entry_name(module_, 1, &name), EJK_OK);
  EXPECT_STREQ(name, "twostep");
  EXPECT_EQ(ejk_module_entry_name(module_, 2, &name),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(name, nullptr);

  size_t numInputs = 0, numOutputs = 0;
  ASSERT_EQ(ejk_module_entry_signature(module_, "add", &numInputs, &numOutputs),
            EJK_OK);
  EXPECT_EQ(numInputs, 2u);
  EXPECT_EQ(numOutputs, 1u);
  // Temporaries are not arguments.
  ASSERT_EQ(
      ejk_module_entry_signature(module_, "twostep", &numInputs, &numOutputs),
      EJK_OK);
  EXPECT_EQ(numInputs, 1u);
  EXPECT_EQ(numOutputs, 1u);

  ejk_tensor_desc desc;
  ASSERT_EQ(ejk_module_entry_arg(module_, "twostep", 1, 0, &desc), EJK_OK);
  EXPECT_EQ(desc.dtype, EJK_DTYPE_F32);
  EXPECT_EQ(desc.rank, 1);
  EXPECT_EQ(desc.shape[0], 32);
  EXPECT_EQ(desc.shape[1], 0);
  EXPECT_EQ(ejk_module_entry_arg(module_, "twostep", 1, 1, &desc),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(ejk_last_error()),
            "entry 'twostep' has 1 outputs, no index 1");
  EXPECT_EQ(ejk_module_entry_arg(module_, "nope", 0, 0, &desc),
            EJK_ERROR_NOT_FOUND);
  EXPECT_EQ(std::string(ejk_last_error()),
            "module has no entry 'nope' (entries: 'add', 'twostep')");
  EXPECT_EQ(
      ejk_module_entry_signature(module_, "nope", &numInputs, &numOutputs),
      EJK_ERROR_NOT_FOUND);
}

TEST_F(ModuleTest, ReportsEveryDtypeAndRank) {
  std::string entry =
      "{\"name\": \"types\", \"buffers\": ["
      "{\"role\": \"input\", \"shape\": [], \"dtype\": \"f16\"},"
      "{\"role\": \"input\", \"shape\": [2], \"dtype\": \"bf16\"},"
      "{\"role\": \"input\", \"shape\": [1,2,3,4,5,6,7,8], \"dtype\": \"f64\"},"
      "{\"role\": \"input\", \"shape\": [0, 3], \"dtype\": \"i1\"},"
      "{\"role\": \"output\", \"shape\": [4], \"dtype\": \"i8\"},"
      "{\"role\": \"output\", \"shape\": [4], \"dtype\": \"i32\"},"
      "{\"role\": \"output\", \"shape\": [4], \"dtype\": \"i64\"}],"
      "\"dispatches\": []}";
  std::string path = dir_.write("artifact.json", manifestText({entry}));
  ASSERT_EQ(ejk_module_load(device_, path.c_str(), &module_), EJK_OK)
      << ejk_last_error();
  ejk_tensor_desc desc;
  ASSERT_EQ(ejk_module_entry_arg(module_, "types", 0, 0, &desc), EJK_OK);
  EXPECT_EQ(desc.dtype, EJK_DTYPE_F16);
  EXPECT_EQ(desc.rank, 0);
  ASSERT_EQ(ejk_module_entry_arg(module_, "types", 0, 1, &desc), EJK_OK);
  EXPECT_EQ(desc.dtype, EJK_DTYPE_BF16);
  ASSERT_EQ(ejk_module_entry_arg(module_, "types", 0, 2, &desc), EJK_OK);
  EXPECT_EQ(desc.dtype, EJK_DTYPE_F64);
  EXPECT_EQ(desc.rank, 8);
  EXPECT_EQ(desc.shape[7], 8);
  ASSERT_EQ(ejk_module_entry_arg(module_, "types", 0, 3, &desc), EJK_OK);
  EXPECT_EQ(desc.dtype, EJK_DTYPE_I1);
  EXPECT_EQ(desc.shape[0], 0);
  ASSERT_EQ(ejk_module_entry_arg(module_, "types", 1, 0, &desc), EJK_OK);
  EXPECT_EQ(desc.dtype, EJK_DTYPE_I8);
  ASSERT_EQ(ejk_module_entry_arg(module_, "types", 1, 1, &desc), EJK_OK);
  EXPECT_EQ(desc.dtype, EJK_DTYPE_I32);
  ASSERT_EQ(ejk_module_entry_arg(module_, "types", 1, 2, &desc), EJK_OK);
  EXPECT_EQ(desc.dtype, EJK_DTYPE_I64);
}

TEST_F(ModuleTest, LibraryRelativeToManifest) {
  std::error_code error;
  std::filesystem::copy_file(kernelsPath(), dir_.file("kernels.so"), error);
  ASSERT_FALSE(error) << error.message();
  std::string manifest = manifestText({addEntry(64)}, "kernels.so");
  expectLoad(manifest, EJK_OK, "");
  // Relative to the manifest's directory, not to the working directory.
  std::filesystem::create_directory(dir_.file("sub"), error);
  dir_.write("sub/artifact.json", manifest);
  ejk_module *module = nullptr;
  EXPECT_EQ(
      ejk_module_load(device_, dir_.file("sub/artifact.json").c_str(), &module),
      EJK_ERROR_NOT_FOUND);
  EXPECT_NE(std::string(ejk_last_error()).find(dir_.file("sub/kernels.so")),
            std::string::npos)
      << ejk_last_error();
}

TEST_F(ModuleTest, MissingManifest) {
  ejk_module *module = nullptr;
  std::string path = dir_.file("absent.json");
  EXPECT_EQ(ejk_module_load(device_, path.c_str(), &module),
            EJK_ERROR_NOT_FOUND);
  EXPECT_EQ(std::string(ejk_last_error()),
            "manifest '" + path + "' does not exist");
  EXPECT_EQ(ejk_module_load(device_, dir_.path().c_str(), &module),
            EJK_ERROR_IO);
  EXPECT_NE(std::string(ejk_last_error()).find("is a directory"),
            std::string::npos);
}

TEST_F(ModuleTest, MalformedJson) {
  expectLoad("{\"format\": \"ejk-artifact\", ", EJK_ERROR_FORMAT,
             "not valid JSON");
  expectLoad("", EJK_ERROR_FORMAT, "not valid JSON");
  expectLoad("[1, 2]", EJK_ERROR_FORMAT, "the top level must be a JSON object");
}

TEST_F(ModuleTest, WrongFormatOrVersion) {
  std::string good = manifestText({addEntry(64)});
  auto replace = [&](const std::string &from, const std::string &to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  expectLoad(replace("\"ejk-artifact\"", "\"onnx\""), EJK_ERROR_FORMAT,
             "'format' is 'onnx', expected 'ejk-artifact'");
  expectLoad(replace("\"version\": 1", "\"version\": 2"), EJK_ERROR_FORMAT,
             "'version' is 2, this runtime reads version 1");
  expectLoad(replace("\"version\": 1", "\"version\": \"1\""), EJK_ERROR_FORMAT,
             "'version' must be an integer");
  expectLoad(replace("\"version\": 1", "\"version\": 1.5"), EJK_ERROR_FORMAT,
             "'version' must be an integer");
  expectLoad(replace("\"version\": 1, ", ""), EJK_ERROR_FORMAT,
             "missing 'version'");
  expectLoad(replace("\"format\": \"ejk-artifact\", ", ""), EJK_ERROR_FORMAT,
             "missing 'format'");
  expectLoad(
      replace("\"compiler_version\": \"0.1.0\"", "\"compiler_version\": 1"),
      EJK_ERROR_FORMAT, "'compiler_version' must be a string");
  expectLoad("{\"format\": \"ejk-artifact\", \"version\": 1, \"target\": "
             "\"cpu\", \"library\": \"k.so\", \"entries\": 5}",
             EJK_ERROR_FORMAT, "'entries' must be an array");
  expectLoad(replace("\"library\": \"", "\"library\": 3, \"x\": \""),
             EJK_ERROR_FORMAT, "'library' must be a string");
  expectLoad(replace("\"target\": \"cpu\"", "\"target\": \"vulkan\""),
             EJK_ERROR_INVALID_ARGUMENT,
             "'target' is 'vulkan', but the device is 'cpu'");
}

TEST_F(ModuleTest, MissingLibrary) {
  std::string library = dir_.file("nowhere.so");
  expectLoad(manifestText({addEntry(64)}, library), EJK_ERROR_NOT_FOUND,
             "library '" + library + "' does not exist");
}

TEST_F(ModuleTest, LibraryThatIsNotLoadable) {
  std::string library = dir_.write("garbage.so", "not an ELF file");
  expectLoad(manifestText({addEntry(64)}, library), EJK_ERROR_IO,
             "cannot load library '" + library + "'");
}

TEST_F(ModuleTest, MissingSymbol) {
  expectLoad(withDispatch("{\"symbol\": \"no_such_kernel\", \"grid\": [4, 1, "
                          "1], \"bindings\": [0, 1, 2]}"),
             EJK_ERROR_NOT_FOUND,
             "entry 'add' dispatch 0: symbol 'no_such_kernel' not found in '" +
                 kernelsPath() + "'");
}

TEST_F(ModuleTest, BadDispatches) {
  expectLoad(withDispatch("{\"symbol\": \"add_dispatch\", \"grid\": [4, 1, "
                          "1], \"bindings\": [0, 1, 3]}"),
             EJK_ERROR_FORMAT,
             "entry 'add' dispatch 0 ('add_dispatch'): binding 2 is 3, but "
             "the entry has 3 buffers");
  expectLoad(withDispatch("{\"symbol\": \"add_dispatch\", \"grid\": [4, 1, "
                          "1], \"bindings\": [0, -1, 2]}"),
             EJK_ERROR_FORMAT, "binding 1 is -1");
  expectLoad(withDispatch("{\"symbol\": \"add_dispatch\", \"grid\": [4, 1, "
                          "1], \"bindings\": [0, \"1\", 2]}"),
             EJK_ERROR_FORMAT, "binding 1 must be an integer");
  expectLoad(withDispatch("{\"symbol\": \"add_dispatch\", \"grid\": [4, 0, "
                          "1], \"bindings\": [0, 1, 2]}"),
             EJK_ERROR_FORMAT,
             "entry 'add' dispatch 0 ('add_dispatch'): 'grid' dim 1 must be "
             "an integer >= 1");
  expectLoad(withDispatch("{\"symbol\": \"add_dispatch\", \"grid\": [4, 1], "
                          "\"bindings\": [0, 1, 2]}"),
             EJK_ERROR_FORMAT, "'grid' must be an array of 3 integers");
  expectLoad(withDispatch("{\"symbol\": \"add_dispatch\", \"grid\": "
                          "[4294967296, 4294967296, 1], \"bindings\": []}"),
             EJK_ERROR_FORMAT, "'grid' has more than 2^63 workgroups");
  expectLoad(withDispatch("{\"symbol\": \"\", \"grid\": [1, 1, 1], "
                          "\"bindings\": []}"),
             EJK_ERROR_FORMAT, "entry 'add' dispatch 0: 'symbol' is empty");
  expectLoad(withDispatch("{\"grid\": [1, 1, 1], \"bindings\": []}"),
             EJK_ERROR_FORMAT, "entry 'add' dispatch 0: missing 'symbol'");
  expectLoad(withDispatch("{\"symbol\": \"add_dispatch\", \"grid\": [1, 1, "
                          "1]}"),
             EJK_ERROR_FORMAT, "missing 'bindings'");
  expectLoad(withDispatch("{\"symbol\": \"add_dispatch\", \"grid\": [1, 1, "
                          "1], \"bindings\": [], \"flops\": -1}"),
             EJK_ERROR_FORMAT, "'flops' must be a non-negative integer");
  expectLoad(withDispatch("7"), EJK_ERROR_FORMAT,
             "entry 'add' dispatch 0: must be an object");
}

TEST_F(ModuleTest, BadBuffers) {
  expectLoad(withBuffer1("{\"role\": \"input\", \"shape\": [64], \"dtype\": "
                         "\"f128\"}"),
             EJK_ERROR_FORMAT,
             "entry 'add' buffer 1: unknown 'dtype' 'f128' (expected one of "
             "f32, f16, bf16, f64, i1, i8, i32, i64)");
  expectLoad(withBuffer1("{\"role\": \"scratch\", \"shape\": [64], "
                         "\"dtype\": \"f32\"}"),
             EJK_ERROR_FORMAT,
             "'role' must be 'input', 'output' or 'temporary', got 'scratch'");
  expectLoad(withBuffer1("{\"role\": \"output\", \"shape\": [64], \"dtype\": "
                         "\"f32\"}, {\"role\": \"input\", \"shape\": [64], "
                         "\"dtype\": \"f32\"}"),
             EJK_ERROR_FORMAT,
             "entry 'add' buffer 2: buffers must be listed inputs first, "
             "then outputs, then temporaries");
  expectLoad(withBuffer1("{\"role\": \"input\", \"shape\": [-1], \"dtype\": "
                         "\"f32\"}"),
             EJK_ERROR_FORMAT, "'shape' dim 0 must be a non-negative integer");
  expectLoad(withBuffer1("{\"role\": \"input\", \"shape\": 64, \"dtype\": "
                         "\"f32\"}"),
             EJK_ERROR_FORMAT, "'shape' must be an array of integers");
  expectLoad(withBuffer1("{\"role\": \"input\", \"shape\": "
                         "[1,1,1,1,1,1,1,1,1], \"dtype\": \"f32\"}"),
             EJK_ERROR_FORMAT, "'shape' has rank 9, more than the maximum 8");
  expectLoad(
      withBuffer1("{\"role\": \"input\", \"shape\": [4611686018427387904,"
                  " 8], \"dtype\": \"f32\"}"),
      EJK_ERROR_FORMAT, "the byte size of 'shape' overflows");
  expectLoad(withBuffer1("{\"role\": \"input\", \"dtype\": \"f32\"}"),
             EJK_ERROR_FORMAT, "entry 'add' buffer 1: missing 'shape'");
}

TEST_F(ModuleTest, BadEntries) {
  expectLoad(manifestText({addEntry(64), addEntry(32)}), EJK_ERROR_FORMAT,
             "entry 1: duplicate entry name 'add'");
  expectLoad(manifestText({"{\"buffers\": [], \"dispatches\": []}"}),
             EJK_ERROR_FORMAT, "entry 0: missing 'name'");
  expectLoad(manifestText({"{\"name\": \"e\", \"buffers\": {}, "
                           "\"dispatches\": []}"}),
             EJK_ERROR_FORMAT, "entry 'e': 'buffers' must be an array");
  expectLoad(manifestText({"{\"name\": \"e\", \"buffers\": []}"}),
             EJK_ERROR_FORMAT, "entry 'e': missing 'dispatches'");
}

TEST_F(ModuleTest, NullArguments) {
  std::string path = dir_.write("artifact.json", manifestText({addEntry(64)}));
  ejk_module *module = nullptr;
  EXPECT_EQ(ejk_module_load(nullptr, path.c_str(), &module),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_module_load(device_, nullptr, &module),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ejk_last_error()).find("'manifest_path' is NULL"),
            std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(ejk_module_load(device_, path.c_str(), nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  ASSERT_EQ(ejk_module_load(device_, path.c_str(), &module_), EJK_OK);

  size_t count = 0;
  const char *name = nullptr;
  ejk_tensor_desc desc;
  uint64_t ns = 0;
  EXPECT_EQ(ejk_module_entry_count(nullptr, &count),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_module_entry_count(module_, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_module_entry_name(nullptr, 0, &name),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_module_entry_name(module_, 0, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_module_entry_signature(nullptr, "add", &count, &count),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_module_entry_signature(module_, nullptr, &count, &count),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_module_entry_signature(module_, "add", nullptr, &count),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_module_entry_signature(module_, "add", &count, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_module_entry_arg(nullptr, "add", 0, 0, &desc),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_module_entry_arg(module_, nullptr, 0, 0, &desc),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_module_entry_arg(module_, "add", 0, 0, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_last_invoke_time_ns(nullptr, &ns), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_last_invoke_time_ns(module_, nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ejk_module_destroy(nullptr), EJK_OK);
}

TEST_F(ModuleTest, OutlivesItsDeviceHandle) {
  std::string path = dir_.write("artifact.json", manifestText({addEntry(64)}));
  ASSERT_EQ(ejk_module_load(device_, path.c_str(), &module_), EJK_OK);
  ejk_device_destroy(device_);
  device_ = nullptr;
  size_t count = 0;
  EXPECT_EQ(ejk_module_entry_count(module_, &count), EJK_OK);
  EXPECT_EQ(count, 1u);
}

} // namespace
