// ejk-run checks the index inputs of paged MLA and of packed linear
// attention it reads with --input, naming each by the op's operand name
// (paged_mla's query starts are 'query_start_loc', not 'cu_seqlens'), and
// --validate-inputs=false runs them: the kernels clamp every index as the
// reference does, so --check still passes. Native sparse attention's given
// block indices have no validation: entries outside [0, num_blocks) are
// skipped by the op's definition, by the kernels and the reference alike.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/write_npy.py %t/ql.npy f32 3x1x4 0.5 -0.2 0.1 0.3 -0.4 0.2 0.6 -0.1 0.3 0.3 -0.5 0.2
// RUN: %python %S/Inputs/write_npy.py %t/qr.npy f32 3x1x2 0.1 -0.3 0.2 0.4 -0.2 0.5
// RUN: %python %S/Inputs/write_npy.py %t/c.npy f32 4x2x6 -0.5 0.2 -0.2 0.5 0.1 -0.3 0.4 0.0 -0.4 0.3 -0.1 -0.5 0.2 -0.2 0.5 0.1 -0.3 0.4 0.0 -0.4 0.3 -0.1 -0.5 0.2 -0.2 0.5 0.1 -0.3 0.4 0.0 -0.4 0.3 -0.1 -0.5 0.2 -0.2 0.5 0.1 -0.3 0.4 0.0 -0.4 0.3 -0.1 -0.5 0.2 -0.2 0.5
// RUN: %python %S/Inputs/write_npy.py %t/lens.npy i32 2 3 2
// RUN: %python %S/Inputs/write_npy.py %t/lens-long.npy i32 2 5 2
// RUN: %python %S/Inputs/write_npy.py %t/tables.npy i32 2x2 2 0 3 -1
// RUN: %python %S/Inputs/write_npy.py %t/tables-bad.npy i32 2x2 2 9 3 -1
// RUN: %python %S/Inputs/write_npy.py %t/starts.npy i32 3 0 1 3
// RUN: %python %S/Inputs/write_npy.py %t/starts-down.npy i32 3 0 2 1
// RUN: ejk-run %s --entry mla --input %t/ql.npy --input %t/qr.npy --input %t/c.npy --input %t/lens.npy --input %t/tables.npy --input %t/starts.npy --check | FileCheck %s --check-prefix=OK
// RUN: not ejk-run %s --entry mla --input %t/ql.npy --input %t/qr.npy --input %t/c.npy --input %t/lens-long.npy --input %t/tables.npy --input %t/starts.npy 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: not ejk-run %s --entry mla --input %t/ql.npy --input %t/qr.npy --input %t/c.npy --input %t/lens.npy --input %t/tables-bad.npy --input %t/starts.npy 2>&1 | FileCheck %s --check-prefix=PAGE
// RUN: not ejk-run %s --entry mla --input %t/ql.npy --input %t/qr.npy --input %t/c.npy --input %t/lens.npy --input %t/tables.npy --input %t/starts-down.npy 2>&1 | FileCheck %s --check-prefix=STARTS
// RUN: ejk-run %s --entry mla --input %t/ql.npy --input %t/qr.npy --input %t/c.npy --input %t/lens.npy --input %t/tables-bad.npy --input %t/starts-down.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK
// RUN: ejk-run %s --entry mla --input %t/ql.npy --input %t/qr.npy --input %t/c.npy --input %t/lens-long.npy --input %t/tables.npy --input %t/starts.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK
// OK-NOT: FAILED
// OK: result 0 ({{.*}}): {{.*}}: ok
// LONG: argument 3 ('{{.*}}lens-long.npy'): invalid context lengths: entry 0 is 5, outside [0, 4] (the tokens its page table holds)
// PAGE: argument 4 ('{{.*}}tables-bad.npy'): invalid page table: block_tables[0, 1] is 9, outside the 4 pages of the cache
// STARTS: argument 5 ('{{.*}}starts-down.npy'): invalid query_start_loc: query_start_loc decreases at 2 (2 then 1) (the kernels guard against it

