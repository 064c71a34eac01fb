// A config stored in the tuning database (written here into a fresh cache)
// reaches the IR, the cache answers repeats, and the overlay beats both.

// RUN: rm -rf %t && mkdir -p %t
// RUN: ejk-tune --import-db %S/Inputs/tuned-db.json --cache-dir %t/cache | FileCheck %s --check-prefix=CHECK-IMPORT
// CHECK-IMPORT: imported 1 entry into {{.*}}/cache/tuning/3984001c3c920d3e.json

// RUN: ejk-opt %s -ejk-select-configs="fingerprint=%S/Inputs/test-fingerprint.txt cache-dir=%t/cache explain=true" 2>%t/db.err | FileCheck %s --check-prefix=CHECK-DB
// RUN: FileCheck %s --check-prefix=CHECK-DB-REMARK < %t/db.err
// CHECK-DB-LABEL: func.func @tuned
// CHECK-DB: ejk.flash_attention {{.*}}config = #ejk.config<block_k = 32, block_q = 4>
// CHECK-DB: ejk.flash_attention {{.*}}config = #ejk.config<block_k = 32, block_q = 4>
// CHECK-DB-LABEL: func.func @untuned
// CHECK-DB: ejk.flash_attention {{.*}}config = #ejk.config<block_k = 128, block_q = 16>
// CHECK-DB-REMARK: remark: config #ejk.config<block_k = 32, block_q = 4> from the database tier for ejk.flash_attention;q=1x64x2x32xf32;
// CHECK-DB-REMARK: remark: config #ejk.config<block_k = 32, block_q = 4> from the cache tier
// CHECK-DB-REMARK: remark: config #ejk.config<block_k = 128, block_q = 16> from the heuristic tier

// EJK_CACHE_DIR is the default cache root; EJK_LOG_AUTOTUNE=1 explains.
// RUN: env EJK_CACHE_DIR=%t/cache EJK_LOG_AUTOTUNE=1 ejk-opt %s -ejk-select-configs="fingerprint=%S/Inputs/test-fingerprint.txt" -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHECK-ENV
// CHECK-ENV: from the database tier

// The overlay beats the database.
// RUN: ejk-opt %s -ejk-select-configs="fingerprint=%S/Inputs/test-fingerprint.txt cache-dir=%t/cache config-overlay=%S/Inputs/overlay.json explain=true" 2>&1 | FileCheck %s --check-prefix=CHECK-OVERLAY
// CHECK-OVERLAY: remark: config #ejk.config<block_k = 64, block_q = 8> from the overlay tier
// CHECK-OVERLAY-LABEL: func.func @tuned
// CHECK-OVERLAY: config = #ejk.config<block_k = 64, block_q = 8>

// Without a device there is no database tier.
// RUN: ejk-opt %s -ejk-select-configs | FileCheck %s --check-prefix=CHECK-NODB
// CHECK-NODB-LABEL: func.func @tuned
// CHECK-NODB: config = #ejk.config<block_k = 64, block_q = 16>

// A corrupt database is reported, set aside, and the compile goes on.
// RUN: echo "{ not json" > %t/cache/tuning/3984001c3c920d3e.json
// RUN: ejk-opt %s -ejk-select-configs="fingerprint=%S/Inputs/test-fingerprint.txt cache-dir=%t/cache" 2>&1 | FileCheck %s --check-prefix=CHECK-CORRUPT
// RUN: ls %t/cache/tuning | FileCheck %s --check-prefix=CHECK-SETASIDE
// CHECK-CORRUPT: warning: tuning database '{{.*}}3984001c3c920d3e.json' is unusable (not valid JSON); set aside as '{{.*}}3984001c3c920d3e.json.corrupt-1'; using no tuned configs
// CHECK-CORRUPT-LABEL: func.func @tuned
// CHECK-CORRUPT: config = #ejk.config<block_k = 64, block_q = 16>
// CHECK-SETASIDE: 3984001c3c920d3e.json.corrupt-1

func.func @tuned(%q: tensor<1x64x2x32xf32>, %k: tensor<1x64x2x32xf32>, %v: tensor<1x64x2x32xf32>) -> (tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>) {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x2x32xf32>
  %p = ejk.flash_attention %q, %k, %v : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32> -> tensor<1x64x2x32xf32>
  return %o, %p : tensor<1x64x2x32xf32>, tensor<1x64x2x32xf32>
}

func.func @untuned(%q: tensor<1x256x2x32xf32>, %k: tensor<1x256x2x32xf32>, %v: tensor<1x256x2x32xf32>) -> tensor<1x256x2x32xf32> {
  %o = ejk.flash_attention %q, %k, %v : tensor<1x256x2x32xf32>, tensor<1x256x2x32xf32>, tensor<1x256x2x32xf32> -> tensor<1x256x2x32xf32>
  return %o : tensor<1x256x2x32xf32>
}
