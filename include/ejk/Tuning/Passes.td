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
           "Vulkan: the device has VK_KHR_cooperative_matrix 16x16x16">
  ];
}

def EjkSelectConfigs : Pass<"ejk-select-configs">, TargetOptions {
  let summary = "Attach a #ejk.config to every tunable op that has none";
  let description = [{
    Walks every op that implements `TunableOpInterface` and gives it a
    config, asking the selection tiers in order: a config already on the op
    (override) is kept after checking it against the target; otherwise the
    op's heuristic answers. (The overlay, the in-memory cache, the tuning
    database and the autotuner slot in between as further tiers.)

    A config that is invalid for the target is an error that names the
    reason. With `explain`, each op gets a remark saying which tier
    answered and what it chose.

    The target's facts come from the options until device fingerprints
    provide them.
  }];
  let options = targetOptions # [
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Emit a remark per op naming the tier that chose its config">
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
