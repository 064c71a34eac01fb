//===- ArtifactCache.cpp - compiled artifacts on disk, by key -------------===//
//
// The store itself: lookup with verification, staging and publishing with a
// rename, LRU eviction, stats. POSIX calls are used directly where the
// permission bits, the owner or the exact errno matter.
//
//===----------------------------------------------------------------------===//

#include "ejk/Driver/ArtifactCache.h"

#include "EjkCompilerId.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>

using namespace mlir;
using namespace mlir::ejk;

StringRef mlir::ejk::compilerVersion() {
  return EJK_COMPILER_VERSION "+src." EJK_COMPILER_SOURCE_HASH;
}

namespace {

constexpr const char *kEntryFormat = "ejk-cache-entry";
constexpr int kEntryVersion = 1;
/// Staging and trash directories older than this belong to a process that
/// died; eviction removes them.
constexpr time_t kStaleSeconds = 3600;
/// entry.json is small; anything larger is not ours.
constexpr off_t kMaxEntryFileBytes = 1 << 20;

llvm::Error errorf(const Twine &message) {
  return llvm::createStringError(message);
}

std::string errnoText() { return std::strerror(errno); }

std::string join(StringRef directory, StringRef name) {
  SmallString<256> path(directory);
  llvm::sys::path::append(path, name);
  return std::string(path);
}

bool isKeyName(StringRef name) {
  return name.size() == 32 && llvm::all_of(name, [](char c) {
           return llvm::isDigit(c) || (c >= 'a' && c <= 'f');
         });
}

/// Checks that \p path is a directory (not a link) of this user that no one
/// else can write or read.
bool isPrivateDirectory(const std::string &path, std::string &why) {
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

/// The names in \p directory, without "." and "..".
std::vector<std::string> listDirectory(const std::string &directory) {
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

/// BLAKE3 (256 bits, hex) and size of a regular file of this user; fails on
/// anything else.
bool hashFile(const std::string &path, uint64_t &size, std::string &hash,
              std::string &why) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    why = "cannot open '" + path + "': " + errnoText();
    return false;
  }
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) ||
      info.st_uid != geteuid() || (info.st_mode & 077)) {
    close(fd);
    why = "'" + path + "' is not a private regular file of this user";
    return false;
  }
  llvm::BLAKE3 hasher;
  std::vector<uint8_t> chunk(1 << 16);
  size = 0;
  while (true) {
    ssize_t n = read(fd, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      why = "cannot read '" + path + "': " + errnoText();
      close(fd);
      return false;
    }
    if (n == 0)
      break;
    hasher.update(ArrayRef<uint8_t>(chunk.data(), size_t(n)));
    size += uint64_t(n);
  }
  close(fd);
  hash = llvm::toHex(hasher.final(), /*LowerCase=*/true);
  return true;
}

/// Reads a small file into \p text.
bool readSmallFile(const std::string &path, std::string &text,
                   std::string &why) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    why = "cannot open '" + path + "': " + errnoText();
    return false;
  }
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) ||
      info.st_size > kMaxEntryFileBytes) {
    close(fd);
    why = "'" + path + "' is not a small regular file";
    return false;
  }
  text.resize(size_t(info.st_size));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = read(fd, &text[done], text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += size_t(n);
  }
  close(fd);
  if (done != text.size()) {
    why = "cannot read '" + path + "'";
    return false;
  }
  return true;
}

/// Writes a new private file (fails if it exists).
llvm::Error writePrivateFile(const std::string &path, StringRef contents) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return errorf("cannot create '" + path + "': " + errnoText());
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      std::string why = errnoText();
      close(fd);
      return errorf("cannot write '" + path + "': " + why);
    }
    done += size_t(n);
  }
  if (close(fd) != 0)
    return errorf("cannot write '" + path + "': " + errnoText());
  return llvm::Error::success();
}

/// Marks \p path as used now, with the full resolution of the clock (the
/// kernel's own timestamps are only as fine as its tick), so that LRU order
/// follows the order of uses. Fails silently on a read-only cache.
void touch(const std::string &path) {
  struct timespec now[2];
  clock_gettime(CLOCK_REALTIME, &now[0]);
  now[1] = now[0];
  utimensat(AT_FDCWD, path.c_str(), now, AT_SYMLINK_NOFOLLOW);
}

