// ejk-tune on a tiny shape with the small space: every candidate is checked
// against the reference and timed, the winner is stored, and the compiling
// tools then take it from the database (unless an overlay says otherwise).

// RUN: rm -rf %t && mkdir -p %t
// RUN: env EJK_CACHE_DIR=%t/cache ejk-tune %s --target cpu --space small --runs 2 --warmup 1 | FileCheck %s --check-prefix=CHECK-TUNE
// CHECK-TUNE: compiling candidates of ejk.flash_attention;q=1x64x2x32xf32;k=1x64x2x32xf32;v=1x64x2x32xf32;
// CHECK-TUNE: config{{ +}}status{{ +}}median ms{{ +}}min ms
// CHECK-TUNE-DAG: block_k=64,block_q=16{{ +}}ok{{.*}}(heuristic)
// CHECK-TUNE-DAG: block_k=64,block_q=8{{ +}}ok
// CHECK-TUNE-DAG: block_k=64,block_q=32{{ +}}ok
// CHECK-TUNE: winner block_k=64,block_q={{[0-9]+}}: {{.*}} the heuristic
// CHECK-TUNE: tuned 1 problem(s) in
// CHECK-TUNE: #ejk.config<{{.*}}> from the autotune tier

// A second run finds it in the database; --retune tunes again.
// RUN: env EJK_CACHE_DIR=%t/cache ejk-tune %s | FileCheck %s --check-prefix=CHECK-AGAIN
// CHECK-AGAIN-NOT: compiling candidates
// CHECK-AGAIN: from the database tier

// The compiling tools use the database of this machine's fingerprint.
// RUN: env EJK_CACHE_DIR=%t/cache ejkc %s --emit=ir-after-tiling --ejk-explain-configs -o %t/out 2>&1 | FileCheck %s --check-prefix=CHECK-EJKC
// CHECK-EJKC: remark: config #ejk.config<{{.*}}> from the database tier for ejk.flash_attention;q=1x64x2x32xf32

// The overlay file wins over the database.
// RUN: env EJK_CACHE_DIR=%t/cache ejk-run %s --entry attention --random-inputs 3 --check --config-overlay %S/Inputs/overlay.json --ejk-explain-configs 2>&1 | FileCheck %s --check-prefix=CHECK-OVERLAY
// CHECK-OVERLAY: remark: config #ejk.config<block_k = 64, block_q = 8> from the overlay tier
// CHECK-OVERLAY: result 0 (f32): {{.*}}: ok

// --record logs the problem; --recorded tunes what the database lacks.
// RUN: env EJK_CACHE_DIR=%t/rec ejkc %s --record -o %t/out 2>&1
// RUN: env EJK_CACHE_DIR=%t/rec ejk-tune --recorded --runs 1 --warmup 0 | FileCheck %s --check-prefix=CHECK-RECORDED
// RUN: env EJK_CACHE_DIR=%t/rec ejk-tune --recorded | FileCheck %s --check-prefix=CHECK-RECORDED-DONE
// CHECK-RECORDED: recorded problems to tune: 1
// CHECK-RECORDED: from the autotune tier
// CHECK-RECORDED-DONE: recorded problems to tune: 0
// CHECK-RECORDED-DONE: no tunable ops to tune

// Tuning a device elsewhere: compile the candidates here, time them with
// the MLIR-free runner "there", import the results.
// RUN: ejk-run --fingerprint-out %t/device.txt
// RUN: ejk-tune %s --emit-candidates %t/cand --fingerprint %t/device.txt | FileCheck %s --check-prefix=CHECK-EMIT
// CHECK-EMIT: wrote 3 candidates of 1 problem(s) to {{.*}}cand
// RUN: ejk-tune-runner %t/cand --runs 1 --warmup 0 | FileCheck %s --check-prefix=CHECK-RUNNER
// CHECK-RUNNER: <- winner
// CHECK-RUNNER: wrote {{.*}}cand/results.json
// RUN: env EJK_CACHE_DIR=%t/remote ejk-tune --import-results %t/cand/results.json | FileCheck %s --check-prefix=CHECK-IMPORT
// CHECK-IMPORT: stored 1 winner(s) in {{.*}}remote/tuning/{{[0-9a-f]+}}.json
// RUN: env EJK_CACHE_DIR=%t/remote ejkc %s --ejk-explain-configs -o %t/out 2>&1 | FileCheck %s --check-prefix=CHECK-EJKC

// Export and import of database files.
// RUN: env EJK_CACHE_DIR=%t/cache ejk-tune --export-db %t/export.json | FileCheck %s --check-prefix=CHECK-EXPORT
// CHECK-EXPORT: exported 1 entries of
// RUN: env EJK_CACHE_DIR=%t/other ejk-tune --import-db %t/export.json | FileCheck %s --check-prefix=CHECK-IMPORTDB
// CHECK-IMPORTDB: imported 1 entry into
// RUN: env EJK_CACHE_DIR=%t/other ejkc %s --ejk-explain-configs -o %t/out 2>&1 | FileCheck %s --check-prefix=CHECK-EJKC

func.func @attention(%q: tensor<1x64x2x32xf32>, %k: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>) -> tensor<1x64x2x32xf32> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x2x32xf32>
  return %o : tensor<1x64x2x32xf32>
}
