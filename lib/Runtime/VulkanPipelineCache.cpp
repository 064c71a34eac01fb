//===- VulkanPipelineCache.cpp - A VkPipelineCache kept on disk -----------===//

#include "VulkanPipelineCache.h"

#include "ejk/Support/FileIO.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace ejk::runtime {

namespace {

constexpr char kMagic[8] = {'E', 'J', 'K', 'V', 'K', 'P', 'C', '1'};
constexpr size_t kHeaderSize = 24;
/// sizeof(VkPipelineCacheHeaderVersionOne) as the spec lays it out.
constexpr size_t kVulkanHeaderSize = 32;

void putU64(unsigned char *out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<unsigned char>(value >> (8 * i));
}

uint64_t getU64(const unsigned char *in) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = (value << 8) | in[i];
  return value;
}

uint32_t getU32(const unsigned char *in) {
  return uint32_t(in[0]) | uint32_t(in[1]) << 8 | uint32_t(in[2]) << 16 |
         uint32_t(in[3]) << 24;
}

std::string envOrEmpty(const char *name) {
  const char *value = std::getenv(name);
  return value ? value : "";
}

/// mkdir -p with private directories: each directory this creates, and the
/// last one if it is this user's, is made 0700 whatever the umask. The
/// pipeline cache holds compiled code of the user's kernels, like the
/// artifact cache (0700/0600). True when \p path is a directory afterwards.
bool makePrivateDirectories(const std::string &path) {
  if (path.empty())
    return false;
  auto make = [](const std::string &directory) {
    if (mkdir(directory.c_str(), 0700) == 0)
      chmod(directory.c_str(), 0700);
  };
  for (size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1))
    make(path.substr(0, slash));
  make(path);
  struct stat info;
  if (lstat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
    return false;
  // A directory left 0755 by an older runtime is tightened.
  if (info.st_uid == geteuid() && (info.st_mode & 077))
    chmod(path.c_str(), 0700);
  return true;
}

bool readWholeFile(const std::string &path, std::vector<unsigned char> &out) {
  // Never blocks on a FIFO; anything beyond 1 GiB is not a pipeline cache
  // this runtime wrote.
  ::ejk::ReadOptions options;
  options.maxBytes = uint64_t(1) << 30;
  std::string bytes, error;
  if (!::ejk::readRegularFile(path, bytes, error, options))
    return false;
  out.assign(bytes.begin(), bytes.end());
  return true;
}

bool writeAll(int fd, const unsigned char *data, size_t size) {
  while (size > 0) {
    ssize_t written = write(fd, data, size);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return false;
    data += written;
    size -= size_t(written);
  }
  return true;
}

/// The payload of a valid cache file for \p properties, else empty.
std::vector<unsigned char>
validPayload(const std::vector<unsigned char> &file,
             const VkPhysicalDeviceProperties &properties) {
  if (file.size() < kHeaderSize + kVulkanHeaderSize ||
      std::memcmp(file.data(), kMagic, sizeof(kMagic)) != 0)
    return {};
  uint64_t size = getU64(file.data() + 8);
  if (size != file.size() - kHeaderSize)
    return {};
  const unsigned char *payload = file.data() + kHeaderSize;
  if (fnv1a64(payload, size_t(size)) != getU64(file.data() + 16))
    return {};
  // VkPipelineCacheHeaderVersionOne: headerSize, headerVersion, vendorID,
  // deviceID, pipelineCacheUUID.
  if (getU32(payload) < kVulkanHeaderSize ||
      getU32(payload + 4) != VK_PIPELINE_CACHE_HEADER_VERSION_ONE ||
      getU32(payload + 8) != properties.vendorID ||
      getU32(payload + 12) != properties.deviceID ||
      std::memcmp(payload + 16, properties.pipelineCacheUUID, VK_UUID_SIZE) !=
          0)
    return {};
  return std::vector<unsigned char>(payload, payload + size);
}

} // namespace

