//===- CacheEntry.cpp - artifact cache entries, MLIR-free -----------------===//
//
// POSIX calls are used directly where the permission bits, the owner or the
// exact errno matter.
//
//===----------------------------------------------------------------------===//

#include "ejk/Store/Artifacts/CacheEntry.h"

#include "EjkCompilerId.h"
#include "ejk/Support/FileIO.h"
#include "ejk/Support/PathText.h"
#include "ejk/Support/Sha256.h"

#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>

using namespace ejk;

namespace {
constexpr const char *kEntryFormat = "ejk-cache-entry";
/// 2: files are hashed with SHA-256 (1 used BLAKE3, which needs LLVM).
constexpr int kEntryVersion = 2;



/// Checks that the entry's manifest names only files of the entry: the
/// hashes cover those files, so code from anywhere else (an absolute
/// `library`, a `../` SPIR-V path) would run unverified.
bool manifestStaysInside(const VerifiedEntry &entry, std::string &why) {
  std::string manifestName = std::string(kCacheArtifactName) + ".json";
  if (!entry.files.count(manifestName)) {
    why = "it has no '" + manifestName + "'";
    return false;
  }
  nlohmann::json manifest =
      nlohmann::json::parse(entry.manifest(), nullptr, false);
  if (manifest.is_discarded() || !manifest.is_object()) {
    why = "'" + manifestName + "' is not JSON";
    return false;
  }
  auto inside = [&](const nlohmann::json &name, const char *what) {
    if (name.is_string() && entry.files.count(name.get<std::string>()) &&
        name.get<std::string>() != manifestName)
      return true;
    why = "'" + manifestName + "' names " + what + " " + name.dump() +
          ", which is not a file of the entry";
    return false;
  };
  if (manifest.contains("library") && !inside(manifest["library"], "library"))
    return false;
  auto entries = manifest.find("entries");
  if (entries == manifest.end() || !entries->is_array())
    return true; // The runtime's own checks report it.
  for (const nlohmann::json &item : *entries) {
    if (!item.is_object() || !item.contains("dispatches") ||
        !item["dispatches"].is_array())
      continue;
    for (const nlohmann::json &dispatch : item["dispatches"])
      if (dispatch.is_object() && dispatch.contains("spirv") &&
          !inside(dispatch["spirv"], "SPIR-V file"))
        return false;
  }
  return true;
}
} // namespace

const char *ejk::artifactCompilerVersion() {
  return EJK_COMPILER_VERSION "+src." EJK_COMPILER_SOURCE_HASH;
}

void ejk::artifactCacheFromEnvironment(std::string &root, uint64_t &maxBytes,
                                       std::vector<std::string> &warnings) {
  root.clear();
  if (const char *dir = std::getenv("EJK_CACHE_DIR"); dir && *dir)
    root = dir;
  else if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    root = joinPath(xdg, "ejk");
  else if (const char *home = std::getenv("HOME"); home && *home)
    root = joinPath(joinPath(home, ".cache"), "ejk");
  else
    warnings.push_back("no cache directory: none of EJK_CACHE_DIR, "
                       "XDG_CACHE_HOME and HOME is set");

  maxBytes = kDefaultCacheMaxBytes;
  if (const char *max = std::getenv("EJK_CACHE_MAX_MB"); max && *max) {
    char *end = nullptr;
    errno = 0;
    unsigned long long mb = std::strtoull(max, &end, 10);
    if (*end || errno || !std::isdigit(static_cast<unsigned char>(*max)) ||
        mb > (1ull << 40))
      warnings.push_back("EJK_CACHE_MAX_MB must be a number of mebibytes, "
                         "got '" +
                         std::string(max) + "'; using " +
                         std::to_string(kDefaultCacheMaxBytes >> 20));
    else
      maxBytes = uint64_t(mb) << 20;
  }
}

bool ejk::isArtifactKeyName(const std::string &name) {
  return name.size() == 32 && std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

bool ejk::isPrivateDirectory(const std::string &path, std::string &why) {
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) {
    why = "'" + path + "': " + errnoText();
    return false;
  }
  if (!S_ISDIR(info.st_mode)) {
    why = "'" + path + "' is not a directory";
    return false;
  }
  if (info.st_uid != geteuid()) {
    why = "'" + path + "' belongs to another user";
    return false;
  }
  if (info.st_mode & 077) {
    char mode[16];
    snprintf(mode, sizeof(mode), "%04o", unsigned(info.st_mode & 07777));
    why = "'" + path + "' is accessible to other users (mode " +
          std::string(mode) + "); expected 0700";
    return false;
  }
  return true;
}

std::vector<std::string> ejk::listDirectory(const std::string &directory) {
  std::vector<std::string> names;
  DIR *dir = opendir(directory.c_str());
  if (!dir)
    return names;
  while (dirent *entry = readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..")
      names.push_back(std::move(name));
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

bool ejk::readCacheFile(const std::string &path, std::string &bytes,
                        std::string &why, uint64_t maxBytes) {
  ReadOptions options;
  options.maxBytes = maxBytes;
  options.noFollow = true;
  options.requirePrivate = true;
  return readRegularFile(path, bytes, why, options);
}

const std::string &VerifiedEntry::manifest() const {
  static const std::string empty;
  auto it = files.find(std::string(kCacheArtifactName) + ".json");
  return it == files.end() ? empty : it->second;
}

bool ejk::writePrivateFile(const std::string &path, const std::string &contents,
                           std::string &error) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    error = "cannot create '" + path + "': " + errnoText();
    return false;
  }
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "cannot write '" + path + "': " + errnoText();
      close(fd);
      return false;
    }
    done += size_t(n);
  }
  if (close(fd) != 0) {
    error = "cannot write '" + path + "': " + errnoText();
    return false;
  }
  return true;
}

