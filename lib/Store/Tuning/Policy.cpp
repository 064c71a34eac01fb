//===- Policy.cpp - the autotuning policy and logging switches ------------===//

#include "ejk/Store/Tuning/Policy.h"

#include <cstdlib>

using namespace ejk;

const char *ejk::policyName(AutotunePolicy policy) {
  return policy == AutotunePolicy::Autotune ? "autotune" : "heuristics";
}

bool ejk::parseAutotunePolicy(const std::string &text, AutotunePolicy &policy,
                              std::string &error) {
  if (text == "autotune") {
    policy = AutotunePolicy::Autotune;
    return true;
  }
  if (text == "heuristics") {
    policy = AutotunePolicy::Heuristics;
    return true;
  }
  error = "invalid autotune policy '" + text +
          "' (expected 'autotune' or 'heuristics')";
  return false;
}

bool ejk::autotunePolicyFromEnv(AutotunePolicy defaultPolicy,
                                AutotunePolicy &policy, std::string &error) {
  const char *value = std::getenv("EJK_AUTOTUNE_POLICY");
  if (!value || !*value) {
    policy = defaultPolicy;
    return true;
  }
  if (parseAutotunePolicy(value, policy, error))
    return true;
  error = "EJK_AUTOTUNE_POLICY: " + error;
  return false;
}

bool ejk::logAutotuneFromEnv(bool &enabled, std::string &error) {
  const char *value = std::getenv("EJK_LOG_AUTOTUNE");
  std::string text = value ? value : "";
  if (text.empty() || text == "0" || text == "false") {
    enabled = false;
    return true;
  }
  if (text == "1" || text == "true") {
    enabled = true;
    return true;
  }
  error = "EJK_LOG_AUTOTUNE: invalid value '" + text +
          "' (expected 1, true, 0 or false)";
  return false;
}