struct EntryOnDisk {
  std::string name;
  std::string path;
  uint64_t bytes = 0;
  struct timespec used = {0, 0};
};

/// Total size of the files directly in \p directory.
uint64_t directoryBytes(const std::string &directory) {
  uint64_t bytes = 0;
  for (const std::string &name : listDirectory(directory)) {
    struct stat info;
    if (lstat(join(directory, name).c_str(), &info) == 0 &&
        S_ISREG(info.st_mode))
      bytes += uint64_t(info.st_size);
  }
  return bytes;
}

} // namespace

//===----------------------------------------------------------------------===//
// ArtifactCache
//===----------------------------------------------------------------------===//

ArtifactCache::ArtifactCache(std::string root, uint64_t maxBytes)
    : directory_(root.empty() ? std::string() : join(root, "artifacts")),
      maxBytes_(maxBytes) {}

ArtifactCache
ArtifactCache::fromEnvironment(std::vector<std::string> &warnings) {
  std::string root;
  if (const char *dir = std::getenv("EJK_CACHE_DIR"); dir && *dir)
    root = dir;
  else if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    root = join(xdg, "ejk");
  else if (const char *home = std::getenv("HOME"); home && *home)
    root = join(join(home, ".cache"), "ejk");
  else
    warnings.push_back("no cache directory: none of EJK_CACHE_DIR, "
                       "XDG_CACHE_HOME and HOME is set");

  uint64_t maxBytes = kDefaultMaxBytes;
  if (const char *max = std::getenv("EJK_CACHE_MAX_MB"); max && *max) {
    unsigned long long mb = 0;
    if (StringRef(max).getAsInteger(10, mb) || mb > (1ull << 40))
      warnings.push_back("EJK_CACHE_MAX_MB must be a number of mebibytes, "
                         "got '" +
                         std::string(max) + "'; using " +
                         std::to_string(kDefaultMaxBytes >> 20));
    else
      maxBytes = uint64_t(mb) << 20;
  }
  return ArtifactCache(root, maxBytes);
}

llvm::Error ArtifactCache::prepare() const {
  if (!enabled())
    return errorf("the artifact cache is disabled");
  if (std::error_code ec = llvm::sys::fs::create_directories(
          directory_, /*IgnoreExisting=*/true, llvm::sys::fs::owner_all))
    return errorf("cannot create '" + directory_ + "': " + ec.message());
  std::string why;
  if (!isPrivateDirectory(directory_, why))
    return errorf(why);
  if (access(directory_.c_str(), W_OK | X_OK) != 0)
    return errorf("'" + directory_ + "' is not writable: " + errnoText());
  return llvm::Error::success();
}