func.func @mla(%ql: tensor<3x1x4xf32>, %qr: tensor<3x1x2xf32>, %c: tensor<4x2x6xf32>, %l: tensor<2xi32>, %t: tensor<2x2xi32>, %s: tensor<3xi32>) -> tensor<3x1x4xf32> {
  %o = ejk.paged_mla %ql, %qr, %c, %l, %t, %s : tensor<3x1x4xf32>, tensor<3x1x2xf32>, tensor<4x2x6xf32>, tensor<2xi32>, tensor<2x2xi32>, tensor<3xi32> -> tensor<3x1x4xf32>
  return %o : tensor<3x1x4xf32>
}

// Packed gla: cu_seqlens must start at 0, not decrease and end within the
// rows; rows after the last sequence are no sequence's (output 0).
// RUN: %python %S/Inputs/write_npy.py %t/x.npy f32 1x6x1x2 0.5 -0.2 0.1 0.3 -0.4 0.2 0.6 -0.1 0.3 0.3 -0.5 0.2
// RUN: %python %S/Inputs/write_npy.py %t/cu.npy i32 3 0 2 5
// RUN: %python %S/Inputs/write_npy.py %t/cu-down.npy i32 3 0 4 2
// RUN: %python %S/Inputs/write_npy.py %t/cu-past.npy i32 3 0 2 9
// RUN: %python %S/Inputs/write_npy.py %t/cu-start.npy i32 3 1 2 5
// RUN: ejk-run %s --entry gla --input %t/x.npy --input %t/cu.npy --check | FileCheck %s --check-prefix=OK2
// RUN: not ejk-run %s --entry gla --input %t/x.npy --input %t/cu-down.npy 2>&1 | FileCheck %s --check-prefix=DOWN
// RUN: not ejk-run %s --entry gla --input %t/x.npy --input %t/cu-past.npy 2>&1 | FileCheck %s --check-prefix=PAST
// RUN: not ejk-run %s --entry gla --input %t/x.npy --input %t/cu-start.npy 2>&1 | FileCheck %s --check-prefix=START
// RUN: ejk-run %s --entry gla --input %t/x.npy --input %t/cu-down.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK2
// RUN: ejk-run %s --entry gla --input %t/x.npy --input %t/cu-past.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK2
// OK2-NOT: FAILED
// OK2: result 0 ({{.*}}): {{.*}}: ok
// OK2: result 1 ({{.*}}): {{.*}}: ok
// DOWN: argument 1 ('{{.*}}cu-down.npy'): invalid cu_seqlens: cu_seqlens decreases at 2 (4 then 2)
// PAST: argument 1 ('{{.*}}cu-past.npy'): invalid cu_seqlens: cu_seqlens ends at 9, past the 6 packed rows
// START: argument 1 ('{{.*}}cu-start.npy'): invalid cu_seqlens: cu_seqlens[0] is 1, not 0

func.func @gla(%x: tensor<1x6x1x2xf32>, %cu: tensor<3xi32>) -> (tensor<1x6x1x2xf32>, tensor<2x1x2x2xf32>) {
  %o, %s = ejk.gla %x, %x, %x cu_seqlens(%cu : tensor<3xi32>) : tensor<1x6x1x2xf32>, tensor<1x6x1x2xf32>, tensor<1x6x1x2xf32> -> tensor<1x6x1x2xf32>, tensor<2x1x2x2xf32>
  return %o, %s : tensor<1x6x1x2xf32>, tensor<2x1x2x2xf32>
}

// Native sparse attention with given indices outside [0, num_blocks)
// (num_blocks = 2 here), negative, and INT32_MAX: skipped, not read.
// RUN: %python %S/Inputs/write_npy.py %t/nq.npy f32 1x4x1x2 0.5 -0.2 0.1 0.3 -0.4 0.2 0.6 -0.1
// RUN: %python %S/Inputs/write_npy.py %t/bi.npy i32 1x4x1x2 0 7 -3 0 2147483647 1 1 -1
// RUN: ejk-run %s --entry nsa --input %t/nq.npy --input %t/bi.npy --check | FileCheck %s --check-prefix=OK

func.func @nsa(%q: tensor<1x4x1x2xf32>, %bi: tensor<1x4x1x2xi32>) -> tensor<1x4x1x2xf32> {
  %o = ejk.native_sparse_attention %q, %q, %q block_indices(%bi : tensor<1x4x1x2xi32>) {block_size = 2 : i64} : tensor<1x4x1x2xf32>, tensor<1x4x1x2xf32>, tensor<1x4x1x2xf32> -> tensor<1x4x1x2xf32>
  return %o : tensor<1x4x1x2xf32>
}
