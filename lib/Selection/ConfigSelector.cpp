//===- ConfigSelector.cpp - ejKernel's config selection tiers -------------===//

#include "ejk/Selection/ConfigSelector.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {
/// A config already on the op wins: the user (or an earlier pass) chose it.
class OverrideTier : public ConfigTier {
public:
  StringRef getName() const override { return "override"; }
  ConfigAttr lookup(TunableOpInterface op, const TargetInfo &) override {
    return op.getSelectedConfig();
  }
};

/// The op's own heuristic: always answers.
class HeuristicTier : public ConfigTier {
public:
  StringRef getName() const override { return "heuristic"; }
  ConfigAttr lookup(TunableOpInterface op, const TargetInfo &target) override {
    return op.getHeuristicConfig(target);
  }
};
} // namespace

ConfigSelector::ConfigSelector()
    : overrideTier(std::make_unique<OverrideTier>()),
      heuristicTier(std::make_unique<HeuristicTier>()) {}

ConfigSelector::~ConfigSelector() = default;

void ConfigSelector::addTier(std::unique_ptr<ConfigTier> tier) {
  middleTiers.push_back(std::move(tier));
}

FailureOr<SelectedConfig> ConfigSelector::select(TunableOpInterface op,
                                                 const TargetInfo &target) {
  SmallVector<ConfigTier *> tiers = {overrideTier.get()};
  for (auto &tier : middleTiers)
    tiers.push_back(tier.get());
  tiers.push_back(heuristicTier.get());

  for (ConfigTier *tier : tiers) {
    ConfigAttr config = tier->lookup(op, target);
    if (!config)
      continue;
    std::string reason;
    llvm::raw_string_ostream os(reason);
    if (failed(op.verifyConfig(config, target, os))) {
      if (!tier->isAuthoritative()) {
        op->emitWarning("ignoring config ")
            << config << " from the " << tier->getName()
            << " tier, invalid for this target: " << reason;
        continue;
      }
      return op->emitOpError("config ")
             << config << " from the " << tier->getName()
             << " tier is invalid for this target: " << reason;
    }
    return SelectedConfig{config, tier->getName().str()};
  }
  // The heuristic tier always answers where the op has a kernel; say why
  // it did not (an op with no kernel on this target).
  std::string reason;
  llvm::raw_string_ostream os(reason);
  if (succeeded(op.verifyConfig(ConfigAttr(), target, os)) || reason.empty())
    return op->emitOpError("no config tier produced a config");
  return op->emitOpError("no config tier produced a config: ") << reason;
}
