//===- Policy.h - the autotuning policy and logging switches ----*- C++ -*-===//
//
// EJK_AUTOTUNE_POLICY=autotune|heuristics says whether a config the caches
// do not hold may be found by autotuning (compiling and timing candidates)
// or comes from the op's heuristic. EJK_LOG_AUTOTUNE=1 makes every
// selection report the tier that answered. An invalid value is an error,
// never silently ignored. MLIR-free.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_STORE_TUNING_POLICY_H
#define EJK_STORE_TUNING_POLICY_H

#include <string>

namespace ejk {

enum class AutotunePolicy { Heuristics, Autotune };

/// "autotune" or "heuristics".
const char *policyName(AutotunePolicy policy);

/// Parses "autotune" / "heuristics"; fails with a message otherwise.
bool parseAutotunePolicy(const std::string &text, AutotunePolicy &policy,
                         std::string &error);

/// EJK_AUTOTUNE_POLICY, or `defaultPolicy` when it is unset or empty.
bool autotunePolicyFromEnv(AutotunePolicy defaultPolicy, AutotunePolicy &policy,
                           std::string &error);

/// EJK_LOG_AUTOTUNE: unset, "", "0", "false" -> false; "1", "true" -> true.
bool logAutotuneFromEnv(bool &enabled, std::string &error);

} // namespace ejk

#endif // EJK_STORE_TUNING_POLICY_H
