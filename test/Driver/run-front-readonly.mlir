// A read-only cache: ejk-run's front still runs what the source index names,
// and a miss warns and compiles aside. (Root writes anyway: skipped there;
// run-front.mlir covers an index that cannot be written for everyone.)
// REQUIRES: non-root-user
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/f.mlir && cp %s %t/g.mlir && echo '// edit' >> %t/g.mlir
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --output %t/a.npy
// RUN: chmod 500 %t/cache/artifacts %t/cache/artifacts/source-index
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --output %t/b.npy --verbose 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/g.mlir --entry attn --random-inputs 3 --output %t/c.npy 2>&1 | FileCheck %s --check-prefix=READONLY
// RUN: chmod 700 %t/cache/artifacts %t/cache/artifacts/source-index
// RUN: cmp %t/a.npy %t/b.npy && cmp %t/a.npy %t/c.npy

// HIT: ejk-run: cache hit {{[0-9a-f]+}} in {{[0-9.]+}} s ({{.*}}) through the source index
// READONLY: ejk-run: warning: artifact cache not used: '{{.*}}/artifacts' is not writable
// READONLY-NOT: error

func.func @attn(%q: tensor<1x32x2x32xf32>, %k: tensor<1x32x2x32xf32>, %v: tensor<1x32x2x32xf32>) -> tensor<1x32x2x32xf32> {
  %o = ejk.flash_attention %q, %k, %v
      : tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32> -> tensor<1x32x2x32xf32>
  return %o : tensor<1x32x2x32xf32>
}
