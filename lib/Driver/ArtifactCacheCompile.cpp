//===- ArtifactCacheCompile.cpp - compiling through the artifact cache ----===//
//
// The key of a kernel is computed from the module after config selection
// and tiling: that form names every config the selector chose (from any
// tier), while formatting, comments, SSA names and locations of the input do
// not matter. On a miss the original module is compiled into a staging
// directory of the cache and published.
//
//===----------------------------------------------------------------------===//

#include "ejk/Driver/ArtifactCache.h"

#include "ejk/Support/Fingerprint.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
using namespace mlir::ejk;

/// The name of the artifact inside a cache entry.
static constexpr const char *kArtifactName = ::ejk::kCacheArtifactName;

std::string mlir::ejk::printCanonicalIR(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  flags.printGenericOpForm().enableDebugInfo(false);
  module->print(os, flags);
  return text;
}

ArtifactKey mlir::ejk::makeArtifactKey(StringRef canonicalIR, StringRef target,
                                       StringRef fingerprint,
                                       StringRef codegenOptions) {
  ArtifactKey key;
  key.target = target.str();
  key.fingerprint = fingerprint.str();
  key.compilerVersion = compilerVersion().str();
  // Length-prefixed fields, so that no two different inputs hash the same
  // byte stream.
  llvm::BLAKE3 hasher;
  for (StringRef field :
       {StringRef("ejk-artifact-key-v1"), target, fingerprint,
        StringRef(key.compilerVersion), codegenOptions, canonicalIR}) {
    hasher.update(std::to_string(field.size()) + ":");
    hasher.update(field);
  }
  auto digest = hasher.final<16>();
  key.hash = llvm::toHex(digest, /*LowerCase=*/true);
  return key;
}

namespace {
double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// What changes the generated code besides the IR: the host as LLVM sees it
/// (features sorted, so the map order of the query does not matter) and the
/// vector width.
std::string codegenOptionsText(const CompileOptions &options) {
  // SPIR-V depends on the device only, whose fingerprint is in the key.
  if (options.target == "vulkan")
    return "spirv\n";
  HostCpu host = detectHostCpu();
  SmallVector<StringRef> features;
  StringRef(host.features).split(features, ',', -1, /*KeepEmpty=*/false);
  llvm::sort(features);
  return "triple=" + host.triple + "\ncpu=" + host.cpuName +
         "\nfeatures=" + llvm::join(features, ",") +
         "\nvector-bits=" + std::to_string(options.vectorBits) + "\n";
}
} // namespace

FailureOr<CachedArtifact>
mlir::ejk::compileCached(ModuleOp module, const CompileOptions &options,
                         const ArtifactCache &cache) {
  CachedArtifact result;

  // The key, from a copy after config selection: the configs chosen, the
  // target and the ops determine everything later stages produce. The same
  // copy is what gets compiled on a miss (its configs are kept by the
  // override tier), so the artifact always matches its key even when the
  // tuning database changes meanwhile.
  auto start = std::chrono::steady_clock::now();
  OwningOpRef<ModuleOp> selected = module.clone();
  CompileOptions selectOnly = options;
  selectOnly.dumpAfterTiling = nullptr;
  selectOnly.dumpLLVMIR = nullptr;
  selectOnly.stopAfterSelection = true;
  std::string unused;
  if (failed(compileArtifact(*selected, selectOnly, "", kArtifactName, unused)))
    return failure();
  bool vulkan = options.target == "vulkan";
  ArtifactKey key = makeArtifactKey(printCanonicalIR(*selected), options.target,
                                    vulkan ? options.device->hash()
                                           : ::ejk::hostCpuFingerprint().hash(),
                                    codegenOptionsText(options));
  result.key = key.hash;
  result.keySeconds = secondsSince(start);

  // A verified entry.
  start = std::chrono::steady_clock::now();
  // A bound of 0 switches the cache off: nothing is looked up or stored.
  std::string whyNot;
  std::optional<std::string> entry;
  if (cache.maxBytes() != 0)
    entry = cache.lookup(key, &whyNot, &result.verified);
  // A miss: compile once across processes. The first to miss holds the
  // key's lock while it compiles and stores; the others wait for it and
  // then take its entry instead of compiling the same code again.
  ArtifactCacheLock lock;
  if (!entry && cache.maxBytes() != 0) {
    double timeout = artifactCacheLockTimeout();
    lock = ArtifactCacheLock::acquire(cache, key, timeout, result.waited);
    if (result.waited && !lock.held())
      result.warnings.push_back(
          "waited " + std::to_string(int(timeout)) +
          " s (EJK_CACHE_LOCK_TIMEOUT) for another process compiling " +
          key.hash + "; compiling it here too");
    // Look again once the lock is ours: the holder we waited for, or one
    // that finished between our lookup and our lock, stored the entry.
    if (lock.held() || result.waited) {
      whyNot.clear();
      entry = cache.lookup(key, &whyNot, &result.verified);
    }
  }
  result.lookupSeconds = secondsSince(start);
  if (!whyNot.empty())
    result.warnings.push_back(whyNot + "; recompiling");
  if (entry) {
    result.hit = true;
    SmallString<256> manifest(*entry);
    llvm::sys::path::append(manifest, Twine(kArtifactName) + ".json");
    result.manifestPath = std::string(manifest);
    return result;
  }

  // Compile into a staging directory of the cache, or a temporary one.
  start = std::chrono::steady_clock::now();
  std::string directory;
  bool stored = false;
  if (cache.maxBytes() == 0) {
    // Storing is switched off; compile aside without a warning.
  } else if (llvm::Expected<std::string> staging =
                 cache.createStagingDirectory()) {
    directory = *staging;
    stored = true;
  } else {
    result.warnings.push_back(
        "artifact cache not used: " + llvm::toString(staging.takeError()) +
        "; compiling into a temporary directory");
  }
  if (!stored) {
    SmallString<128> temporary;
    if (std::error_code ec =
            llvm::sys::fs::createUniqueDirectory("ejk-artifact", temporary))
      return module.emitError("cannot create a temporary directory: ")
             << ec.message();
    directory = std::string(temporary);
    result.temporaryDirectory = directory;
  }
  CompileOptions compile = options;
  std::string manifestPath;
  if (failed(compileArtifact(*selected, compile, directory, kArtifactName,
                             manifestPath, &result.timings))) {
    llvm::sys::fs::remove_directories(directory, /*IgnoreErrors=*/true);
    return failure();
  }
  result.compileSeconds = secondsSince(start);
  result.manifestPath = manifestPath;
  if (!stored)
    return result;
  llvm::Expected<std::string> published = cache.publish(key, directory);
  if (!published) {
    // The staging directory still holds the artifact: use it from there.
    result.warnings.push_back("artifact not stored in the cache: " +
                              llvm::toString(published.takeError()));
    result.temporaryDirectory = directory;
    return result;
  }
  SmallString<256> manifest(*published);
  llvm::sys::path::append(manifest, Twine(kArtifactName) + ".json");
  result.manifestPath = std::string(manifest);
  // The bytes to load, verified like any hit (the entry may be another
  // process's that won the publish race). Without them the caller loads
  // manifestPath.
  (void)cache.lookup(key, nullptr, &result.verified);
  lock.releaseAndRemove();
  return result;
}
