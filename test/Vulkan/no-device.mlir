// Without a Vulkan loader the Vulkan tools say so; ahead-of-time compiles
// from a fingerprint file and --target cpu still work.

// RUN: rm -rf %t && mkdir -p %t
// RUN: env EJK_VULKAN_LOADER=%t/no-libvulkan.so.1 not ejk-run --target vulkan --print-fingerprint 2>&1 | FileCheck %s --check-prefix=CHECK-FP
// RUN: env EJK_VULKAN_LOADER=%t/no-libvulkan.so.1 not ejk-run %s --entry f --target vulkan --random-inputs 1 2>&1 | FileCheck %s --check-prefix=CHECK-RUNV
// RUN: env EJK_VULKAN_LOADER=%t/no-libvulkan.so.1 not ejkc %s --target vulkan -o %t 2>&1 | FileCheck %s --check-prefix=CHECK-EJKC
// RUN: env EJK_VULKAN_LOADER=%t/no-libvulkan.so.1 ejkc %S/Inputs/portable-kernel.mlir --target vulkan --fingerprint %S/Inputs/lavapipe.fingerprint --no-cache -o %t --name aot
// RUN: env EJK_VULKAN_LOADER=%t/no-libvulkan.so.1 ejk-run %s --entry f --target cpu --random-inputs 1 --check | FileCheck %s --check-prefix=CHECK-CPU
// RUN: env EJK_VULKAN_LOADER=%t/no-libvulkan.so.1 not ejk-tune %s --target vulkan --cache-dir %t/c 2>&1 | FileCheck %s --check-prefix=CHECK-TUNE
// RUN: env EJK_VULKAN_LOADER=%t/no-libvulkan.so.1 ejk-tune %s --emit-candidates %t/cand --fingerprint %S/Inputs/lavapipe.fingerprint | FileCheck %s --check-prefix=CHECK-TUNE-EMIT
// RUN: env EJK_VULKAN_LOADER=%t/no-libvulkan.so.1 not ejk-tune-runner %t/cand 2>&1 | FileCheck %s --check-prefix=CHECK-TUNE-RUNNER
// RUN: not ejkc %s --target vulkan --fingerprint %S/../Selection/Inputs/test-fingerprint.txt 2>&1 | FileCheck %s --check-prefix=CHECK-KIND
// RUN: not ejkc %s --emit=spirv-asm 2>&1 | FileCheck %s --check-prefix=CHECK-EMIT
// RUN: not ejk-run %s --entry f --target tpu 2>&1 | FileCheck %s --check-prefix=CHECK-TARGET

// CHECK-FP: ejk-run: error: device 'vulkan': no Vulkan loader: cannot load '{{.*}}no-libvulkan.so.1'
// CHECK-RUNV: ejk-run: error: device 'vulkan': no Vulkan loader: cannot load
// CHECK-EJKC: ejkc: error: cannot compile for the Vulkan device here: device 'vulkan': no Vulkan loader: {{.*}} (give --fingerprint FILE to compile ahead of time for a device that is not here)
// CHECK-CPU: result 0 (f32): {{.*}}: ok
// CHECK-TUNE: ejk-tune: error: cannot compile for the Vulkan device here: device 'vulkan': no Vulkan loader: {{.*}} (give --fingerprint FILE to compile ahead of time for a device that is not here)
// CHECK-TUNE-EMIT: wrote {{[1-9][0-9]*}} candidates of 1 problem(s) to {{.*}}cand
// CHECK-TUNE-RUNNER: ejk-tune-runner: error: the plan is for a vulkan device, and none can be opened here: device 'vulkan': no Vulkan loader: cannot load
// CHECK-KIND: ejkc: error: fingerprint file '{{.*}}test-fingerprint.txt' is of a cpu device, not vulkan
// CHECK-EMIT: ejkc: error: --emit=spirv-asm needs --target=vulkan
// CHECK-TARGET: ejk-run: error: unknown --target 'tpu' (expected cpu or vulkan)

func.func @f(%q: tensor<1x8x2x16xf32>, %k: tensor<1x8x2x16xf32>, %v: tensor<1x8x2x16xf32>) -> tensor<1x8x2x16xf32> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x2x16xf32>
  return %o : tensor<1x8x2x16xf32>
}