std::optional<std::string> ArtifactCache::lookup(const ArtifactKey &key,
                                                 std::string *whyNot) const {
  if (!enabled() || !isKeyName(key.hash))
    return std::nullopt;
  std::string entry = join(directory_, key.hash);
  struct stat info;
  if (lstat(entry.c_str(), &info) != 0)
    return std::nullopt;

  std::string why;
  auto reject = [&](const std::string &reason) -> std::optional<std::string> {
    if (whyNot)
      *whyNot = "cache entry '" + entry + "' not used: " + reason;
    return std::nullopt;
  };
  if (!isPrivateDirectory(directory_, why) || !isPrivateDirectory(entry, why))
    return reject(why);

  std::string text;
  if (!readSmallFile(join(entry, kEntryFile), text, why))
    return reject(why);
  nlohmann::json meta = nlohmann::json::parse(text, nullptr, false);
  if (meta.is_discarded() || !meta.is_object())
    return reject(std::string(kEntryFile) + " is not JSON");
  auto field = [&](const char *name) -> std::string {
    auto it = meta.find(name);
    return it != meta.end() && it->is_string() ? it->get<std::string>() : "";
  };
  if (field("format") != kEntryFormat || !meta.contains("version") ||
      meta["version"] != kEntryVersion)
    return reject(std::string(kEntryFile) + " is not an ejk cache entry");
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

  auto files = meta.find("files");
  if (files == meta.end() || !files->is_array() || files->empty())
    return reject(std::string(kEntryFile) + " lists no files");
  std::set<std::string> listed = {kEntryFile};
  for (const nlohmann::json &file : *files) {
    if (!file.is_object() || !file.contains("name") ||
        !file["name"].is_string() || !file.contains("size") ||
        !file["size"].is_number_unsigned() || !file.contains("blake3") ||
        !file["blake3"].is_string())
      return reject(std::string(kEntryFile) + " has a malformed file record");
    std::string name = file["name"].get<std::string>();
    if (name.empty() || name[0] == '.' || name.find('/') != std::string::npos ||
        !listed.insert(name).second)
      return reject(std::string(kEntryFile) + " lists a bad file name '" +
                    name + "'");
    uint64_t size = 0;
    std::string hash;
    if (!hashFile(join(entry, name), size, hash, why))
      return reject(why);
    if (size != file["size"].get<uint64_t>())
      return reject("'" + name + "' has " + std::to_string(size) +
                    " bytes, expected " +
                    std::to_string(file["size"].get<uint64_t>()));
    if (hash != file["blake3"].get<std::string>())
      return reject("'" + name + "' does not match its hash");
  }
  for (const std::string &name : listDirectory(entry))
    if (!listed.count(name))
      return reject("unexpected file '" + name + "'");
  touch(entry);
  return entry;
}

llvm::Expected<std::string> ArtifactCache::createStagingDirectory() const {
  if (llvm::Error error = prepare())
    return std::move(error);
  std::string pattern = join(directory_, ".staging-XXXXXX");
  if (!mkdtemp(pattern.data()))
    return errorf("cannot create a directory in '" + directory_ +
                  "': " + errnoText());
  return pattern;
}

/// Moves \p path out of the way (into a fresh trash directory) and removes
/// it. Renaming first means a concurrent reader sees the entry either whole
/// or not at all.
static void removeEntry(const std::string &directory, const std::string &path) {
  std::string trash = join(directory, ".trash-XXXXXX");
  if (!mkdtemp(trash.data()))
    return;
  if (rename(path.c_str(), trash.c_str()) != 0) {
    rmdir(trash.c_str());
    return;
  }
  llvm::sys::fs::remove_directories(trash, /*IgnoreErrors=*/true);
}

llvm::Expected<std::string> ArtifactCache::publish(const ArtifactKey &key,
                                                   StringRef stagingRef) const {
  std::string staging = stagingRef.str();
  auto fail = [&](llvm::Error error) -> llvm::Expected<std::string> {
    return std::move(error);
  };
  if (!isKeyName(key.hash))
    return fail(errorf("bad cache key '" + key.hash + "'"));

  nlohmann::json files = nlohmann::json::array();
  for (const std::string &name : listDirectory(staging)) {
    std::string path = join(staging, name);
    if (name == kEntryFile || name[0] == '.')
      return fail(errorf("cannot store '" + path + "' in the cache"));
    if (chmod(path.c_str(), 0600) != 0)
      return fail(errorf("cannot chmod '" + path + "': " + errnoText()));
    uint64_t size = 0;
    std::string hash, why;
    if (!hashFile(path, size, hash, why))
      return fail(errorf(why));
    files.push_back({{"name", name}, {"size", size}, {"blake3", hash}});
  }
  nlohmann::json meta;
  meta["format"] = kEntryFormat;
  meta["version"] = kEntryVersion;
  meta["key"] = key.hash;
  meta["target"] = key.target;
  meta["fingerprint"] = key.fingerprint;
  meta["compiler_version"] = key.compilerVersion;
  meta["files"] = files;
  if (llvm::Error error =
          writePrivateFile(join(staging, kEntryFile), meta.dump(2) + "\n"))
    return fail(std::move(error));

  std::string entry = join(directory_, key.hash);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (rename(staging.c_str(), entry.c_str()) == 0) {
      touch(entry);
      evict(maxBytes_, key.hash);
      return entry;
    }
    if (errno != ENOTEMPTY && errno != EEXIST)
      return fail(errorf("cannot rename '" + staging + "' to '" + entry +
                         "': " + errnoText()));
    // Another process stored this key first: use its entry if it verifies,
    // otherwise move the bad one away and try again.
    if (lookup(key)) {
      llvm::sys::fs::remove_directories(staging, /*IgnoreErrors=*/true);
      return entry;
    }
    removeEntry(directory_, entry);
  }
  if (lookup(key)) {
    llvm::sys::fs::remove_directories(staging, /*IgnoreErrors=*/true);
    return entry;
  }
  return fail(errorf("cannot store the entry '" + entry + "'"));
}

