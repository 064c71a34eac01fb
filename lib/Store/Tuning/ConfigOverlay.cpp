//===- ConfigOverlay.cpp - scoped in-process config overrides -------------===//

#include "ejk/Store/Tuning/ConfigOverlay.h"
#include "ejk/Support/FileIO.h"

#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <sstream>
#include <utility>
#include <vector>

using namespace ejk;
using json = nlohmann::json;

void ConfigOverlay::set(const std::string &key, ConfigValues config) {
  configs[key] = std::move(config);
}

std::optional<ConfigValues>
ConfigOverlay::lookup(const std::string &problemKey) const {
  if (auto it = configs.find(problemKey); it != configs.end())
    return it->second;
  std::string opName = problemKey.substr(0, problemKey.find(';'));
  if (auto it = configs.find(opName); it != configs.end())
    return it->second;
  return std::nullopt;
}

bool ConfigOverlay::parse(const std::string &text, ConfigOverlay &overlay,
                          std::string &error) {
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    error = "not valid JSON";
    return false;
  }
  auto configs = root.find("configs");
  if (configs == root.end() || !configs->is_object()) {
    error = "expected an object with a \"configs\" object";
    return false;
  }
  ConfigOverlay result;
  for (auto it = configs->begin(); it != configs->end(); ++it) {
    const json &value = it.value();
    if (!value.is_object() || value.empty()) {
      error = "config of '" + it.key() + "' must be a non-empty object";
      return false;
    }
    ConfigValues config;
    for (auto entry = value.begin(); entry != value.end(); ++entry) {
      if (!entry.value().is_number_integer() ||
          entry.value().get<int64_t>() <= 0) {
        error = "config of '" + it.key() + "': entry '" + entry.key() +
                "' is not a positive integer";
        return false;
      }
      config[entry.key()] = entry.value().get<int64_t>();
    }
    result.set(it.key(), std::move(config));
  }
  overlay = std::move(result);
  return true;
}

bool ConfigOverlay::readFile(const std::string &path, ConfigOverlay &overlay,
                             std::string &error) {
  std::string text, why;
  ::ejk::ReadFailure failure = ::ejk::ReadFailure::None;
  if (!::ejk::readRegularFile(path, text, why, {}, &failure)) {
    error = "cannot read config overlay '" + path + "'";
    if (failure != ::ejk::ReadFailure::NotFound)
      error += ": " + why;
    return false;
  }
  if (!parse(text, overlay, why)) {
    error = "config overlay '" + path + "': " + why;
    return false;
  }
  return true;
}

namespace {
/// The active scopes, outermost first. Process-wide (not thread-local) so
/// that a scope set around a compile also covers passes that run on the
/// context's worker threads.
struct ActiveOverlays {
  std::mutex mutex;
  std::vector<std::pair<size_t, ConfigOverlay>> stack;
  size_t nextId = 0;
};
} // namespace

static ActiveOverlays &activeOverlays() {
  static ActiveOverlays active;
  return active;
}

ConfigOverlayScope::ConfigOverlayScope(ConfigOverlay overlay) {
  ActiveOverlays &active = activeOverlays();
  std::lock_guard<std::mutex> guard(active.mutex);
  id = active.nextId++;
  active.stack.emplace_back(id, std::move(overlay));
}

ConfigOverlayScope::~ConfigOverlayScope() {
  ActiveOverlays &active = activeOverlays();
  std::lock_guard<std::mutex> guard(active.mutex);
  // Scopes on different threads need not end in order; remove this one.
  active.stack.erase(
      std::remove_if(active.stack.begin(), active.stack.end(),
                     [&](const auto &item) { return item.first == id; }),
      active.stack.end());
}

std::optional<ConfigValues>
ConfigOverlayScope::lookupActive(const std::string &problemKey) {
  ActiveOverlays &active = activeOverlays();
  std::lock_guard<std::mutex> guard(active.mutex);
  for (auto it = active.stack.rbegin(); it != active.stack.rend(); ++it)
    if (std::optional<ConfigValues> config = it->second.lookup(problemKey))
      return config;
  return std::nullopt;
}
