//===- Tiers.cpp - overlay, cache, database and autotune tiers ------------===//
//
// The tiers between the override and the heuristic, and the function that
// chains them according to a ConfigSelectionOptions.
//
//===----------------------------------------------------------------------===//

#include "ejk/Selection/Selection.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::ejk;

ProblemTuner::~ProblemTuner() = default;

//===----------------------------------------------------------------------===//
// ConfigCache
//===----------------------------------------------------------------------===//

std::optional<::ejk::ConfigValues>
ConfigCache::lookup(const std::string &fingerprintHash,
                    const std::string &problemKey) {
  std::lock_guard<std::mutex> guard(mutex);
  auto it = configs.find({fingerprintHash, problemKey});
  if (it == configs.end())
    return std::nullopt;
  return it->second;
}

void ConfigCache::insert(const std::string &fingerprintHash,
                         const std::string &problemKey,
                         const ::ejk::ConfigValues &config) {
  std::lock_guard<std::mutex> guard(mutex);
  configs[{fingerprintHash, problemKey}] = config;
}

void ConfigCache::clear() {
  std::lock_guard<std::mutex> guard(mutex);
  configs.clear();
}

ConfigCache &ConfigCache::global() {
  static ConfigCache cache;
  return cache;
}

//===----------------------------------------------------------------------===//
// Conversions
//===----------------------------------------------------------------------===//

ConfigAttr mlir::ejk::toConfigAttr(MLIRContext *context,
                                   const ::ejk::ConfigValues &values) {
  SmallVector<std::pair<StringRef, int64_t>> entries;
  for (const auto &[name, value] : values)
    entries.emplace_back(name, value);
  return ConfigAttr::get(context, entries);
}

::ejk::ConfigValues mlir::ejk::toConfigValues(ConfigAttr config) {
  ::ejk::ConfigValues values;
  for (NamedAttribute entry : config.getEntries())
    values[entry.getName().str()] =
        cast<IntegerAttr>(entry.getValue()).getInt();
  return values;
}

std::string ConfigSelectionOptions::resolvedCacheDir() const {
  return cacheDir.empty() ? ::ejk::defaultCacheDirectory() : cacheDir;
}

//===----------------------------------------------------------------------===//
// Tiers
//===----------------------------------------------------------------------===//

namespace {
/// Configs the caller chose for a scope (ConfigOverlayScope) or a run of a
/// tool (the overlay file), by problem key or op name.
class OverlayTier : public ConfigTier {
public:
  explicit OverlayTier(::ejk::ConfigOverlay fileOverlay)
      : fileOverlay(std::move(fileOverlay)) {}
  StringRef getName() const override { return "overlay"; }
  ConfigAttr lookup(TunableOpInterface op, const TargetInfo &) override {
    std::string key = op.getProblemKey();
    std::optional<::ejk::ConfigValues> values =
        ::ejk::ConfigOverlayScope::lookupActive(key);
    if (!values)
      values = fileOverlay.lookup(key);
    return values ? toConfigAttr(op->getContext(), *values) : ConfigAttr();
  }

private:
  ::ejk::ConfigOverlay fileOverlay;
};

/// Tuned configs this process has already seen for the device.
class CacheTier : public ConfigTier {
public:
  CacheTier(ConfigCache &cache, std::string fingerprintHash)
      : cache(cache), fingerprintHash(std::move(fingerprintHash)) {}
  StringRef getName() const override { return "cache"; }
  bool isAuthoritative() const override { return false; }
  ConfigAttr lookup(TunableOpInterface op, const TargetInfo &) override {
    std::optional<::ejk::ConfigValues> values =
        cache.lookup(fingerprintHash, op.getProblemKey());
    return values ? toConfigAttr(op->getContext(), *values) : ConfigAttr();
  }

private:
  ConfigCache &cache;
  std::string fingerprintHash;
};

/// The persistent tuning database of the device. Problems in the file
/// (read once per selector) also go to the in-process cache.
class DatabaseTier : public ConfigTier {
public:
  DatabaseTier(std::string cacheDir, ::ejk::DeviceFingerprint fingerprint,
               ConfigCache &cache)
      : database(std::move(cacheDir), fingerprint), cache(cache),
        fingerprintHash(fingerprint.hash()) {}
  StringRef getName() const override { return "database"; }
  bool isAuthoritative() const override { return false; }
  ConfigAttr lookup(TunableOpInterface op, const TargetInfo &) override {
    std::vector<std::string> warnings;
    std::string key = op.getProblemKey();
    std::optional<::ejk::TuningEntry> entry = database.lookup(key, warnings);
    // Report a damaged file once, on the op that found it.
    for (const std::string &warning : warnings)
      op->emitWarning(warning);
    if (!entry)
      return ConfigAttr();
    cache.insert(fingerprintHash, key, entry->config);
    return toConfigAttr(op->getContext(), entry->config);
  }

private:
  ::ejk::TuningDatabase database;
  ConfigCache &cache;
  std::string fingerprintHash;
};

/// Autotunes the problem (the tuner stores the winner in the database);
/// only in the chain when the policy allows it. A failed tuning falls
/// through to the heuristic.
class AutotuneTier : public ConfigTier {
public:
  AutotuneTier(std::shared_ptr<ProblemTuner> tuner, ConfigCache &cache,
               ::ejk::DeviceFingerprint device)
      : tuner(std::move(tuner)), cache(cache), device(std::move(device)) {}
  StringRef getName() const override { return "autotune"; }
  ConfigAttr lookup(TunableOpInterface op, const TargetInfo &target) override {
    std::optional<::ejk::ConfigValues> values = tuner->tune(op, target, device);
    if (!values)
      return ConfigAttr();
    cache.insert(device.hash(), op.getProblemKey(), *values);
    return toConfigAttr(op->getContext(), *values);
  }

private:
  std::shared_ptr<ProblemTuner> tuner;
  ConfigCache &cache;
  ::ejk::DeviceFingerprint device;
};
} // namespace

FailureOr<std::unique_ptr<ConfigSelector>>
mlir::ejk::buildConfigSelector(const ConfigSelectionOptions &options,
                               std::string &error) {
  bool autotune = options.policy == ::ejk::AutotunePolicy::Autotune;
  if (autotune && !options.tuner) {
    error = "the autotune policy needs a tuner: tune with ejk-tune, or "
            "compile with ejkc or ejk-run";
    return failure();
  }
  if (autotune && !options.fingerprint) {
    error = "the autotune policy needs the device's fingerprint";
    return failure();
  }
  auto selector = std::make_unique<ConfigSelector>();
  selector->addTier(std::make_unique<OverlayTier>(options.overlay));
  ConfigCache &cache = options.cache ? *options.cache : ConfigCache::global();
  if (options.fingerprint) {
    std::string hash = options.fingerprint->hash();
    if (!options.skipStoredConfigs) {
      selector->addTier(std::make_unique<CacheTier>(cache, hash));
      selector->addTier(std::make_unique<DatabaseTier>(
          options.resolvedCacheDir(), *options.fingerprint, cache));
    }
    if (autotune)
      selector->addTier(std::make_unique<AutotuneTier>(options.tuner, cache,
                                                       *options.fingerprint));
  }
  return selector;
}
