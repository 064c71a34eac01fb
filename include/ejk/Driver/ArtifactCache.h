//===- ArtifactCache.h - compiled artifacts on disk, by key -----*- C++ -*-===//
//
// The compiled-artifact cache: `$EJK_CACHE_DIR/artifacts/<key>/`, one
// directory per artifact, keyed by a hash of the kernel IR after config
// selection, the target, the device fingerprint and the compiler version.
//
// A cache entry is code that will be executed, so the cache is strict:
//  - entries are built in a private temporary directory and published with
//    one rename(2), so a reader never sees a half-written entry, and many
//    processes may share the directory;
//  - every entry carries `entry.json` with its key, target, fingerprint,
//    compiler version and the size and SHA-256 of each of its files, and
//    is verified before use (ejk/Store/Artifacts/CacheEntry.h, which
//    `ejk-run`'s MLIR-free front shares); a truncated, corrupt or foreign entry
//    is ignored (and replaced by the next store), never loaded;
//  - directories are 0700 and files 0600, and a directory that is not the
//    user's own and private is not used;
//  - a size bound (EJK_CACHE_MAX_MB) evicts the least recently used entries.
//
// See docs/artifact-cache.md for the layout, the key and the environment.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DRIVER_ARTIFACTCACHE_H
#define EJK_DRIVER_ARTIFACTCACHE_H

#include "ejk/Driver/Compiler.h"
#include "ejk/Store/Artifacts/CacheEntry.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::ejk {

/// The compiler's identity in cache keys and entries: the release version
/// plus a hash of the compiler's sources at build time, so that any change
/// to the compiler (committed or not) changes every key.
StringRef compilerVersion();

/// What an entry was compiled for (ejk/Store/Artifacts/CacheEntry.h).
using ::ejk::ArtifactKey;

/// Computes the key of a kernel: \p canonicalIR is the module after config
/// selection and tiling, printed in generic form without locations;
/// \p codegenOptions is everything else that changes the code (host triple,
/// CPU name, features, vector width), one `key=value` per line.
ArtifactKey makeArtifactKey(StringRef canonicalIR, StringRef target,
                            StringRef fingerprint, StringRef codegenOptions);

/// Prints \p module in the canonical form that keys hash: generic op form,
/// no locations.
std::string printCanonicalIR(ModuleOp module);

/// Totals of an artifact cache directory.
struct ArtifactCacheStats {
  std::string directory;
  uint64_t entries = 0;
  /// Bytes of the files of all entries.
  uint64_t bytes = 0;
  uint64_t maxBytes = 0;
  /// Leftover temporary directories of interrupted stores.
  uint64_t temporaries = 0;
};

class ArtifactCache {
public:
  /// The file that describes an entry.
  static constexpr const char *kEntryFile = ::ejk::kCacheEntryFile;
  static constexpr uint64_t kDefaultMaxBytes = ::ejk::kDefaultCacheMaxBytes;

  /// A cache under `<root>/artifacts` holding at most \p maxBytes (0: the
  /// cache is off for compileCached). Nothing is touched until it is used.
  ArtifactCache(std::string root, uint64_t maxBytes = kDefaultMaxBytes);

  /// The cache the environment names: root $EJK_CACHE_DIR, else
  /// $XDG_CACHE_HOME/ejk, else $HOME/.cache/ejk; bound EJK_CACHE_MAX_MB
  /// (mebibytes). An unusable setting is reported in \p warnings and the
  /// default used; with no root at all the cache is disabled.
  static ArtifactCache fromEnvironment(std::vector<std::string> &warnings);

  /// `<root>/artifacts`.
  const std::string &directory() const { return directory_; }
  uint64_t maxBytes() const { return maxBytes_; }
  bool enabled() const { return !directory_.empty(); }

  /// The verified entry directory of \p key, or nullopt when there is none
  /// or it must not be used (missing or extra files, a size or hash that does
  /// not match, another target, fingerprint or compiler version, not
  /// private); \p whyNot then says why when an entry existed. A hit marks the
  /// entry as used now (for LRU eviction).
  std::optional<std::string>
  lookup(const ArtifactKey &key, std::string *whyNot = nullptr,
         ::ejk::VerifiedEntry *contents = nullptr) const;

  /// Creates the cache directory (0700) if needed and checks that it is a
  /// private directory of this user that can be written.
  llvm::Error prepare() const;

  /// A new private temporary directory inside the cache to build an entry
  /// in (same file system, so publish() can rename it).
  llvm::Expected<std::string> createStagingDirectory() const;

