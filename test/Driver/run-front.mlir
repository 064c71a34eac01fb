// ejk-run's front runs a file it has run before without the compiler
// (through the source index); any change to the file, the flags, the overlay
// or the tuning database misses and compiles; a damaged index entry is a
// miss, never a crash.
// RUN: rm -rf %t && mkdir -p %t && cp %s %t/f.mlir
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --output %t/a.npy --verbose 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --output %t/b.npy --verbose 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t/a.npy %t/b.npy
// Flag spellings llvm::cl accepts hit as well.
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run -entry=attn %t/f.mlir --random-inputs=3 --output=%t/c.npy -verbose 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t/a.npy %t/c.npy
//
// Every input of the compile is in the key.
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --vector-bits 128 --load-only --verbose 2>&1 | FileCheck %s --check-prefix=MISS
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --vector-bits 128 --load-only --verbose 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: echo '{"configs": {}}' > %t/overlay.json
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --config-overlay %t/overlay.json --load-only --verbose 2>&1 | FileCheck %s --check-prefix=FRONT-MISS
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --config-overlay %t/overlay.json --load-only --verbose 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: echo '{"configs": { }}' > %t/overlay.json
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --config-overlay %t/overlay.json --load-only --verbose 2>&1 | FileCheck %s --check-prefix=FRONT-MISS
// RUN: env EJK_CACHE_DIR=%t/cache EJK_AUTOTUNE_POLICY=heuristics ejk-run %t/f.mlir --entry attn --random-inputs 3 --load-only --verbose 2>&1 | FileCheck %s --check-prefix=FRONT-MISS
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run --fingerprint-out %t/fp
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run --print-fingerprint | sed -n 's/^# hash //p' > %t/fp-hash
// RUN: %python %S/Inputs/empty_tuning_db.py %t/fp %{readfile:%t/fp-hash} %t/cache
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --load-only --verbose 2>&1 | FileCheck %s --check-prefix=FRONT-MISS
// An edit to the file, even one that compiles to the same kernel.
// RUN: echo '// an edit' >> %t/f.mlir
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --output %t/d.npy --verbose 2>&1 | FileCheck %s --check-prefix=FRONT-MISS
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --output %t/e.npy --verbose 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t/a.npy %t/e.npy
//
// A damaged index entry (here: every one) is a miss and is rewritten.
// RUN: bash -c 'for f in %t/cache/artifacts/source-index/*; do printf "ejk-source-index 1 garbage\n{" > $f; done'
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --output %t/f.npy --verbose 2>&1 | FileCheck %s --check-prefix=DAMAGED
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --output %t/g.npy --verbose 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t/a.npy %t/f.npy && cmp %t/a.npy %t/g.npy
// So is an index entry whose body was edited without its hash.
// RUN: bash -c 'for f in %t/cache/artifacts/source-index/*; do sed -i "s/\"attn\"/\"attm\"/" $f; done'
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --load-only --verbose 2>&1 | FileCheck %s --check-prefix=DAMAGED
// And an artifact entry that does not verify (it is recompiled).
// RUN: bash -c 'for f in %t/cache/artifacts/*/kernel.so; do echo x >> $f; done'
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --output %t/h.npy --verbose 2>&1 | FileCheck %s --check-prefix=CORRUPT
// RUN: cmp %t/a.npy %t/h.npy
//
// Flags the front does not handle go to the compiling tool as they are.
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --check --verbose 2>&1 | FileCheck %s --check-prefix=CHECK
// RUN: env EJK_CACHE_DIR=%t/cache not ejk-run %t/f.mlir --entry attn --no-such-flag 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// The front's own errors read like the compiling tool's.
// RUN: env EJK_CACHE_DIR=%t/cache not ejk-run %t/f.mlir --entry attn 2>&1 | FileCheck %s --check-prefix=NOINPUTS
// RUN: env EJK_CACHE_DIR=%t/cache not ejk-run-compile %t/f.mlir --entry attn 2>&1 | FileCheck %s --check-prefix=NOINPUTS
//
// An index that cannot be written: a warning, and the run goes on.
// RUN: bash -c 'rm -rf %t/cache/artifacts/source-index && touch %t/cache/artifacts/source-index'
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %t/f.mlir --entry attn --random-inputs 3 --output %t/i.npy 2>&1 | FileCheck %s --check-prefix=NOINDEX
// RUN: cmp %t/a.npy %t/i.npy

// MISS: ejk-run: source index miss
// MISS: ejk-run: cache miss
// HIT: ejk-run: cache hit {{[0-9a-f]+}} in {{[0-9.]+}} s ({{.*}}) through the source index
// FRONT-MISS: ejk-run: source index miss
// FRONT-MISS-NOT: source index miss
// FRONT-MISS: ejk-run: cache {{hit|miss}}
// FRONT-MISS-NOT: through the source index
// DAMAGED: ejk-run: source index miss {{[0-9a-f]+}}: source index entry '{{.*}}' not used: {{.*}}
// DAMAGED: ejk-run: cache hit
// DAMAGED-NOT: through the source index
// CORRUPT: ejk-run: source index miss {{[0-9a-f]+}}: cache entry '{{.*}}' not used: 'kernel.so' has {{[0-9]+}} bytes, expected
// CORRUPT: ejk-run: warning: cache entry '{{.*}}' not used: 'kernel.so' has
// CORRUPT: ejk-run: cache miss
// CHECK-NOT: source index
// CHECK: ejk-run: cache hit
// CHECK: result 0 (f32): {{.*}}: ok
// UNKNOWN: ejk-run: Unknown command line argument '--no-such-flag'. Try: 'ejk-run --help'
// NOINPUTS: ejk-run: error: no inputs: give --input for each of the 3 arguments, or --random-inputs SEED
// NOINDEX: ejk-run: warning: source index not written: '{{.*}}/source-index' is not a directory
// NOINDEX-NOT: error

func.func @attn(%q: tensor<1x32x2x32xf32>, %k: tensor<1x32x2x32xf32>, %v: tensor<1x32x2x32xf32>) -> tensor<1x32x2x32xf32> {
  %o = ejk.flash_attention %q, %k, %v
      : tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32>, tensor<1x32x2x32xf32> -> tensor<1x32x2x32xf32>
  return %o : tensor<1x32x2x32xf32>
}
