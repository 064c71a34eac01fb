//===- Selection.h - how config selection is set up -------------*- C++ -*-===//
//
// Builds the full tier chain of ejKernel:
//
//   override -> overlay -> cache -> database -> autotune -> heuristic
//
// from a ConfigSelectionOptions that the tools fill from their flags and the
// environment. The autotune tier only exists when the policy allows it, and
// runs through the ProblemTuner interface so that config selection does not
// depend on the compiler driver that the autotuner needs.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SELECTION_SELECTION_H
#define EJK_SELECTION_SELECTION_H

#include "ejk/Selection/ConfigSelector.h"
#include "ejk/Store/Tuning/ConfigOverlay.h"
#include "ejk/Store/Tuning/Policy.h"
#include "ejk/Store/Tuning/TuningDatabase.h"
#include "ejk/Support/Fingerprint.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace mlir::ejk {

/// The engine of the autotune tier: finds the best config of one problem on
/// the device and stores it in the tuning database.
class ProblemTuner {
public:
  virtual ~ProblemTuner();
  /// Tunes `op` (only its problem: the op is not changed) for `target` on
  /// the device `device` describes (the selection's fingerprint). Returns
  /// the winner, or nullopt after emitting a diagnostic on `op`.
  virtual std::optional<::ejk::ConfigValues>
  tune(TunableOpInterface op, const TargetInfo &target,
       const ::ejk::DeviceFingerprint &device) = 0;
};

/// Tuned configs remembered in this process, by fingerprint and problem
/// key, so that repeated problems skip the database file.
class ConfigCache {
public:
  std::optional<::ejk::ConfigValues> lookup(const std::string &fingerprintHash,
                                            const std::string &problemKey);
  void insert(const std::string &fingerprintHash, const std::string &problemKey,
              const ::ejk::ConfigValues &config);
  void clear();
  /// The process-wide cache the tools use.
  static ConfigCache &global();

private:
  std::mutex mutex;
  std::map<std::pair<std::string, std::string>, ::ejk::ConfigValues> configs;
};

/// Which tiers a selection uses and where they look.
struct ConfigSelectionOptions {
  ::ejk::AutotunePolicy policy = ::ejk::AutotunePolicy::Heuristics;
  /// An overlay from a file (`--config-overlay`), asked after the active
  /// ConfigOverlayScopes.
  ::ejk::ConfigOverlay overlay;
  /// The device whose cache and tuning database are consulted; without one
  /// there are no cache and database tiers.
  std::optional<::ejk::DeviceFingerprint> fingerprint;
  /// Root of the caches; "" means ejk::defaultCacheDirectory().
  std::string cacheDir;
  /// The in-process cache; null means ConfigCache::global().
  ConfigCache *cache = nullptr;
  /// The autotune tier's engine; required when the policy is autotune.
  std::shared_ptr<ProblemTuner> tuner;
  /// Skip the cache and the database (re-tune what they hold).
  bool skipStoredConfigs = false;
  /// Emit a remark per op naming the tier that answered.
  bool explain = false;
  /// Append each problem compiled to the device's record file, for
  /// `ejk-tune --recorded`.
  bool record = false;

  std::string resolvedCacheDir() const;
};

/// Builds the selector for `options`. Fails with a message when the
/// options contradict each other (autotune without a tuner or fingerprint).
FailureOr<std::unique_ptr<ConfigSelector>>
buildConfigSelector(const ConfigSelectionOptions &options, std::string &error);

/// Conversions between `#ejk.config` and plain values.
ConfigAttr toConfigAttr(MLIRContext *context,
                        const ::ejk::ConfigValues &values);
::ejk::ConfigValues toConfigValues(ConfigAttr config);

/// The TargetInfo a fingerprint describes. CPU: `vector_bits`, `cores`,
/// `l1_cache`, `l2_cache` (sizes like "48K" or "1M"). Vulkan (the runtime's
/// keys, docs/runtime.md): `subgroup_size`, `max_shared_memory`,
/// `max_workgroup_invocations`, `max_workgroup_size` ("x,y,z"),
/// `spirv_version`, the 0/1 flags `float16`, `float64`, `int8`, `int16`,
/// `int64`, `storage16`, `storage8`, `vulkan_memory_model`,
/// `subgroup_operations` (a list) and `cooperative_matrix=1` with
/// `cooperative_matrix_shapes` containing "16x16x16:f16*f16+f32=f32". Fields
/// that are absent keep the generic defaults; fields that do not parse are
/// an error.
FailureOr<TargetInfo>
targetInfoFromFingerprint(const ::ejk::DeviceFingerprint &fingerprint,
                          std::string &error);

/// A module with one function `@<entryName>` whose arguments are `op`'s
/// operands and whose results are its results, holding a copy of `op`
/// (without its config): the problem on its own, for the autotuner and the
/// record file. Fails when an operand or result is not a ranked tensor.
FailureOr<OwningOpRef<ModuleOp>> extractProblem(TunableOpInterface op,
                                                StringRef entryName);

/// `<cacheDir>/tuning/<fingerprint hash>.recorded.jsonl`.
std::string recordFilePath(const std::string &cacheDir,
                           const ::ejk::DeviceFingerprint &fingerprint);

/// Appends `op`'s problem (key + the IR of `extractProblem`) to the record
/// file, under its lock.
LogicalResult recordProblem(TunableOpInterface op, const std::string &path,
                            std::string &error);

/// A recorded problem.
struct RecordedProblem {
  std::string key;
  std::string ir;
};

/// The problems of a record file, one per key (the last recorded wins).
/// A missing file holds none; malformed lines are reported and skipped.
std::vector<RecordedProblem>
readRecordedProblems(const std::string &path,
                     std::vector<std::string> &warnings);

} // namespace mlir::ejk

#endif // EJK_SELECTION_SELECTION_H