uint64_t ArtifactCache::evict(uint64_t maxBytes, StringRef keep) const {
  if (!enabled())
    return 0;
  std::vector<EntryOnDisk> entries;
  uint64_t total = 0;
  time_t now = time(nullptr);
  for (const std::string &name : listDirectory(directory_)) {
    std::string path = join(directory_, name);
    struct stat info;
    if (lstat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
      continue;
    if (StringRef(name).starts_with(".staging-") ||
        StringRef(name).starts_with(".trash-")) {
      if (now - info.st_mtime > kStaleSeconds)
        llvm::sys::fs::remove_directories(path, /*IgnoreErrors=*/true);
      continue;
    }
    if (!isKeyName(name))
      continue;
    EntryOnDisk entry;
    entry.name = name;
    entry.path = path;
    entry.bytes = directoryBytes(path);
    entry.used = info.st_mtim;
    total += entry.bytes;
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(),
            [](const EntryOnDisk &a, const EntryOnDisk &b) {
              if (a.used.tv_sec != b.used.tv_sec)
                return a.used.tv_sec < b.used.tv_sec;
              if (a.used.tv_nsec != b.used.tv_nsec)
                return a.used.tv_nsec < b.used.tv_nsec;
              return a.name < b.name;
            });
  uint64_t removed = 0;
  for (const EntryOnDisk &entry : entries) {
    if (total <= maxBytes)
      break;
    if (entry.name == keep)
      continue;
    removeEntry(directory_, entry.path);
    total -= entry.bytes;
    ++removed;
  }
  return removed;
}

ArtifactCacheStats ArtifactCache::stats() const {
  ArtifactCacheStats stats;
  stats.directory = directory_;
  stats.maxBytes = maxBytes_;
  if (!enabled())
    return stats;
  for (const std::string &name : listDirectory(directory_)) {
    std::string path = join(directory_, name);
    if (isKeyName(name)) {
      ++stats.entries;
      stats.bytes += directoryBytes(path);
    } else if (StringRef(name).starts_with(".staging-") ||
               StringRef(name).starts_with(".trash-")) {
      ++stats.temporaries;
    }
  }
  return stats;
}

llvm::Expected<uint64_t> ArtifactCache::clear() const {
  if (!enabled())
    return errorf("the artifact cache is disabled");
  struct stat info;
  if (lstat(directory_.c_str(), &info) != 0)
    return 0; // Nothing was ever stored.
  std::string why;
  if (!isPrivateDirectory(directory_, why))
    return errorf(why);
  uint64_t removed = 0;
  for (const std::string &name : listDirectory(directory_)) {
    std::string path = join(directory_, name);
    if (isKeyName(name)) {
      removeEntry(directory_, path);
      ++removed;
    }
  }
  // Stale staging and trash directories go too; fresh ones may belong to a
  // compile in flight in another process.
  evict(UINT64_MAX);
  return removed;
}

//===----------------------------------------------------------------------===//
// Exporting an artifact
//===----------------------------------------------------------------------===//

/// Writes \p contents to \p path through a temporary file and a rename.
static llvm::Error replaceFile(const std::string &path, StringRef contents) {
  SmallString<256> temp;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, temp))
    return errorf("cannot create a file next to '" + path +
                  "': " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.close();
    if (os.has_error()) {
      llvm::sys::fs::remove(temp);
      return errorf("cannot write '" + std::string(temp) + "'");
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return errorf("cannot rename to '" + path + "': " + ec.message());
  }
  return llvm::Error::success();
}

