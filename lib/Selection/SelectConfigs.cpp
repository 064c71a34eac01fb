//===- SelectConfigs.cpp - the ejk-select-configs pass --------------------===//

#include "ejk/Selection/ConfigSelector.h"
#include "ejk/Selection/Passes.h"
#include "ejk/Selection/Selection.h"
#include "ejk/Support/FileIO.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"

#include <fstream>
#include <sstream>

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKSELECTCONFIGS
#include "ejk/Selection/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;
using namespace mlir::ejk;

/// Reads the fingerprint that the `fingerprint` option names.
static LogicalResult readFingerprint(StringRef spec,
                                     ::ejk::DeviceFingerprint &fingerprint,
                                     std::string &error) {
  if (spec == "host") {
    fingerprint = ::ejk::hostCpuFingerprint();
    return success();
  }
  std::string text, why;
  ::ejk::ReadFailure cause = ::ejk::ReadFailure::None;
  if (!::ejk::readRegularFile(spec.str(), text, why, {}, &cause)) {
    error = "cannot read fingerprint file '" + spec.str() + "'";
    if (cause != ::ejk::ReadFailure::NotFound)
      error += ": " + why;
    return failure();
  }
  if (!::ejk::DeviceFingerprint::parse(text, fingerprint, why)) {
    error = "fingerprint file '" + spec.str() + "': " + why;
    return failure();
  }
  return success();
}

namespace {
struct SelectConfigsPass
    : public mlir::ejk::impl::EjkSelectConfigsBase<SelectConfigsPass> {
  using Base::Base;

  SelectConfigsPass(const EjkSelectConfigsOptions &options,
                    std::shared_ptr<const ConfigSelectionOptions> selection)
      : Base(options), injected(std::move(selection)) {}

  /// The tier setup from the pass options (ejk-opt) and the environment.
  LogicalResult selectionFromOptions(ConfigSelectionOptions &selection,
                                     std::string &error) {
    if (!configOverlay.empty() && !::ejk::ConfigOverlay::readFile(
                                      configOverlay, selection.overlay, error))
      return failure();
    if (!fingerprint.empty()) {
      ::ejk::DeviceFingerprint device;
      if (failed(readFingerprint(fingerprint, device, error)))
        return failure();
      selection.fingerprint = device;
    }
    selection.cacheDir = cacheDir;
    if (policy.empty()
            ? !::ejk::autotunePolicyFromEnv(::ejk::AutotunePolicy::Heuristics,
                                            selection.policy, error)
            : !::ejk::parseAutotunePolicy(policy, selection.policy, error))
      return failure();
    selection.record = record;
    if (record && !selection.fingerprint) {
      error = "'record' needs a device: give 'fingerprint=host' or a "
              "fingerprint file";
      return failure();
    }
    return success();
  }

  /// The target's facts: the options, or the fingerprint's with the options
  /// given explicitly on top.
  FailureOr<TargetInfo> targetFacts(const ConfigSelectionOptions &selection,
                                    std::string &error) {
    FailureOr<TargetInfo> info = makeTargetInfo(
        target, vectorBits, numCores, l2Bytes, subgroupSize, sharedMemoryBytes,
        cooperativeMatrix, spirvVersion, vulkanFeatures, error);
    if (failed(info))
      return failure();
    if (!selection.fingerprint)
      return info;
    FailureOr<TargetInfo> device =
        targetInfoFromFingerprint(*selection.fingerprint, error);
    if (failed(device))
      return failure();
    if (device->kind != info->kind) {
      error = "the fingerprint is of a " + selection.fingerprint->kind +
              " device but the target is '" + target + "'";
      return failure();
    }
    if (injected) {
      // The driver sets every CPU option; only the caches are the
      // fingerprint's to tell. A Vulkan target is the fingerprint's.
      if (device->isVulkan())
        return device;
      info->l1Bytes = device->l1Bytes;
      info->l2Bytes = device->l2Bytes;
      return info;
    }
    if (vectorBits.hasValue())
      device->vectorBits = vectorBits;
    if (numCores.hasValue())
      device->numCores = numCores;
    if (l2Bytes.hasValue())
      device->l2Bytes = l2Bytes;
    if (subgroupSize.hasValue())
      device->subgroupSize = subgroupSize;
    if (sharedMemoryBytes.hasValue())
      device->sharedMemoryBytes = sharedMemoryBytes;
    if (cooperativeMatrix.hasValue())
      device->hasCooperativeMatrix = cooperativeMatrix;
    if (device->isVulkan() &&
        (spirvVersion.hasValue() || vulkanFeatures.hasValue())) {
      TargetInfo explicitOptions = *device;
      if (failed(applyVulkanOptions(explicitOptions, spirvVersion,
                                    vulkanFeatures, error)))
        return failure();
      if (spirvVersion.hasValue())
        device->spirvVersion = explicitOptions.spirvVersion;
      if (vulkanFeatures.hasValue())
        device->vulkanFeatures = explicitOptions.vulkanFeatures;
    }
    return device;
  }

  void runOnOperation() override {
    Operation *root = getOperation();
    std::string error;
    auto fail = [&] {
      root->emitError("ejk-select-configs: ") << error;
      signalPassFailure();
    };
    ConfigSelectionOptions local;
    if (!injected && failed(selectionFromOptions(local, error)))
      return fail();
    const ConfigSelectionOptions &selection = injected ? *injected : local;
    bool logTiers = false;
    if (!::ejk::logAutotuneFromEnv(logTiers, error))
      return fail();
    logTiers = logTiers || explain || selection.explain;

    FailureOr<TargetInfo> info = targetFacts(selection, error);
    if (failed(info))
      return fail();
    FailureOr<std::unique_ptr<ConfigSelector>> selector =
        buildConfigSelector(selection, error);
    if (failed(selector))
      return fail();

    // Record the target so later passes compile for the same one.
    if (auto module = dyn_cast<ModuleOp>(root))
      module->setAttr(kTargetAttrName, targetInfoToAttr(&getContext(), *info));
    std::string recordPath;
    if (selection.record && selection.fingerprint)
      recordPath =
          recordFilePath(selection.resolvedCacheDir(), *selection.fingerprint);
    WalkResult result = root->walk([&](TunableOpInterface op) {
      if (!recordPath.empty() && failed(recordProblem(op, recordPath, error)))
        op->emitWarning("cannot record the problem: ") << error;
      FailureOr<SelectedConfig> selected = (*selector)->select(op, *info);
      if (failed(selected))
        return WalkResult::interrupt();
      op.setSelectedConfig(selected->config);
      if (logTiers)
        op->emitRemark("config ")
            << selected->config << " from the " << selected->tier
            << " tier for " << op.getProblemKey();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  std::shared_ptr<const ConfigSelectionOptions> injected;
};
} // namespace

std::unique_ptr<Pass> mlir::ejk::createEjkSelectConfigs(
    const EjkSelectConfigsOptions &options,
    std::shared_ptr<const ConfigSelectionOptions> selection) {
  return std::make_unique<SelectConfigsPass>(options, std::move(selection));
}
