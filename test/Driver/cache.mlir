// ejkc and ejk-run share the artifact cache: the second compile of a kernel,
// by either tool, hits; a reformatted copy of the file hits too.
// RUN: rm -rf %t && mkdir -p %t
// RUN: env EJK_CACHE_DIR=%t/cache ejkc %s -o %t/out --name attn 2>&1 | FileCheck %s --check-prefix=CHECK-MISS
// RUN: env EJK_CACHE_DIR=%t/cache ejkc %s -o %t/out --name attn 2>&1 | FileCheck %s --check-prefix=CHECK-HIT
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %s --entry attn --random-inputs 1 --check --verbose 2>&1 | FileCheck %s --check-prefix=CHECK-RUN-HIT
// RUN: sed -e 's/%%q/%%query/g' -e 's/^func.func/\n\nfunc.func/' %s > %t/reformatted.mlir
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/reformatted.mlir --entry attn --random-inputs 1 --load-only --verbose 2>&1 | FileCheck %s --check-prefix=CHECK-LOAD-HIT
// RUN: env EJK_CACHE_DIR=%t/cache ejkc --cache-stats | FileCheck %s --check-prefix=CHECK-STATS
// RUN: ls %t/out | FileCheck %s --check-prefix=CHECK-FILES
// RUN: stat -c '%%a %%n' %t/cache/artifacts %t/cache/artifacts/* %t/cache/artifacts/*/* | FileCheck %s --check-prefix=CHECK-MODES
// RUN: env EJK_CACHE_DIR=%t/cache ejkc --clear-cache | FileCheck %s --check-prefix=CHECK-CLEAR
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %s --entry attn --random-inputs 1 --verbose 2>&1 | FileCheck %s --check-prefix=CHECK-RUN-MISS

// CHECK-MISS: ejkc: cache miss {{[0-9a-f]+}} in {{[0-9.]+}} s (key {{.*}}, compile {{.*}}: tiling {{.*}}, codegen
// CHECK-MISS: ejkc: wrote {{.*}}out/attn.json
// CHECK-HIT: ejkc: cache hit {{[0-9a-f]+}} in {{[0-9.]+}} s (key
// CHECK-HIT-NOT: compile
// CHECK-HIT: ejkc: wrote {{.*}}out/attn.json
// CHECK-RUN-HIT: ejk-run: cache hit
// CHECK-RUN-HIT: result 0 (f32): {{.*}}: ok
// CHECK-LOAD-HIT: ejk-run: cache hit
// CHECK-LOAD-HIT: ejk-run: ready in {{[0-9.]+}} s since process start
// CHECK-STATS: artifact cache: {{.*}}/cache/artifacts
// CHECK-STATS-NEXT: entries: 1
// CHECK-STATS-NEXT: size: {{[1-9][0-9]*}} bytes
// CHECK-STATS-NEXT: limit: 1073741824 bytes
// CHECK-STATS-NEXT: compiler: {{[0-9.]+}}+src.{{[0-9a-f]+}}
// CHECK-FILES: attn.json
// CHECK-FILES-NEXT: attn.so
// CHECK-MODES: 700 {{.*}}/artifacts
// CHECK-MODES-NEXT: 700 {{.*}}/artifacts/{{[0-9a-f]+$}}
// CHECK-MODES-NEXT: 700 {{.*}}/artifacts/locks
// CHECK-MODES-NEXT: 700 {{.*}}/artifacts/source-index
// CHECK-MODES-NEXT: 600 {{.*}}/entry.json
// CHECK-MODES-NEXT: 600 {{.*}}/kernel.json
// CHECK-MODES-NEXT: 600 {{.*}}/kernel.so
// CHECK-MODES-NEXT: 600 {{.*}}/source-index/{{[0-9a-f]+$}}
// CHECK-CLEAR: removed 1 cached artifacts from {{.*}}/cache/artifacts
// CHECK-RUN-MISS: ejk-run: cache miss

func.func @attn(%q: tensor<1x64x2x32xf32>, %k: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>) -> tensor<1x64x2x32xf32> {
  %o = ejk.flash_attention %q, %k, %v {causal}
      : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
