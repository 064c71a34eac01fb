//===- Passes.td - config selection passes -----------------*- tablegen -*-===//

#ifndef EJK_TUNING_PASSES_TD
#define EJK_TUNING_PASSES_TD

include "mlir/Pass/PassBase.td"

class TargetOptions {
  list<Option> targetOptions = [
    Option<"target", "target", "std::string", /*default=*/"\"cpu\"",
           "Target kind: cpu or vulkan">,
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"256",
           "CPU: width of the widest SIMD registers in bits">,
    Option<"numCores", "num-cores", "unsigned", /*default=*/"1",
           "CPU: cores the runtime may use">,
    Option<"l2Bytes", "l2-bytes", "int64_t", /*default=*/"1048576",
           "CPU: per-core L2 cache size in bytes">,
    Option<"subgroupSize", "subgroup-size", "unsigned", /*default=*/"32",
           "Vulkan: subgroup size">,
    Option<"sharedMemoryBytes", "shared-memory-bytes", "int64_t",
           /*default=*/"32768", "Vulkan: shared memory per workgroup">,
    Option<"cooperativeMatrix", "cooperative-matrix", "bool",
           /*default=*/"false",
           "Vulkan: the device has VK_KHR_cooperative_matrix 16x16x16">,
    Option<"spirvVersion", "spirv-version", "std::string",
           /*default=*/"\"1.3\"",
           "Vulkan: newest SPIR-V version the device takes (1.0 .. 1.6)">,
    Option<"vulkanFeatures", "vulkan-features", "std::string",
           /*default=*/"\"subgroup_basic\"",
           "Vulkan: comma-separated device features (float16, int16, int8, "
           "storage16, storage8, subgroup_shuffle, subgroup_arithmetic, ...: "
           "the runtime fingerprint's names)">
  ];
}

def EjkSelectConfigs : Pass<"ejk-select-configs">, TargetOptions {
  let summary = "Attach a #ejk.config to every tunable op that has none";
  let description = [{
    Walks every op that implements `TunableOpInterface` and gives it a
    config, asking the selection tiers in order:

    1. override: a config already on the op, kept after checking it;
    2. overlay: the active `ConfigOverlayScope`s, then `config-overlay`;
    3. cache: configs this process already read or tuned for the device;
    4. database: the device's tuning database under `cache-dir`;
    5. autotune: only when the policy is `autotune` and a tuner is given
       (ejk-tune, ejkc, ejk-run);
    6. heuristic: the op's `getHeuristicConfig`.

    The cache and database tiers exist only when a device fingerprint is
    given (`fingerprint=host` or a fingerprint file; the compiling tools pass
    the host's). A config that is invalid for the target is an error that
    names the tier and the reason, except from the cache and the database,
    whose stale entries are warnings and fall through to the next tier.

    With `explain` (or `EJK_LOG_AUTOTUNE=1`), each op gets a remark saying
    which tier answered and what it chose. With a fingerprint, the target's
    facts come from it unless an option gives them explicitly.
  }];
  let options = targetOptions # [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark per op naming the tier that chose its config">,
    Option<"configOverlay", "config-overlay", "std::string",
           /*default=*/"\"\"",
           "JSON file of configs by problem key or op name (overlay tier)">,
    Option<"fingerprint", "fingerprint", "std::string", /*default=*/"\"\"",
           "Device whose tuning database to use: 'host' or a fingerprint "
           "file; empty: no cache and database tiers">,
    Option<"cacheDir", "cache-dir", "std::string", /*default=*/"\"\"",
           "Cache root (default: $EJK_CACHE_DIR, $XDG_CACHE_HOME/ejk, "
           "~/.cache/ejk)">,
    Option<"policy", "policy", "std::string", /*default=*/"\"\"",
           "autotune or heuristics (default: $EJK_AUTOTUNE_POLICY, else "
           "heuristics)">,
    Option<"record", "record", "bool", /*default=*/"false",
           "Append each problem to the device's record file for "
           "ejk-tune --recorded">
  ];
}

def EjkPrintConfigSpace : Pass<"ejk-print-config-space">, TargetOptions {
  let summary = "Report each tunable op's problem key, heuristic and space";
  let description = [{
    Emits one remark per tunable op with its problem key, its heuristic
    config and every candidate of its config space for the target: what the
    autotuner would try. The IR is not changed.
  }];
  let options = targetOptions # [
    Option<"full", "full", "bool", /*default=*/"false",
           "Enumerate the full space instead of the small one">
  ];
}

#endif // EJK_TUNING_PASSES_TD
