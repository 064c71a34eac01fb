//===- CacheEntry.h - artifact cache entries, MLIR-free ---------*- C++ -*-===//
//
// The on-disk half of the artifact cache (ejk/Driver/ArtifactCache.h): where
// the cache lives, what an entry is (`entry.json` with the size and SHA-256
// of each of its files) and how one is verified before use. MLIR-free, so
// that `ejk-run`'s front, which does not link the compiler, verifies an
// entry with the same code as the compiler's lookup.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_STORE_ARTIFACTS_CACHEENTRY_H
#define EJK_STORE_ARTIFACTS_CACHEENTRY_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ejk {

/// What an entry was compiled for; an entry is used only when all of it
/// matches.
struct ArtifactKey {
  /// 32 lowercase hex digits (128 bits of BLAKE3).
  std::string hash;
  /// "cpu" or "vulkan".
  std::string target;
  /// DeviceFingerprint::hash() of the device compiled for.
  std::string fingerprint;
  std::string compilerVersion;
};

/// The compiler's identity in cache keys and entries: the release version
/// plus a hash of the compiler's sources at build time, so that any change
/// to the compiler (committed or not) changes every key.
const char *artifactCompilerVersion();

/// The file that describes an entry.
inline constexpr const char *kCacheEntryFile = "entry.json";
inline constexpr uint64_t kDefaultCacheMaxBytes = 1024ull << 20;
/// The artifact's name inside an entry: `kernel.json` is its manifest.
inline constexpr const char *kCacheArtifactName = "kernel";
/// The directory of the source index (ejk/Store/Artifacts/SourceIndex.h), next
/// to the entries.
inline constexpr const char *kSourceIndexDirectory = "source-index";

/// Where the environment puts the cache: \p root is $EJK_CACHE_DIR, else
/// $XDG_CACHE_HOME/ejk, else $HOME/.cache/ejk ("" when none is set: the
/// cache is disabled); \p maxBytes is EJK_CACHE_MAX_MB mebibytes. An
/// unusable setting is reported in \p warnings and the default used.
void artifactCacheFromEnvironment(std::string &root, uint64_t &maxBytes,
                                  std::vector<std::string> &warnings);

/// Whether \p name is an entry's name: 32 lowercase hex digits.
bool isArtifactKeyName(const std::string &name);

/// Checks that \p path is a directory (not a link) of this user that no one
/// else can write or read; \p why says what is wrong otherwise.
bool isPrivateDirectory(const std::string &path, std::string &why);

/// The names in \p directory, sorted, without "." and "..".
std::vector<std::string> listDirectory(const std::string &directory);

/// The largest file an entry may hold; larger ones are refused unread.
inline constexpr uint64_t kMaxCacheFileBytes = uint64_t(1) << 30;

/// Reads a private regular file of this user, at most \p maxBytes, into
/// \p bytes: no symbolic link, and never blocks (a FIFO or a device in
/// its place is refused without being opened for reading).
bool readCacheFile(const std::string &path, std::string &bytes,
                   std::string &why, uint64_t maxBytes = kMaxCacheFileBytes);

/// Writes a new private (0600) file; fails if it exists.
bool writePrivateFile(const std::string &path, const std::string &contents,
                      std::string &error);

/// Marks \p path as used now (for LRU eviction), with the full resolution
/// of the clock. Fails silently on a read-only cache.
void touchPath(const std::string &path);

/// The files of a verified entry as they were read and hashed. Loading
/// these bytes (ejk_module_load_files), not the files again, leaves no
/// window in which the files could change between verification and use.
struct VerifiedEntry {
  /// By name, entry.json excluded.
  std::map<std::string, std::string> files;
  /// The artifact's manifest: files["kernel.json"].
  const std::string &manifest() const;
};

/// The verified entry directory of \p key in \p artifactsDir, or nullopt
/// when there is none or it must not be used (missing or extra files, a
/// size or hash that does not match, another target, fingerprint or
/// compiler version, not private, a manifest that names a library or
/// SPIR-V file other than a file of the entry); \p whyNot then says why
/// when an entry existed. A hit marks the entry as used now and, when
/// \p contents is given, hands over the bytes that were verified.
std::optional<std::string> verifyCacheEntry(const std::string &artifactsDir,
                                            const ArtifactKey &key,
                                            std::string *whyNot = nullptr,
                                            VerifiedEntry *contents = nullptr);

/// Makes the files in \p staging private and writes their `entry.json` for
/// \p key: what verifyCacheEntry checks.
bool writeCacheEntryFile(const std::string &staging, const ArtifactKey &key,
                         std::string &error);

} // namespace ejk

#endif // EJK_STORE_ARTIFACTS_CACHEENTRY_H