  /// Publishes the files in \p staging (built by the caller) as the entry of
  /// \p key: makes them private, writes entry.json with their hashes and
  /// renames the directory into place. If another process published the key
  /// first, \p staging is removed and the existing entry used when it
  /// verifies; an invalid existing entry is replaced. Then evicts least
  /// recently used entries beyond the size bound (never this one). Returns
  /// the entry directory. On failure \p staging is left to the caller.
  llvm::Expected<std::string> publish(const ArtifactKey &key,
                                      StringRef staging) const;

  /// Removes least recently used entries until the cache holds at most
  /// \p maxBytes, never removing \p keep. Returns the number removed.
  uint64_t evict(uint64_t maxBytes, StringRef keep = "") const;

  ArtifactCacheStats stats() const;

  /// Removes every entry and leftover temporary directory. Returns the
  /// number of entries removed.
  llvm::Expected<uint64_t> clear() const;

private:
  std::string directory_;
  uint64_t maxBytes_;
};

/// An exclusive lock on compiling one key (flock(2) on
/// `<cache>/artifacts/locks/<key>`): the first process to miss compiles
/// while the others wait, then take its entry. Released when destroyed,
/// and by the kernel when its process dies.
class ArtifactCacheLock {
public:
  ArtifactCacheLock() = default;
  ArtifactCacheLock(ArtifactCacheLock &&other) noexcept;
  ArtifactCacheLock &operator=(ArtifactCacheLock &&other) noexcept;
  ArtifactCacheLock(const ArtifactCacheLock &) = delete;
  ArtifactCacheLock &operator=(const ArtifactCacheLock &) = delete;
  ~ArtifactCacheLock();

  /// Takes the lock of \p key in \p cache, waiting at most
  /// \p timeoutSeconds for another holder. Not held when the cache cannot
  /// hold locks (disabled, read-only) or the wait timed out; \p waited
  /// says whether another process held it meanwhile.
  static ArtifactCacheLock acquire(const ArtifactCache &cache,
                                   const ArtifactKey &key,
                                   double timeoutSeconds, bool &waited);

  bool held() const { return fd_ >= 0; }
  /// Removes the lock file (once the entry is published, so that the
  /// directory does not fill with them) and releases the lock.
  void releaseAndRemove();

private:
  int fd_ = -1;
  std::string path_;
};

/// How long a process that misses waits for another one compiling the same
/// key before compiling itself: $EJK_CACHE_LOCK_TIMEOUT seconds, default
/// 300 (a malformed value gives the default).
double artifactCacheLockTimeout();

/// The outcome of compileCached.
struct CachedArtifact {
  /// The artifact's manifest: in the cache, or in temporaryDirectory.
  std::string manifestPath;
  std::string key;
  /// Served from the cache without compiling.
  bool hit = false;
  /// When the cache could not be used: a directory holding the artifact
  /// that the caller removes when done with it.
  std::string temporaryDirectory;
  /// The entry's files as verified (empty when the artifact is not in the
  /// cache): load these (ejk_module_load_files), not manifestPath, so that
  /// what runs is what was hashed.
  ::ejk::VerifiedEntry verified;
  /// Whether this process waited for another one compiling the same key
  /// (and then took its entry).
  bool waited = false;
  /// Cache problems that did not stop the compile (unusable directory,
  /// rejected entry), one line each, for the tool to print.
  std::vector<std::string> warnings;
  /// Seconds spent computing the key (tiling included), looking up, and
  /// compiling on a miss.
  double keySeconds = 0, lookupSeconds = 0, compileSeconds = 0;
  CompileTimings timings;
};

/// Copies the artifact whose manifest is \p manifestPath to
/// `<outDir>/<name>.json` + `<outDir>/<name>.so` (CPU: the manifest's
/// `library` renamed) or `<outDir>/<name>_<dispatch>.spv` per dispatch
/// (Vulkan: each `spirv` renamed), each written to a temporary file and
/// renamed into place. Returns the new manifest's path.
llvm::Expected<std::string> exportArtifact(StringRef manifestPath,
                                           StringRef outDir, StringRef name);

/// Compiles \p module for `options.target` (the host CPU, or the Vulkan
/// device `options.device`) through \p cache: computes the key (IR after
/// config selection, target, the device's fingerprint) from a copy of the
/// module, returns the verified entry on a
/// hit, and otherwise compiles (in place) and stores the result. A cache
/// that cannot be used (disabled, read-only, not private) gives a warning
/// and a compile into a temporary directory, not a failure. Compilation
/// errors are emitted as diagnostics on the module.
FailureOr<CachedArtifact> compileCached(ModuleOp module,
                                        const CompileOptions &options,
                                        const ArtifactCache &cache);

} // namespace mlir::ejk

#endif // EJK_DRIVER_ARTIFACTCACHE_H
