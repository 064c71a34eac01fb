//===- ConfigSelector.h - ejKernel's config selection tiers -----*- C++ -*-===//
//
// Config selection asks a chain of tiers in order; the first that answers
// wins. The chain is: override (a config already on the op) -> [overlay ->
// in-memory cache -> tuning database -> autotuner] -> heuristic. The
// bracketed tiers plug in as further ConfigTier implementations
// (ejk/Selection/Selection.h builds the full chain).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SELECTION_CONFIGSELECTOR_H
#define EJK_SELECTION_CONFIGSELECTOR_H

#include "ejk/Dialect/Ejk/EjkOps.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir::ejk {

/// One source of configs.
class ConfigTier {
public:
  virtual ~ConfigTier() = default;
  /// The tier's name, as reported by `explain` remarks.
  virtual StringRef getName() const = 0;
  /// Returns a config for `op`, or a null attribute when this tier has no
  /// answer and the next tier should be asked.
  virtual ConfigAttr lookup(TunableOpInterface op,
                            const TargetInfo &target) = 0;
  /// Whether an invalid answer is an error. Tiers that replay stored
  /// answers (cache, database) return false: a stale entry is reported as a
  /// warning and the next tier is asked, so a damaged cache never fails a
  /// compile.
  virtual bool isAuthoritative() const { return true; }
};

/// A config and the tier that chose it.
struct SelectedConfig {
  ConfigAttr config;
  std::string tier;
};

/// Asks its tiers in order and checks the answer against the target.
class ConfigSelector {
public:
  /// A selector with the override tier first and the heuristic last; tiers
  /// added with `addTier` go between them, in the order added.
  ConfigSelector();
  ~ConfigSelector();

  void addTier(std::unique_ptr<ConfigTier> tier);

  /// Selects a config for `op`. Emits an error on `op` and fails when no
  /// tier answers or when the answer is invalid for `target`.
  FailureOr<SelectedConfig> select(TunableOpInterface op,
                                   const TargetInfo &target);

private:
  std::unique_ptr<ConfigTier> overrideTier;
  std::vector<std::unique_ptr<ConfigTier>> middleTiers;
  std::unique_ptr<ConfigTier> heuristicTier;
};

} // namespace mlir::ejk

#endif // EJK_SELECTION_CONFIGSELECTOR_H
