// Mamba-1 and Mamba-2 at their benchmark shapes, compiled ahead of time for
// an H100 (saved fingerprint, no device needed): the configs the heuristic
// picks for subgroups of 32 and 48 KiB of shared memory, in the manifest,
// and every SPIR-V module passes spirv-val.

// REQUIRES: spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// RUN: ejkc %s --target vulkan --fingerprint %S/Inputs/h100.fingerprint --no-cache -o %t --name ssm
// RUN: spirv-val --target-env vulkan1.3 %t/ssm_mamba1_dispatch_0.spv
// RUN: spirv-val --target-env vulkan1.3 %t/ssm_mamba2_dispatch_0_chunk_states.spv
// RUN: spirv-val --target-env vulkan1.3 %t/ssm_mamba2_dispatch_0_state_pass.spv
// RUN: spirv-val --target-env vulkan1.3 %t/ssm_mamba2_dispatch_0_scores.spv
// RUN: spirv-val --target-env vulkan1.3 %t/ssm_mamba2_dispatch_0.spv
// RUN: FileCheck %s < %t/ssm.json

// mamba1: the time-lanes scan with two state groups, one dispatch: 16
// channels of 16 lanes x 2 groups (512 threads) per workgroup, 128
// workgroups, chunks of 128 steps (stages 4 * (131 * 32 + 132 * 32)
// bytes); no split end states.
// CHECK-NOT: ssm_mamba1_dispatch_0_states
// CHECK: "grid": [
// CHECK-NEXT: 128,
// CHECK-NEXT: 1,
// CHECK-NEXT: 1
// CHECK: "shared_memory_bytes": 33664
// CHECK: "spirv": "ssm_mamba1_dispatch_0.spv"
// CHECK: "workgroup_size": [
// CHECK-NEXT: 512,
// mamba2: the chunks in parallel (chunk_parallel; 0.261 ms against 0.501
// in one pass on the H200), 512 threads: every chunk's state (1024
// workgroups), the pass over the chunk states (8 x 32 of 1024 threads),
// the scores per chunk (32), every chunk's outputs (1024).
// CHECK-NOT: ssm_mamba2_dispatch_0_states
// CHECK: "grid": [
// CHECK-NEXT: 1,
// CHECK-NEXT: 1024,
// CHECK: "shared_memory_bytes": 25344
// CHECK: "spirv": "ssm_mamba2_dispatch_0_chunk_states.spv"
// CHECK: "workgroup_size": [
// CHECK-NEXT: 512,
// CHECK: "grid": [
// CHECK-NEXT: 8,
// CHECK-NEXT: 32,
// CHECK: "spirv": "ssm_mamba2_dispatch_0_state_pass.spv"
// CHECK: "grid": [
// CHECK-NEXT: 32,
// CHECK: "shared_memory_bytes": 8704
// CHECK: "spirv": "ssm_mamba2_dispatch_0_scores.spv"
// CHECK: "grid": [
// CHECK-NEXT: 1,
// CHECK-NEXT: 1024,
// CHECK: "shared_memory_bytes": 42496
// CHECK: "spirv": "ssm_mamba2_dispatch_0.spv"
// CHECK: "workgroup_size": [
// CHECK-NEXT: 512,

func.func @mamba1(%u: tensor<1x2048x2048xf32>, %delta: tensor<1x2048x2048xf32>, %A: tensor<2048x16xf32>, %B: tensor<1x2048x1x16xf32>, %C: tensor<1x2048x1x16xf32>, %D: tensor<2048xf32>) -> tensor<1x2048x2048xf32> {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C D(%D : tensor<2048xf32>) {delta_softplus}
      : tensor<1x2048x2048xf32>, tensor<1x2048x2048xf32>, tensor<2048x16xf32>, tensor<1x2048x1x16xf32>, tensor<1x2048x1x16xf32> -> tensor<1x2048x2048xf32>
  return %y : tensor<1x2048x2048xf32>
}

func.func @mamba2(%x: tensor<1x2048x32x64xf32>, %dt: tensor<1x2048x32xf32>, %A: tensor<32xf32>, %B: tensor<1x2048x1x128xf32>, %C: tensor<1x2048x1x128xf32>, %D: tensor<32xf32>) -> tensor<1x2048x32x64xf32> {
  %y = ejk.ssd %x, %dt, %A, %B, %C D(%D : tensor<32xf32>) {dt_softplus}
      : tensor<1x2048x32x64xf32>, tensor<1x2048x32xf32>, tensor<32xf32>, tensor<1x2048x1x128xf32>, tensor<1x2048x1x128xf32> -> tensor<1x2048x32x64xf32>
  return %y : tensor<1x2048x32x64xf32>
}
