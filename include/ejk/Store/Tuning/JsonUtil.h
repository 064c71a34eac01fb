//===- JsonUtil.h - JSON helpers of the tuning files ------------*- C++ -*-===//
//
// Shared by the tuning store and the candidate runner (not installed):
// configs and fields in nlohmann-json, without exceptions (every accessor
// checks the type first).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_STORE_TUNING_JSONUTIL_H
#define EJK_STORE_TUNING_JSONUTIL_H

#include "ejk/Store/Tuning/TuningDatabase.h"

#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

#include <string>

namespace ejk::jsonutil {

using json = nlohmann::json;

inline json configToJson(const ConfigValues &config) {
  json object = json::object();
  for (const auto &[name, value] : config)
    object[name] = value;
  return object;
}

/// Every value must be a positive integer, as in `#ejk.config`.
inline bool configFromJson(const json &object, ConfigValues &config,
                           std::string &error) {
  if (!object.is_object() || object.empty()) {
    error = "a config must be a non-empty object of integers";
    return false;
  }
  for (auto it = object.begin(); it != object.end(); ++it) {
    if (!it.value().is_number_integer() || it.value().get<int64_t>() <= 0) {
      error = "config entry '" + it.key() + "' is not a positive integer";
      return false;
    }
    config[it.key()] = it.value().get<int64_t>();
  }
  return true;
}

inline bool numberField(const json &object, const char *name, double &out) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_number())
    return false;
  out = it->get<double>();
  return true;
}

inline std::string stringField(const json &object, const char *name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

/// The strings of an array field; false when it is not an array of strings.
inline bool stringsField(const json &object, const char *name,
                         std::vector<std::string> &out) {
  auto it = object.find(name);
  if (it == object.end() || !it->is_array())
    return false;
  for (const json &item : *it) {
    if (!item.is_string())
      return false;
    out.push_back(item.get<std::string>());
  }
  return true;
}

} // namespace ejk::jsonutil

#endif // EJK_STORE_TUNING_JSONUTIL_H
