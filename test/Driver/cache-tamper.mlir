// Defence in depth for cache entries whose hashes were made consistent
// again after an edit: a manifest that names a library outside its entry
// is not used, and a source-index record that names an artifact of another
// signature is a miss for ejk-run's front, never a run of the wrong code.
// RUN: rm -rf %t && split-file %s %t
//
// RUN: env EJK_CACHE_DIR=%t/c1 ejkc %t/a.mlir -o %t/out --name attn 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: %python %S/Inputs/tamper_cache.py library %t/c1 %t/out/attn.so
// RUN: env EJK_CACHE_DIR=%t/c1 ejkc %t/a.mlir -o %t/out2 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// MISS: ejkc: cache miss
// OUTSIDE: ejkc: warning: cache entry '{{.*}}' not used: 'kernel.json' names library "{{.*}}/out/attn.so", which is not a file of the entry; recompiling
// OUTSIDE: ejkc: cache miss
//
// RUN: env EJK_CACHE_DIR=%t/c2 ejk-run %t/a.mlir --entry attn --random-inputs 1 --output %t/a.npy
// RUN: env EJK_CACHE_DIR=%t/c2 ejk-run %t/b.mlir --entry attn --random-inputs 1 --output %t/b.npy
// RUN: env EJK_CACHE_DIR=%t/c2 ejkc %t/a.mlir -o %t/x 2>&1 | sed -n 's/^ejkc: cache [a-z]* \([0-9a-f]*\) .*/\1/p' > %t/a.key
// RUN: env EJK_CACHE_DIR=%t/c2 ejkc %t/b.mlir -o %t/x 2>&1 | sed -n 's/^ejkc: cache [a-z]* \([0-9a-f]*\) .*/\1/p' > %t/b.key
// RUN: %python %S/Inputs/tamper_cache.py index %t/c2 %t/a.key %t/b.key
// RUN: env EJK_CACHE_DIR=%t/c2 ejk-run %t/a.mlir --entry attn --random-inputs 1 --output %t/a2.npy --verbose 2>&1 | FileCheck %s --check-prefix=REDIRECTED
// RUN: cmp %t/a.npy %t/a2.npy
// REDIRECTED: ejk-run: source index entry {{[0-9a-f]+}} not used: the artifact's entry 'attn' argument 0 is [1, 16, 1, 32] f32, the run expects [1, 32, 2, 32] f32
// REDIRECTED: ejk-run: cache hit

//--- a.mlir
func.func @attn(%q: tensor<1x32x2x32xf32>, %k: tensor<1x32x2x32xf32>, %v: tensor<1x32x2x32xf32>) -> tensor<1x32x2x32xf32> {
  %o = ejk.flash_attention %q, %k, %v
      : tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32> -> tensor<1x32x2x32xf32>
  return %o : tensor<1x32x2x32xf32>
}
//--- b.mlir
func.func @attn(%q: tensor<1x16x1x32xf32>, %k: tensor<1x16x1x32xf32>, %v: tensor<1x16x1x32xf32>) -> tensor<1x16x1x32xf32> {
  %o = ejk.flash_attention %q, %k, %v {causal}
      : tensor<1x16x1x32xf32>, tensor<1x16x1x32xf32>, tensor<1x16x1x32xf32> -> tensor<1x16x1x32xf32>
  return %o : tensor<1x16x1x32xf32>
}
