// ejk-run checks the index inputs of a ragged batch it reads with --input
// and names the first bad entry: start locations (cu_q_lens), lengths below
// their query counts or past their tables, pages outside the cache, a live
// count past the slots. The kernels clamp every index either way;
// --validate-inputs=false runs the guarded batch and --check compares it
// with the reference's (which guards alike).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/write_npy.py %t/q.npy f32 4x2x4 1 0 0 0 0 1 0 0 1 1 0 0 0 0 1 1 1 0 1 0 0 1 0 1 1 1 1 0 0 0 0 1
// RUN: %python %S/Inputs/write_npy.py %t/kc.npy f32 3x2x1x4 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1 1 1 0 0 0 1 1 0
// RUN: %python %S/Inputs/write_npy.py %t/vc.npy f32 3x2x1x4 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24
// RUN: %python %S/Inputs/write_npy.py %t/lens.npy i32 2 3 1
// RUN: %python %S/Inputs/write_npy.py %t/lens-short.npy i32 2 2 1
// RUN: %python %S/Inputs/write_npy.py %t/lens-long.npy i32 2 5 1
// RUN: %python %S/Inputs/write_npy.py %t/tables.npy i32 2x2 2 0 1 -1
// RUN: %python %S/Inputs/write_npy.py %t/tables-bad.npy i32 2x2 2 7 1 -1
// RUN: %python %S/Inputs/write_npy.py %t/cu.npy i32 3 0 3 4
// RUN: %python %S/Inputs/write_npy.py %t/cu-down.npy i32 3 0 3 2
// RUN: %python %S/Inputs/write_npy.py %t/n.npy i32 1 2
// RUN: %python %S/Inputs/write_npy.py %t/n-one.npy i32 1 1
// RUN: %python %S/Inputs/write_npy.py %t/n-bad.npy i32 1 3
// RUN: ejk-run %s --entry ragged --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens.npy --input %t/tables.npy --input %t/cu.npy --input %t/n.npy --check | FileCheck %s --check-prefix=OK
// RUN: ejk-run %s --entry ragged --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens.npy --input %t/tables.npy --input %t/cu.npy --input %t/n-one.npy --check | FileCheck %s --check-prefix=OK
// RUN: not ejk-run %s --entry ragged --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens-short.npy --input %t/tables.npy --input %t/cu.npy --input %t/n.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not ejk-run %s --entry ragged --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens-long.npy --input %t/tables.npy --input %t/cu.npy --input %t/n.npy 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: not ejk-run %s --entry ragged --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens.npy --input %t/tables-bad.npy --input %t/cu.npy --input %t/n.npy 2>&1 | FileCheck %s --check-prefix=PAGE
// RUN: not ejk-run %s --entry ragged --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens.npy --input %t/tables.npy --input %t/cu-down.npy --input %t/n.npy 2>&1 | FileCheck %s --check-prefix=DOWN
// RUN: not ejk-run %s --entry ragged --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens.npy --input %t/tables.npy --input %t/cu.npy --input %t/n-bad.npy 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: ejk-run %s --entry ragged --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens-short.npy --input %t/tables-bad.npy --input %t/cu-down.npy --input %t/n-bad.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK

// OK: result 0 ({{.*}}): {{.*}}: ok
// SHORT: argument 6 ('{{.*}}n.npy'): invalid ragged batch: kv_lens[0] is 2, outside [3, 4] (its query count, the tokens its page table holds)
// LONG: argument 3 ('{{.*}}lens-long.npy'): invalid context lengths: entry 0 is 5, outside [0, 4] (the tokens its page table holds)
// The table is named as the op names it (paged_attention's block_tables
// is ragged's page_indices).
// PAGE: argument 4 ('{{.*}}tables-bad.npy'): invalid page table: page_indices[0, 1] is 7, outside the 3 pages of the cache
// DOWN: argument 5 ('{{.*}}cu-down.npy'): invalid cu_q_lens: cu_q_lens decreases at 2 (3 then 2)
// COUNT: argument 6 ('{{.*}}n-bad.npy'): invalid sequence count: num_seqs is 3, outside [0, 2] (the sequence slots)

func.func @ragged(%q: tensor<4x2x4xf32>, %kc: tensor<3x2x1x4xf32>, %vc: tensor<3x2x1x4xf32>, %lens: tensor<2xi32>, %tables: tensor<2x2xi32>, %cu: tensor<3xi32>, %n: tensor<1xi32>) -> tensor<4x2x4xf32> {
  %o = ejk.ragged_paged_attention %q, %kc, %vc, %lens, %tables, %cu, %n : tensor<4x2x4xf32>, tensor<3x2x1x4xf32>, tensor<3x2x1x4xf32>, tensor<2xi32>, tensor<2x2xi32>, tensor<3xi32>, tensor<1xi32> -> tensor<4x2x4xf32>
  return %o : tensor<4x2x4xf32>
}