/// Reads the file \p name of the artifact in \p directory.
static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readArtifactFile(StringRef directory, StringRef name) {
  SmallString<256> path(directory);
  llvm::sys::path::append(path, name);
  auto bytes = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!bytes)
    return errorf("cannot read '" + path + "': " + bytes.getError().message());
  return std::move(*bytes);
}

/// Copies each dispatch's SPIR-V to `<outDir>/<name>_<symbol>.spv` and points
/// the manifest at the copies.
static llvm::Error exportSpirv(nlohmann::json &manifest, StringRef directory,
                               StringRef outDir, StringRef name,
                               StringRef manifestPath) {
  auto entries = manifest.find("entries");
  if (entries == manifest.end() || !entries->is_array())
    return errorf("'" + manifestPath + "' is not an artifact manifest");
  for (nlohmann::json &entry : *entries) {
    if (!entry.is_object() || !entry.contains("dispatches") ||
        !entry["dispatches"].is_array())
      return errorf("'" + manifestPath + "' is not an artifact manifest");
    for (nlohmann::json &dispatch : entry["dispatches"]) {
      if (!dispatch.is_object() || !dispatch.contains("spirv") ||
          !dispatch["spirv"].is_string() || !dispatch.contains("symbol") ||
          !dispatch["symbol"].is_string())
        return errorf("'" + manifestPath +
                      "' has a dispatch without 'spirv' or 'symbol'");
      std::string from = dispatch["spirv"].get<std::string>();
      if (llvm::sys::path::is_absolute(from) ||
          from.find('/') != std::string::npos)
        return errorf("'" + manifestPath + "' names SPIR-V '" + from +
                      "' outside the artifact");
      auto bytes = readArtifactFile(directory, from);
      if (!bytes)
        return bytes.takeError();
      std::string to =
          (name + "_" + dispatch["symbol"].get<std::string>() + ".spv").str();
      if (llvm::Error error =
              replaceFile(join(outDir, to), (*bytes)->getBuffer()))
        return error;
      dispatch["spirv"] = to;
    }
  }
  return llvm::Error::success();
}

llvm::Expected<std::string> mlir::ejk::exportArtifact(StringRef manifestPath,
                                                      StringRef outDir,
                                                      StringRef name) {
  auto manifestText = llvm::MemoryBuffer::getFile(manifestPath);
  if (!manifestText)
    return errorf("cannot read '" + manifestPath +
                  "': " + manifestText.getError().message());
  nlohmann::json manifest =
      nlohmann::json::parse((*manifestText)->getBuffer(), nullptr, false);
  if (manifest.is_discarded() || !manifest.is_object())
    return errorf("'" + manifestPath + "' is not an artifact manifest");
  StringRef directory = llvm::sys::path::parent_path(manifestPath);
  bool vulkan = manifest.contains("target") && manifest["target"] == "vulkan";
  if (!vulkan &&
      (!manifest.contains("library") || !manifest["library"].is_string()))
    return errorf("'" + manifestPath + "' is not an artifact manifest");
  if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
    return errorf("cannot create '" + outDir + "': " + ec.message());
  if (vulkan) {
    if (llvm::Error error =
            exportSpirv(manifest, directory, outDir, name, manifestPath))
      return std::move(error);
  } else {
    auto libraryBytes =
        readArtifactFile(directory, manifest["library"].get<std::string>());
    if (!libraryBytes)
      return libraryBytes.takeError();
    std::string libraryName = (name + ".so").str();
    manifest["library"] = libraryName;
    if (llvm::Error error = replaceFile(join(outDir, libraryName),
                                        (*libraryBytes)->getBuffer()))
      return std::move(error);
  }
  std::string jsonPath = join(outDir, (name + ".json").str());
  if (llvm::Error error = replaceFile(jsonPath, manifest.dump(2)))
    return std::move(error);
  return jsonPath;
}
