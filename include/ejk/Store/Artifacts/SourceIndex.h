//===- SourceIndex.h - artifacts by source file and flags -------*- C++ -*-===//
//
// The artifact cache is keyed by the IR after config selection, which only
// the compiler can compute. The source index lets `ejk-run`'s front (no
// MLIR) find an artifact without it: a source-level key (SHA-256 of the
// input file's bytes, the flags that change compilation, the config overlay
// and tuning database contents, EJK_AUTOTUNE_POLICY, the target device's
// fingerprint text and the compiler version) names a small file in
// `<cache>/artifacts/source-index/` that holds the artifact key and the
// entry's signature. `ejk-run-compile` writes it after a cached compile; the
// front reads it, then verifies the artifact entry like any lookup
// (ejk/Store/Artifacts/CacheEntry.h). Anything that does not check out is a
// miss.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_STORE_ARTIFACTS_SOURCEINDEX_H
#define EJK_STORE_ARTIFACTS_SOURCEINDEX_H

#include "ejk/Store/Artifacts/CacheEntry.h"
#include "ejk/Support/EntrySignature.h"
#include "ejk/Support/Fingerprint.h"

#include <string>

namespace ejk {

/// The fingerprint of the device `ejk_device_create(target)` opens: the
/// host CPU, or the Vulkan device the runtime picks (EJK_VULKAN_DEVICE
/// selects one). Fails with the runtime's message.
bool runtimeDeviceFingerprint(const std::string &target,
                              DeviceFingerprint &fingerprint,
                              std::string &error);

/// The flags of a run that change what is compiled.
struct SourceKeyRequest {
  std::string inputPath;
  std::string entry;
  /// "cpu" or "vulkan".
  std::string target;
  /// --vector-bits (0: the host's).
  unsigned vectorBits = 0;
  /// --config-overlay, or "".
  std::string overlayPath;
};

/// The source-level key of \p request for \p device (64 hex digits). Reads
/// the input file, the overlay and the device's tuning database; fails
/// when one that exists cannot be read.
bool computeSourceKey(const SourceKeyRequest &request,
                      const DeviceFingerprint &device, std::string &key,
                      std::string &error);

/// One index file: the artifact a source key compiles to and the signature
/// of the entry run from it.
struct SourceIndexRecord {
  std::string sourceKey;
  ArtifactKey artifact;
  std::string entry;
  EntrySignature signature;
};

/// Reads and checks the record of \p sourceKey in \p artifactsDir. False
/// on a miss; \p why then says why when a file existed but was rejected
/// (damaged, foreign, not private).
bool readSourceIndex(const std::string &artifactsDir,
                     const std::string &sourceKey, SourceIndexRecord &record,
                     std::string &why);

/// Writes \p record (0600, in a 0700 directory created if needed) through
/// a temporary file and a rename, replacing any previous one.
bool writeSourceIndex(const std::string &artifactsDir,
                      const SourceIndexRecord &record, std::string &error);

} // namespace ejk

#endif // EJK_STORE_ARTIFACTS_SOURCEINDEX_H
