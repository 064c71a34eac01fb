//===- LoadBytesTest.cpp - ejk_module_load_bytes --------------------------===//

#include "RuntimeTestUtil.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ejk::test;

namespace {

std::string kernelBytes() {
  std::ifstream in(kernelsPath(), std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

class LoadBytesTest : public RuntimeFixture {
protected:
  ejk_status loadBytes(const std::string &manifest,
                       const std::string &library) {
    if (!device_)
      createDevice();
    return ejk_module_load_bytes(device_, manifest.data(), manifest.size(),
                                 library.data(), library.size(), &module_);
  }
};

TEST_F(LoadBytesTest, LoadsAndRunsFromMemory) {
  // The manifest's library does not exist: from memory it is not used.
  std::string manifest = manifestText({addEntry(64)}, "/no/such/library.so");
  ASSERT_EQ(loadBytes(manifest, kernelBytes()), EJK_OK) << ejk_last_error();
  ejk_buffer *inputs[] = {buffer(std::vector<float>(64, 1.0f)),
                          buffer(std::vector<float>(64, 2.0f))};
  ejk_buffer *outputs[] = {buffer(std::vector<float>(64, 0.0f))};
  ASSERT_EQ(ejk_invoke(module_, "add", inputs, 2, outputs, 1), EJK_OK)
      << ejk_last_error();
  for (float value : read<float>(outputs[0], 64))
    ASSERT_EQ(value, 3.0f);
}

TEST_F(LoadBytesTest, LoadFilesFindsTheLibraryByItsManifestName) {
  createDevice();
  std::string manifest = manifestText({addEntry(64)}, "kernels.so");
  std::string library = kernelBytes();
  ejk_file files[] = {{"kernels.so", library.data(), library.size()}};
  ASSERT_EQ(ejk_module_load_files(device_, manifest.data(), manifest.size(),
                                  files, 1, &module_),
            EJK_OK)
      << ejk_last_error();
  ejk_buffer *inputs[] = {buffer(std::vector<float>(64, 1.0f)),
                          buffer(std::vector<float>(64, 2.5f))};
  ejk_buffer *outputs[] = {buffer(std::vector<float>(64, 0.0f))};
  ASSERT_EQ(ejk_invoke(module_, "add", inputs, 2, outputs, 1), EJK_OK)
      << ejk_last_error();
  for (float value : read<float>(outputs[0], 64))
    ASSERT_EQ(value, 3.5f);
  // Under another name the library is missing, and the message says so.
  ejk_file renamed[] = {{"other.so", library.data(), library.size()}};
  ejk_module *missing = nullptr;
  EXPECT_EQ(ejk_module_load_files(device_, manifest.data(), manifest.size(),
                                  renamed, 1, &missing),
            EJK_ERROR_NOT_FOUND);
  EXPECT_EQ(missing, nullptr);
  EXPECT_NE(std::string(ejk_last_error())
                .find("library 'kernels.so' is not among the files given "
                      "('other.so')"),
            std::string::npos)
      << ejk_last_error();
}

TEST_F(LoadBytesTest, TwoModulesFromTheSameBytesAreIndependent) {
  std::string manifest = manifestText({addEntry(64)});
  std::string bytes = kernelBytes();
  ASSERT_EQ(loadBytes(manifest, bytes), EJK_OK) << ejk_last_error();
  ejk_module *second = nullptr;
  ASSERT_EQ(ejk_module_load_bytes(device_, manifest.data(), manifest.size(),
                                  bytes.data(), bytes.size(), &second),
            EJK_OK);
  ejk_module_destroy(second);
  // The first module's library is still mapped and runs.
  ejk_buffer *inputs[] = {buffer(std::vector<float>(64, 1.0f)),
                          buffer(std::vector<float>(64, 1.0f))};
  ejk_buffer *outputs[] = {buffer(std::vector<float>(64, 0.0f))};
  ASSERT_EQ(ejk_invoke(module_, "add", inputs, 2, outputs, 1), EJK_OK)
      << ejk_last_error();
  for (float value : read<float>(outputs[0], 64))
    ASSERT_EQ(value, 2.0f);
}

TEST_F(LoadBytesTest, NullArguments) {
  createDevice();
  std::string manifest = manifestText({addEntry(64)});
  std::string bytes = kernelBytes();
  EXPECT_EQ(ejk_module_load_bytes(device_, manifest.data(), manifest.size(),
                                  bytes.data(), bytes.size(), nullptr),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(), "ejk_module_load_bytes: 'out' is NULL");
  ejk_module *module = reinterpret_cast<ejk_module *>(0x1);
  EXPECT_EQ(ejk_module_load_bytes(nullptr, manifest.data(), manifest.size(),
                                  bytes.data(), bytes.size(), &module),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(module, nullptr);
  EXPECT_EQ(ejk_module_load_bytes(device_, nullptr, 0, bytes.data(),
                                  bytes.size(), &module),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(), "ejk_module_load_bytes: 'manifest' is NULL");
  EXPECT_EQ(ejk_module_load_bytes(device_, manifest.data(), manifest.size(),
                                  nullptr, 0, &module),
            EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(), "ejk_module_load_bytes: 'library' is NULL");
}

TEST_F(LoadBytesTest, BadManifest) {
  EXPECT_EQ(loadBytes("{ not json", kernelBytes()), EJK_ERROR_FORMAT);
  EXPECT_NE(std::string(ejk_last_error()).find("manifest (in memory)"),
            std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(module_, nullptr);
  std::string vulkan = manifestText({addEntry(64)});
  vulkan.replace(vulkan.find("\"cpu\""), 5, "\"vulkan\"");
  EXPECT_EQ(loadBytes(vulkan, kernelBytes()), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(), "manifest (in memory): 'target' is 'vulkan', "
                                 "but the device is 'cpu'");
}

TEST_F(LoadBytesTest, BadLibrary) {
  std::string manifest = manifestText({addEntry(64)});
  EXPECT_EQ(loadBytes(manifest, ""), EJK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ejk_last_error(), "manifest (in memory): the library is empty");
  std::string truncated = kernelBytes();
  truncated.resize(100);
  EXPECT_EQ(loadBytes(manifest, truncated), EJK_ERROR_IO);
  EXPECT_NE(std::string(ejk_last_error()).find("cannot load library"),
            std::string::npos)
      << ejk_last_error();
  EXPECT_EQ(module_, nullptr);
}

TEST_F(LoadBytesTest, MissingSymbol) {
  std::string manifest = manifestText({addEntry(64)});
  manifest.replace(manifest.find("add_dispatch"), 12, "sub_dispatch");
  EXPECT_EQ(loadBytes(manifest, kernelBytes()), EJK_ERROR_NOT_FOUND);
  EXPECT_NE(
      std::string(ejk_last_error()).find("symbol 'sub_dispatch' not found"),
      std::string::npos)
      << ejk_last_error();
}

} // namespace