void ejk::touchPath(const std::string &path) {
  struct timespec now[2];
  clock_gettime(CLOCK_REALTIME, &now[0]);
  now[1] = now[0];
  utimensat(AT_FDCWD, path.c_str(), now, AT_SYMLINK_NOFOLLOW);
}

std::optional<std::string>
ejk::verifyCacheEntry(const std::string &artifactsDir, const ArtifactKey &key,
                      std::string *whyNot, VerifiedEntry *contents) {
  if (artifactsDir.empty() || !isArtifactKeyName(key.hash))
    return std::nullopt;
  std::string entry = joinPath(artifactsDir, key.hash);
  struct stat info;
  if (lstat(entry.c_str(), &info) != 0)
    return std::nullopt;

  std::string why;
  auto reject = [&](const std::string &reason) -> std::optional<std::string> {
    if (whyNot)
      *whyNot = "cache entry '" + entry + "' not used: " + reason;
    return std::nullopt;
  };
  if (!isPrivateDirectory(artifactsDir, why) || !isPrivateDirectory(entry, why))
    return reject(why);

  std::string text;
  if (!readCacheFile(joinPath(entry, kCacheEntryFile), text, why, 1 << 20))
    return reject(why);
  nlohmann::json meta = nlohmann::json::parse(text, nullptr, false);
  if (meta.is_discarded() || !meta.is_object())
    return reject(std::string(kCacheEntryFile) + " is not JSON");
  auto field = [&](const char *name) -> std::string {
    auto it = meta.find(name);
    return it != meta.end() && it->is_string() ? it->get<std::string>() : "";
  };
  if (field("format") != kEntryFormat || !meta.contains("version") ||
      meta["version"] != kEntryVersion)
    return reject(std::string(kCacheEntryFile) +
                  " is not an ejk cache entry of this version");
  if (field("key") != key.hash)
    return reject("it is the entry of key '" + field("key") + "'");
  if (field("target") != key.target)
    return reject("compiled for target '" + field("target") + "', not '" +
                  key.target + "'");
  if (field("fingerprint") != key.fingerprint)
    return reject("compiled for device fingerprint '" + field("fingerprint") +
                  "', not '" + key.fingerprint + "'");
  if (field("compiler_version") != key.compilerVersion)
    return reject("compiled by compiler version '" + field("compiler_version") +
                  "', not '" + key.compilerVersion + "'");

  VerifiedEntry verified;
  auto files = meta.find("files");
  if (files == meta.end() || !files->is_array() || files->empty())
    return reject(std::string(kCacheEntryFile) + " lists no files");
  std::set<std::string> listed = {kCacheEntryFile};
  for (const nlohmann::json &file : *files) {
    if (!file.is_object() || !file.contains("name") ||
        !file["name"].is_string() || !file.contains("size") ||
        !file["size"].is_number_unsigned() || !file.contains("sha256") ||
        !file["sha256"].is_string())
      return reject(std::string(kCacheEntryFile) +
                    " has a malformed file record");
    std::string name = file["name"].get<std::string>();
    if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos ||
        !listed.insert(name).second)
      return reject(std::string(kCacheEntryFile) + " lists a bad file name '" +
                    name + "'");
    // Hash the bytes that will be used, read once.
    std::string bytes;
    if (!readCacheFile(joinPath(entry, name), bytes, why))
      return reject(why);
    uint64_t size = bytes.size();
    std::string hash = sha256Hex(bytes);
    if (size != file["size"].get<uint64_t>())
      return reject("'" + name + "' has " + std::to_string(size) +
                    " bytes, expected " +
                    std::to_string(file["size"].get<uint64_t>()));
    if (hash != file["sha256"].get<std::string>())
      return reject("'" + name + "' does not match its hash");
    verified.files[name] = std::move(bytes);
  }
  for (const std::string &name : listDirectory(entry))
    if (!listed.count(name))
      return reject("unexpected file '" + name + "'");
  if (!manifestStaysInside(verified, why))
    return reject(why);
  touchPath(entry);
  if (contents)
    *contents = std::move(verified);
  return entry;
}

bool ejk::writeCacheEntryFile(const std::string &staging,
                              const ArtifactKey &key, std::string &error) {
  nlohmann::json files = nlohmann::json::array();
  for (const std::string &name : listDirectory(staging)) {
    std::string path = joinPath(staging, name);
    if (name == kCacheEntryFile || name[0] == '.') {
      error = "cannot store '" + path + "' in the cache";
      return false;
    }
    if (chmod(path.c_str(), 0600) != 0) {
      error = "cannot chmod '" + path + "': " + errnoText();
      return false;
    }
    std::string bytes;
    if (!readCacheFile(path, bytes, error))
      return false;
    files.push_back({{"name", name},
                     {"size", uint64_t(bytes.size())},
                     {"sha256", sha256Hex(bytes)}});
  }
  nlohmann::json meta;
  meta["format"] = kEntryFormat;
  meta["version"] = kEntryVersion;
  meta["key"] = key.hash;
  meta["target"] = key.target;
  meta["fingerprint"] = key.fingerprint;
  meta["compiler_version"] = key.compilerVersion;
  meta["files"] = files;
  return writePrivateFile(joinPath(staging, kCacheEntryFile),
                          meta.dump(2) + "\n", error);
}
