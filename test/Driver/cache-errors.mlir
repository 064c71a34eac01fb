// A cache that cannot be used is a warning, never a failure; bad flags and
// targets that are not there yet are clear errors.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env EJK_CACHE_DIR=/proc/ejk-no-such-dir ejkc %s -o %t/out 2>&1 | FileCheck %s --check-prefix=CHECK-NOCACHE
// RUN: env EJK_CACHE_DIR=/proc/ejk-no-such-dir ejk-run %s --entry attn --random-inputs 1 --check 2>&1 | FileCheck %s --check-prefix=CHECK-RUN-NOCACHE
// RUN: env EJK_CACHE_DIR=%t/cache EJK_CACHE_MAX_MB=lots ejkc %s -o %t/out 2>&1 | FileCheck %s --check-prefix=CHECK-BADMAX
// RUN: env EJK_CACHE_DIR=%t/cache EJK_CACHE_MAX_MB=0 ejkc %s -o %t/out 2>&1 | FileCheck %s --check-prefix=CHECK-ZERO
// RUN: env EJK_CACHE_DIR=%t/cache ejkc %s -o %t/out --no-cache 2>&1 | FileCheck %s --check-prefix=CHECK-NO-CACHE-FLAG
// RUN: not ejkc %s --emit=spirv-asm 2>&1 | FileCheck %s --check-prefix=CHECK-SPIRV
// RUN: not ejkc %s --target=tpu 2>&1 | FileCheck %s --check-prefix=CHECK-TARGET
// RUN: not ejkc 2>&1 | FileCheck %s --check-prefix=CHECK-NOINPUT
// RUN: chmod 777 %t/cache/artifacts
// RUN: env EJK_CACHE_DIR=%t/cache ejkc %s -o %t/out 2>&1 | FileCheck %s --check-prefix=CHECK-SHARED

// CHECK-NOCACHE: ejkc: warning: artifact cache not used: cannot create '/proc/ejk-no-such-dir/artifacts': {{.*}}; compiling into a temporary directory
// CHECK-NOCACHE: ejkc: cache miss
// CHECK-NOCACHE: ejkc: wrote {{.*}}.json
// CHECK-RUN-NOCACHE: ejk-run: warning: artifact cache not used
// CHECK-RUN-NOCACHE: result 0 (f32): {{.*}}: ok
// CHECK-BADMAX: ejkc: warning: EJK_CACHE_MAX_MB must be a number of mebibytes, got 'lots'; using 1024
// CHECK-BADMAX: ejkc: cache miss
// CHECK-ZERO-NOT: warning
// CHECK-ZERO: ejkc: cache miss
// CHECK-NO-CACHE-FLAG: ejkc: wrote {{.*}} (no cache;
// CHECK-SPIRV: ejkc: error: --emit=spirv-asm needs --target=vulkan
// CHECK-TARGET: ejkc: unknown --target=tpu (expected cpu or vulkan)
// CHECK-NOINPUT: ejkc: no input file
// CHECK-SHARED: ejkc: warning: cache entry '{{.*}}' not used: '{{.*}}/artifacts' is accessible to other users (mode 0777); expected 0700; recompiling
// CHECK-SHARED: ejkc: warning: artifact cache not used: '{{.*}}/artifacts' is accessible to other users (mode 0777); expected 0700; compiling into a temporary directory
// CHECK-SHARED: ejkc: cache miss

func.func @attn(%q: tensor<1x32x1x32xf32>, %k: tensor<1x32x1x32xf32>, %v: tensor<1x32x1x32xf32>) -> tensor<1x32x1x32xf32> {
  %o = ejk.flash_attention %q, %k, %v
      : tensor<1x32x1x32xf32>, tensor<1x32x1x32xf32>, tensor<1x32x1x32xf32> -> tensor<1x32x1x32xf32>
  return %o : tensor<1x32x1x32xf32>
}
