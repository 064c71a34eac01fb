// A cache that cannot be used is a warning, never a failure; bad flags and
// targets that are not there yet are clear errors.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env EJK_CACHE_DIR=/proc/ejk-no-such-dir ejkc %s -o %t/out 2>&1 | FileCheck %s --check-prefix=NOCACHE
// RUN: env EJK_CACHE_DIR=/proc/ejk-no-such-dir ejk-run %s --entry attn --random-inputs 1 --check 2>&1 | FileCheck %s --check-prefix=RUN-NOCACHE
// RUN: env EJK_CACHE_DIR=%t/cache EJK_CACHE_MAX_MB=lots ejkc %s -o %t/out 2>&1 | FileCheck %s --check-prefix=BADMAX
// RUN: env EJK_CACHE_DIR=%t/cache EJK_CACHE_MAX_MB=0 ejkc %s -o %t/out 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: env EJK_CACHE_DIR=%t/cache ejkc %s -o %t/out --no-cache 2>&1 | FileCheck %s --check-prefix=NO-CACHE-FLAG
// RUN: not ejkc %s --emit=spirv-asm 2>&1 | FileCheck %s --check-prefix=SPIRV
// RUN: not ejkc %s --target=vulkan 2>&1 | FileCheck %s --check-prefix=VULKAN
// RUN: not ejkc %s --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not ejkc 2>&1 | FileCheck %s --check-prefix=NOINPUT
// RUN: chmod 777 %t/cache/artifacts
// RUN: env EJK_CACHE_DIR=%t/cache ejkc %s -o %t/out 2>&1 | FileCheck %s --check-prefix=SHARED

// NOCACHE: ejkc: warning: artifact cache not used: cannot create '/proc/ejk-no-such-dir/artifacts': {{.*}}; compiling into a temporary directory
// NOCACHE: ejkc: cache miss
// NOCACHE: ejkc: wrote {{.*}}.json
// RUN-NOCACHE: ejk-run: warning: artifact cache not used
// RUN-NOCACHE: result 0 (f32): {{.*}}: ok
// BADMAX: ejkc: warning: EJK_CACHE_MAX_MB must be a number of mebibytes, got 'lots'; using 1024
// BADMAX: ejkc: cache miss
// ZERO-NOT: warning
// ZERO: ejkc: cache miss
// NO-CACHE-FLAG: ejkc: wrote {{.*}} (no cache;
// SPIRV: ejkc: error: --emit=spirv-asm is not available until the Vulkan target lands
// VULKAN: ejkc: error: --target=vulkan is not available until the Vulkan target lands
// TARGET: ejkc: unknown --target=tpu (expected cpu or vulkan)
// NOINPUT: ejkc: no input file
// SHARED: ejkc: warning: cache entry '{{.*}}' not used: '{{.*}}/artifacts' is accessible to other users (mode 0777); expected 0700; recompiling
// SHARED: ejkc: warning: artifact cache not used: '{{.*}}/artifacts' is accessible to other users (mode 0777); expected 0700; compiling into a temporary directory
// SHARED: ejkc: cache miss

func.func @attn(%q: tensor<1x32x1x32xf32>, %k: tensor<1x32x1x32xf32>, %v: tensor<1x32x1x32xf32>) -> tensor<1x32x1x32xf32> {
  %o = ejk.flash_attention %q, %k, %v
      : tensor<1x32x1x32xf32>, tensor<1x32x1x32xf32>, tensor<1x32x1x32xf32> -> tensor<1x32x1x32xf32>
  return %o : tensor<1x32x1x32xf32>
}
