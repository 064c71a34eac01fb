// ejk-tune --target vulkan on this machine's Vulkan device (lavapipe in
// CI): every candidate is compiled to SPIR-V, checked against the reference
// on the device and timed with its timestamps; the winner goes to the
// device's database, which the compiling tools then use for that device.

// REQUIRES: vulkan
// RUN: rm -rf %t && mkdir -p %t
// RUN: env EJK_CACHE_DIR=%t/cache ejk-tune %s --target vulkan --runs 1 --warmup 0 | FileCheck %s --check-prefix=CHECK-TUNE
// CHECK-TUNE: compiling candidates of ejk.flash_attention;q=1x32x2x16xf32;k=1x32x2x16xf32;v=1x32x2x16xf32;
// CHECK-TUNE: config{{ +}}status{{ +}}median ms{{ +}}min ms
// CHECK-TUNE: block_k={{[0-9]+}},block_q={{[0-9]+}},num_subgroups={{[0-9]+}}{{ +}}ok{{.*}}(heuristic)
// CHECK-TUNE: block_k=32,block_q=16,num_subgroups=2{{ +}}ok
// CHECK-TUNE: winner block_k={{[0-9]+}},block_q={{[0-9]+}},num_subgroups={{[0-9]+}}: {{.*}} the heuristic
// CHECK-TUNE: #ejk.config<{{.*}}num_subgroups{{.*}}> from the autotune tier

// The database is the Vulkan device's: a second run finds the problem
// there, ejkc compiling for the device takes it, the CPU's database has
// nothing.
// RUN: env EJK_CACHE_DIR=%t/cache ejk-tune %s --target vulkan | FileCheck %s --check-prefix=CHECK-AGAIN
// CHECK-AGAIN-NOT: compiling candidates
// CHECK-AGAIN: from the database tier
// RUN: env EJK_CACHE_DIR=%t/cache ejkc %s --target vulkan --ejk-explain-configs -o %t/out 2>&1 | FileCheck %s --check-prefix=CHECK-EJKC
// CHECK-EJKC: remark: config #ejk.config<{{.*}}num_subgroups{{.*}}> from the database tier
// RUN: env EJK_CACHE_DIR=%t/cache ejkc %s --target cpu --ejk-explain-configs -o %t/out 2>&1 | FileCheck %s --check-prefix=CHECK-CPU
// CHECK-CPU: remark: config #ejk.config<{{.*}}> from the heuristic tier

// The autotune policy in a compiling tool tunes on the Vulkan device it
// compiles for, and the tuned kernel is correct.
// RUN: env EJK_CACHE_DIR=%t/auto EJK_AUTOTUNE_POLICY=autotune ejk-run %s --entry attention --target vulkan --random-inputs 2 --check --ejk-explain-configs 2>&1 | FileCheck %s --check-prefix=CHECK-AUTO
// CHECK-AUTO: winner block_k=
// CHECK-AUTO: remark: config #ejk.config<{{.*}}num_subgroups{{.*}}> from the autotune tier
// CHECK-AUTO: result 0 (f32): {{.*}}: ok

// Tuning "elsewhere" with the device's own fingerprint: candidates here,
// the MLIR-free runner on the device, the results imported.
// RUN: ejk-run --target vulkan --fingerprint-out %t/device.txt
// RUN: ejk-tune %s --emit-candidates %t/cand --fingerprint %t/device.txt | FileCheck %s --check-prefix=CHECK-EMIT
// CHECK-EMIT: wrote {{[1-9][0-9]*}} candidates of 1 problem(s) to {{.*}}cand
// RUN: FileCheck %s --check-prefix=CHECK-PLAN < %t/cand/plan.json
// CHECK-PLAN: "fingerprint": "kind=vulkan
// CHECK-PLAN: "manifest": "p0/c0/kernel.json"
// RUN: FileCheck %s --check-prefix=CHECK-MANIFEST -DSG=%vulkan_subgroup_size < %t/cand/p0/c0/kernel.json
// CHECK-MANIFEST: "spirv": "kernel_problem_dispatch_0.spv"
// CHECK-MANIFEST: "subgroup_size": [[SG]],
// CHECK-MANIFEST: "target": "vulkan"
// RUN: ejk-tune-runner %t/cand --runs 1 --warmup 0 | FileCheck %s --check-prefix=CHECK-RUNNER
// CHECK-RUNNER: <- winner
// CHECK-RUNNER: wrote {{.*}}cand/results.json
// RUN: env EJK_CACHE_DIR=%t/remote ejk-tune --import-results %t/cand/results.json | FileCheck %s --check-prefix=CHECK-IMPORT
// CHECK-IMPORT: stored 1 winner(s) in {{.*}}remote/tuning/{{[0-9a-f]+}}.json
// RUN: env EJK_CACHE_DIR=%t/remote ejkc %s --target vulkan --ejk-explain-configs -o %t/out 2>&1 | FileCheck %s --check-prefix=CHECK-EJKC

// Candidates for another GPU (the H200, subgroups of 32): the runner here
// refuses them; forced, every candidate fails to load (the manifest names
// the subgroup size its shuffles assume) and nothing is stored.
// RUN: ejk-tune %s --emit-candidates %t/h200 --fingerprint %S/../../bench/results/h200/device.fingerprint > /dev/null
// RUN: not ejk-tune-runner %t/h200 2>&1 | FileCheck %s --check-prefix=CHECK-FOREIGN
// CHECK-FOREIGN: ejk-tune-runner: error: this vulkan device ({{.+}}, fingerprint {{[0-9a-f]+}}) is not the device the candidates were compiled for ({{[0-9a-f]+}})
// RUN: ejk-tune-runner %t/h200 --force --runs 1 --warmup 0 2>&1 | FileCheck %s --check-prefix=CHECK-FORCED -DSG=%vulkan_subgroup_size
// CHECK-FORCED: failed {{.*}} the kernel was compiled for subgroup size 32, but Vulkan device '{{.+}}' runs subgroups of [[SG]]
// CHECK-FORCED: no correct candidate: nothing stored

func.func @attention(%q: tensor<1x32x2x16xf32>, %k: tensor<1x32x2x16xf32>, %v: tensor<1x32x2x16xf32>) -> tensor<1x32x2x16xf32> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x32x2x16xf32>, tensor<1x32x2x16xf32>, tensor<1x32x2x16xf32> -> tensor<1x32x2x16xf32>
  return %o : tensor<1x32x2x16xf32>
}
