//===- ArtifactCache.cpp - compiled artifacts on disk, by key -------------===//
//
// The store itself: lookup with verification, staging and publishing with a
// rename, LRU eviction, stats. POSIX calls are used directly where the
// permission bits, the owner or the exact errno matter.
//
//===----------------------------------------------------------------------===//

#include "ejk/Driver/ArtifactCache.h"

#include "ejk/Store/Artifacts/CacheEntry.h"
#include "ejk/Support/FileIO.h"
#include "ejk/Support/PathText.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

using namespace mlir;
using namespace mlir::ejk;

StringRef mlir::ejk::compilerVersion() {
  return ::ejk::artifactCompilerVersion();
}

namespace {

/// Staging and trash directories older than this belong to a process that
/// died; eviction removes them.
constexpr time_t kStaleSeconds = 3600;

llvm::Error errorf(const Twine &message) {
  return llvm::createStringError(message);
}

using ::ejk::errnoText;
using ::ejk::joinPath;

struct EntryOnDisk {
  std::string name;
  std::string path;
  uint64_t bytes = 0;
  struct timespec used = {0, 0};
};

/// Total size of the files directly in \p directory.
uint64_t directoryBytes(const std::string &directory) {
  uint64_t bytes = 0;
  for (const std::string &name : ::ejk::listDirectory(directory)) {
    struct stat info;
    if (lstat(joinPath(directory, name).c_str(), &info) == 0 &&
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
    : directory_(root.empty() ? std::string() : joinPath(root, "artifacts")),
      maxBytes_(maxBytes) {}

ArtifactCache
ArtifactCache::fromEnvironment(std::vector<std::string> &warnings) {
  std::string root;
  uint64_t maxBytes = kDefaultMaxBytes;
  ::ejk::artifactCacheFromEnvironment(root, maxBytes, warnings);
  return ArtifactCache(root, maxBytes);
}

llvm::Error ArtifactCache::prepare() const {
  if (!enabled())
    return errorf("the artifact cache is disabled");
  if (std::error_code ec = llvm::sys::fs::create_directories(
          directory_, /*IgnoreExisting=*/true, llvm::sys::fs::owner_all))
    return errorf("cannot create '" + directory_ + "': " + ec.message());
  std::string why;
  if (!::ejk::isPrivateDirectory(directory_, why))
    return errorf(why);
  if (access(directory_.c_str(), W_OK | X_OK) != 0)
    return errorf("'" + directory_ + "' is not writable: " + errnoText());
  return llvm::Error::success();
}

std::optional<std::string>
ArtifactCache::lookup(const ArtifactKey &key, std::string *whyNot,
                      ::ejk::VerifiedEntry *contents) const {
  if (!enabled())
    return std::nullopt;
  return ::ejk::verifyCacheEntry(directory_, key, whyNot, contents);
}

llvm::Expected<std::string> ArtifactCache::createStagingDirectory() const {
  if (llvm::Error error = prepare())
    return std::move(error);
  std::string pattern = joinPath(directory_, ".staging-XXXXXX");
  if (!mkdtemp(pattern.data()))
    return errorf("cannot create a directory in '" + directory_ +
                  "': " + errnoText());
  return pattern;
}

/// Moves \p path out of the way (into a fresh trash directory) and removes
/// it. Renaming first means a concurrent reader sees the entry either whole
/// or not at all.
static void removeEntry(const std::string &directory, const std::string &path) {
  std::string trash = joinPath(directory, ".trash-XXXXXX");
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
  if (!::ejk::isArtifactKeyName(key.hash))
    return fail(errorf("bad cache key '" + key.hash + "'"));

  if (std::string error; !::ejk::writeCacheEntryFile(staging, key, error))
    return fail(errorf(error));

  std::string entry = joinPath(directory_, key.hash);
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (rename(staging.c_str(), entry.c_str()) == 0) {
      ::ejk::touchPath(entry);
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
  for (const std::string &name : ::ejk::listDirectory(directory_)) {
    std::string path = joinPath(directory_, name);
    struct stat info;
    if (lstat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode))
      continue;
    if (StringRef(name).starts_with(".staging-") ||
        StringRef(name).starts_with(".trash-")) {
      if (now - info.st_mtime > kStaleSeconds)
        llvm::sys::fs::remove_directories(path, /*IgnoreErrors=*/true);
      continue;
    }
    if (!::ejk::isArtifactKeyName(name))
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
  for (const std::string &name : ::ejk::listDirectory(directory_)) {
    std::string path = joinPath(directory_, name);
    if (::ejk::isArtifactKeyName(name)) {
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
  if (!::ejk::isPrivateDirectory(directory_, why))
    return errorf(why);
  uint64_t removed = 0;
  for (const std::string &name : ::ejk::listDirectory(directory_)) {
    std::string path = joinPath(directory_, name);
    if (::ejk::isArtifactKeyName(name)) {
      removeEntry(directory_, path);
      ++removed;
    }
  }
  // The source index names entries that are gone now.
  std::string index = joinPath(directory_, ::ejk::kSourceIndexDirectory);
  if (lstat(index.c_str(), &info) == 0)
    removeEntry(directory_, index);
  // Lock files are empty; a compile that holds one keeps its descriptor.
  std::string locks = joinPath(directory_, "locks");
  if (lstat(locks.c_str(), &info) == 0)
    removeEntry(directory_, locks);
  // Stale staging and trash directories go too; fresh ones may belong to a
  // compile in flight in another process.
  evict(UINT64_MAX);
  return removed;
}

//===----------------------------------------------------------------------===//
// Exporting an artifact
//===----------------------------------------------------------------------===//

/// Writes \p contents to \p path: a regular file is replaced through a
/// temporary file and a rename, a FIFO or device written through
/// (ejk/Support/FileIO.h).
static llvm::Error replaceFile(const std::string &path, StringRef contents) {
  std::string error;
  if (!::ejk::writeFileReplacing(path, contents.str(), error))
    return errorf(error);
  return llvm::Error::success();
}

/// Reads the file \p name of the artifact in \p directory.
static llvm::Expected<std::string> readArtifactFile(StringRef directory,
                                                    StringRef name) {
  std::string text, error;
  if (!::ejk::readRegularFile(joinPath(directory, name), text, error))
    return errorf("cannot read " + error);
  return text;
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
      if (llvm::Error error = replaceFile(joinPath(outDir, to), *bytes))
        return error;
      dispatch["spirv"] = to;
    }
  }
  return llvm::Error::success();
}

llvm::Expected<std::string> mlir::ejk::exportArtifact(StringRef manifestPath,
                                                      StringRef outDir,
                                                      StringRef name) {
  llvm::Expected<std::string> manifestText =
      readArtifactFile(llvm::sys::path::parent_path(manifestPath),
                       llvm::sys::path::filename(manifestPath));
  if (!manifestText)
    return manifestText.takeError();
  nlohmann::json manifest =
      nlohmann::json::parse(*manifestText, nullptr, false);
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
    if (llvm::Error error =
            replaceFile(joinPath(outDir, libraryName), *libraryBytes))
      return std::move(error);
  }
  std::string jsonPath = joinPath(outDir, (name + ".json").str());
  if (llvm::Error error = replaceFile(jsonPath, manifest.dump(2)))
    return std::move(error);
  return jsonPath;
}
