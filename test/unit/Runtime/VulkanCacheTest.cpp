//===- VulkanCacheTest.cpp - The pipeline cache file ----------------------===//

#include "VulkanTestUtil.h"

#include "ejk/Support/Fingerprint.h"

#include <dirent.h>
#include <sys/stat.h>

using namespace ejk::test;

namespace {

uint64_t fnv1a(const std::string &bytes, size_t begin) {
  uint64_t hash = 14695981039346656037ull;
  for (size_t i = begin; i < bytes.size(); ++i) {
    hash ^= static_cast<unsigned char>(bytes[i]);
    hash *= 1099511628211ull;
  }
  return hash;
}

uint64_t getU64(const std::string &bytes, size_t at) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | static_cast<unsigned char>(bytes[at + size_t(i)]);
  return value;
}

std::vector<std::string> listDirectory(const std::string &path) {
  std::vector<std::string> names;
  if (DIR *dir = opendir(path.c_str())) {
    while (dirent *entry = readdir(dir))
      if (entry->d_name[0] != '.')
        names.push_back(entry->d_name);
    closedir(dir);
  }
  return names;
}

class VulkanCacheTest : public VulkanFixture {
protected:
  std::string uuid() {
    size_t length = 0;
    EXPECT_EQ(ejk_device_fingerprint(device_, nullptr, 0, &length), EJK_OK);
    std::string text(length + 1, '\0');
    EXPECT_EQ(
        ejk_device_fingerprint(device_, text.data(), text.size(), nullptr),
        EJK_OK);
    ejk::DeviceFingerprint fp;
    std::string error;
    EXPECT_TRUE(ejk::DeviceFingerprint::parse(text.c_str(), fp, error));
    return fp.get("pipeline_cache_uuid");
  }

  std::string cacheFile(const std::string &root) {
    return root + "/vulkan/pipelines-" + uuid() + ".bin";
  }

  /// Checks that \p path is a complete cache file for this device.
  void expectValidCache(const std::string &path) {
    std::string bytes = readBinary(path);
    ASSERT_GE(bytes.size(), 24u + 32u) << path;
    EXPECT_EQ(bytes.substr(0, 8), "EJKVKPC1");
    EXPECT_EQ(getU64(bytes, 8), bytes.size() - 24);
    EXPECT_EQ(getU64(bytes, 16), fnv1a(bytes, 24));
    // The Vulkan header's UUID (payload bytes 16..32) is the device's.
    static const char kHex[] = "0123456789abcdef";
    std::string hex;
    for (size_t i = 24 + 16; i < 24 + 32; ++i) {
      hex += kHex[static_cast<unsigned char>(bytes[i]) >> 4];
      hex += kHex[static_cast<unsigned char>(bytes[i]) & 15];
    }
    EXPECT_EQ(hex, uuid());
  }

  /// Loads "add" on a fresh device and runs it once.
  void reloadAndRun() {
    ejk_module_destroy(module_);
    module_ = nullptr;
    buffers_.clear();
    ejk_device_destroy(device_);
    device_ = nullptr;
    ASSERT_EQ(ejk_device_create("vulkan", &device_), EJK_OK)
        << ejk_last_error();
    load(vulkanManifest({vulkanAddEntry(64)}));
    ejk_buffer *inputs[2] = {buffer(std::vector<float>(64, 1.0f)),
                             buffer(std::vector<float>(64, 2.0f))};
    ejk_buffer *out = buffer(std::vector<float>(64, 0.0f));
    ASSERT_EQ(ejk_invoke(module_, "add", inputs, 2, &out, 1), EJK_OK)
        << ejk_last_error();
    EXPECT_EQ(read<float>(out, 64), std::vector<float>(64, 3.0f));
  }
};

TEST_F(VulkanCacheTest, WrittenAtLoadAndReusedByTheNextDevice) {
  std::string root = dir_.path() + "/cache";
  std::string path = cacheFile(root);
  EXPECT_FALSE(fileExists(path));
  load(vulkanManifest({vulkanAddEntry(64)}));
  ASSERT_TRUE(fileExists(path)) << path;
  expectValidCache(path);
  // Written atomically: no temporary is left beside it.
  EXPECT_EQ(listDirectory(root + "/vulkan"),
            std::vector<std::string>{"pipelines-" + uuid() + ".bin"});

  // A new device reads the file, and the same pipelines add nothing to it:
  // the file is not rewritten (a rewrite renames a new inode into place).
  struct stat before;
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  reloadAndRun();
  struct stat after;
  ASSERT_EQ(stat(path.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_size, after.st_size);
}

TEST_F(VulkanCacheTest, DirectoryAndFileArePrivateWhateverTheUmask) {
  // The artifact cache is 0700/0600; the pipeline cache used to be
  // 0755/0644 (with umask 022) and world-writable with umask 0.
  mode_t saved = umask(0);
  load(vulkanManifest({vulkanAddEntry(64)}));
  umask(saved);
  std::string root = dir_.path() + "/cache";
  struct stat info;
  ASSERT_EQ(stat((root + "/vulkan").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0700u);
  ASSERT_EQ(stat(root.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0700u);
  ASSERT_EQ(stat(cacheFile(root).c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600u);
}

TEST_F(VulkanCacheTest, CorruptFilesAreIgnoredAndReplaced) {
  std::string root = dir_.path() + "/cache";
  std::string path = cacheFile(root);
  load(vulkanManifest({vulkanAddEntry(64)}));
  std::string good = readBinary(path);
  ASSERT_GE(good.size(), 56u);

  std::string badHash = good;
  badHash[good.size() - 1] ^= 0x5a;
  std::string badUuid = good;
  badUuid[24 + 20] ^= 0x01;
  // Recompute the checksum so only the Vulkan header is wrong.
  uint64_t hash = fnv1a(badUuid, 24);
  for (int i = 0; i < 8; ++i)
    badUuid[16 + size_t(i)] = char((hash >> (8 * i)) & 0xff);
  for (const std::string &corrupt :
       {std::string("garbage"), std::string(4096, '\xff'),
        good.substr(0, good.size() - 3), badHash, badUuid}) {
    dir_.write("cache/vulkan/pipelines-" + uuid() + ".bin", corrupt);
    reloadAndRun();
    expectValidCache(path);
  }
}

TEST_F(VulkanCacheTest, DefaultDirectoryFollowsXdgThenHome) {
  ScopedEnv noExplicit("EJK_CACHE_DIR", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", (dir_.path() + "/xdg").c_str());
    reloadAndRun();
    EXPECT_TRUE(fileExists(cacheFile(dir_.path() + "/xdg/ejk")));
  }
  ScopedEnv noXdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", (dir_.path() + "/home").c_str());
  reloadAndRun();
  EXPECT_TRUE(fileExists(cacheFile(dir_.path() + "/home/.cache/ejk")));
}

TEST_F(VulkanCacheTest, UnwritableCacheDirectoryIsHarmless) {
  std::string file = dir_.write("not-a-directory", "x");
  ScopedEnv cache("EJK_CACHE_DIR", file.c_str());
  reloadAndRun();
  EXPECT_EQ(readBinary(file), "x");
}

} // namespace