uint64_t fnv1a64(const void *data, size_t size) {
  uint64_t hash = 14695981039346656037ull;
  const auto *bytes = static_cast<const unsigned char *>(data);
  for (size_t i = 0; i < size; ++i) {
    hash ^= bytes[i];
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string ejkCacheDirectory() {
  std::string explicitDir = envOrEmpty("EJK_CACHE_DIR");
  if (!explicitDir.empty())
    return explicitDir;
  std::string xdg = envOrEmpty("XDG_CACHE_HOME");
  if (!xdg.empty())
    return xdg + "/ejk";
  std::string home = envOrEmpty("HOME");
  if (!home.empty())
    return home + "/.cache/ejk";
  return "";
}

Status VulkanPipelineCache::create(const VulkanApi &api, VkDevice device,
                                   const VkPhysicalDeviceProperties &properties,
                                   std::unique_ptr<VulkanPipelineCache> &out) {
  out.reset();
  std::unique_ptr<VulkanPipelineCache> cache(
      new VulkanPipelineCache(api, device));
  std::string directory = ejkCacheDirectory();
  if (!directory.empty()) {
    static const char kHex[] = "0123456789abcdef";
    std::string uuid;
    for (uint8_t byte : properties.pipelineCacheUUID) {
      uuid += kHex[byte >> 4];
      uuid += kHex[byte & 15];
    }
    cache->path_ = directory + "/vulkan/pipelines-" + uuid + ".bin";
  }

  std::vector<unsigned char> file, payload;
  if (!cache->path_.empty() && readWholeFile(cache->path_, file))
    payload = validPayload(file, properties);
  VkPipelineCacheCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  info.initialDataSize = payload.size();
  info.pInitialData = payload.empty() ? nullptr : payload.data();
  VkResult result =
      api.vkCreatePipelineCache(device, &info, nullptr, &cache->cache_);
  if (result != VK_SUCCESS && !payload.empty()) {
    // The driver refused data that passed every check: start empty.
    payload.clear();
    info.initialDataSize = 0;
    info.pInitialData = nullptr;
    result = api.vkCreatePipelineCache(device, &info, nullptr, &cache->cache_);
  }
  if (result != VK_SUCCESS) {
    cache->cache_ = VK_NULL_HANDLE;
    return vkFailure("vkCreatePipelineCache", result);
  }
  if (!payload.empty())
    cache->savedHash_ = fnv1a64(payload.data(), payload.size());
  out = std::move(cache);
  return Status::success();
}

VulkanPipelineCache::~VulkanPipelineCache() {
  if (cache_ != VK_NULL_HANDLE)
    api_.vkDestroyPipelineCache(device_, cache_, nullptr);
}

void VulkanPipelineCache::save() {
  if (path_.empty())
    return;
  std::lock_guard<std::mutex> lock(saveMutex_);
  size_t size = 0;
  if (api_.vkGetPipelineCacheData(device_, cache_, &size, nullptr) !=
          VK_SUCCESS ||
      size == 0)
    return;
  std::vector<unsigned char> file(kHeaderSize + size);
  if (api_.vkGetPipelineCacheData(device_, cache_, &size,
                                  file.data() + kHeaderSize) != VK_SUCCESS)
    return;
  file.resize(kHeaderSize + size);
  uint64_t hash = fnv1a64(file.data() + kHeaderSize, size);
  if (hash == savedHash_)
    return;
  std::memcpy(file.data(), kMagic, sizeof(kMagic));
  putU64(file.data() + 8, size);
  putU64(file.data() + 16, hash);

  size_t slash = path_.rfind('/');
  if (!makePrivateDirectories(path_.substr(0, slash)))
    return;
  // Unique per process and call, so concurrent writers never share a
  // temporary; rename() then replaces the file atomically.
  static std::atomic<unsigned> counter{0};
  std::string temporary = path_ + ".tmp." + std::to_string(getpid()) + "." +
                          std::to_string(counter.fetch_add(1));
  int fd =
      open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return;
  // 0600 whatever the umask.
  bool written = fchmod(fd, 0600) == 0 &&
                 writeAll(fd, file.data(), file.size()) && fsync(fd) == 0;
  written = close(fd) == 0 && written;
  if (!written || rename(temporary.c_str(), path_.c_str()) != 0) {
    unlink(temporary.c_str());
    return;
  }
  savedHash_ = hash;
}

} // namespace ejk::runtime
