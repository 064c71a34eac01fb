// ejk-run checks the index inputs of ejk.unified_attention and
// ejk.ragged_decode_attention it reads with --input and names the entry at
// fault as the op names its operand; --validate-inputs=false runs them
// (the kernels clamp every index) and --check compares the guarded result
// with the reference's.
// RUN: rm -rf %t && mkdir -p %t

// unified_attention: every slot is live, so the batch is checked at
// query_start_loc, its last index input.
// RUN: %python %S/Inputs/write_npy.py %t/q.npy f32 4x2x4 1 0 0 0 0 1 0 0 1 1 0 0 0 0 1 1 1 0 1 0 0 1 0 1 1 1 1 0 0 0 0 1
// RUN: %python %S/Inputs/write_npy.py %t/kc.npy f32 3x2x1x4 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1 1 1 0 0 0 1 1 0
// RUN: %python %S/Inputs/write_npy.py %t/vc.npy f32 3x2x1x4 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24
// RUN: %python %S/Inputs/write_npy.py %t/lens.npy i32 2 3 1
// RUN: %python %S/Inputs/write_npy.py %t/lens-short.npy i32 2 2 1
// RUN: %python %S/Inputs/write_npy.py %t/lens-long.npy i32 2 5 1
// RUN: %python %S/Inputs/write_npy.py %t/tables.npy i32 2x2 2 0 1 -1
// RUN: %python %S/Inputs/write_npy.py %t/tables-bad.npy i32 2x2 2 7 1 -1
// RUN: %python %S/Inputs/write_npy.py %t/starts.npy i32 3 0 3 4
// RUN: %python %S/Inputs/write_npy.py %t/starts-down.npy i32 3 0 3 2
// RUN: %python %S/Inputs/write_npy.py %t/starts-past.npy i32 3 0 3 9
// RUN: ejk-run %s --entry unified --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens.npy --input %t/tables.npy --input %t/starts.npy --check | FileCheck %s --check-prefix=OK
// RUN: not ejk-run %s --entry unified --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens-short.npy --input %t/tables.npy --input %t/starts.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: not ejk-run %s --entry unified --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens-long.npy --input %t/tables.npy --input %t/starts.npy 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: not ejk-run %s --entry unified --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens.npy --input %t/tables-bad.npy --input %t/starts.npy 2>&1 | FileCheck %s --check-prefix=PAGE
// RUN: not ejk-run %s --entry unified --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens.npy --input %t/tables.npy --input %t/starts-down.npy 2>&1 | FileCheck %s --check-prefix=DOWN
// RUN: not ejk-run %s --entry unified --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens.npy --input %t/tables.npy --input %t/starts-past.npy 2>&1 | FileCheck %s --check-prefix=PAST
// RUN: ejk-run %s --entry unified --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens-short.npy --input %t/tables-bad.npy --input %t/starts-down.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK
// RUN: ejk-run %s --entry unified --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens-long.npy --input %t/tables.npy --input %t/starts-past.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK

// OK: result 0 ({{.*}}): {{.*}}: ok
// SHORT: argument 5 ('{{.*}}starts.npy'): invalid ragged batch: kv_lens[0] is 2, outside [3, 4] (its query count, the tokens its page table holds)
// LONG: argument 3 ('{{.*}}lens-long.npy'): invalid context lengths: entry 0 is 5, outside [0, 4] (the tokens its page table holds)
// PAGE: argument 4 ('{{.*}}tables-bad.npy'): invalid page table: block_tables[0, 1] is 7, outside the 3 pages of the cache
// DOWN: argument 5 ('{{.*}}starts-down.npy'): invalid query_start_loc: query_start_loc decreases at 2 (3 then 2)
// PAST: argument 5 ('{{.*}}starts-past.npy'): invalid query_start_loc: query_start_loc ends at 9, past the 4 packed rows

func.func @unified(%q: tensor<4x2x4xf32>, %kc: tensor<3x2x1x4xf32>, %vc: tensor<3x2x1x4xf32>, %lens: tensor<2xi32>, %tables: tensor<2x2xi32>, %starts: tensor<3xi32>) -> tensor<4x2x4xf32> {
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<4x2x4xf32>, tensor<3x2x1x4xf32>, tensor<3x2x1x4xf32>, tensor<2xi32>, tensor<2x2xi32>, tensor<3xi32> -> tensor<4x2x4xf32>
  return %o : tensor<4x2x4xf32>
}

// ragged_decode_attention: ends within the row's keys, each start in
// [0, its end]; checked at sequence_end.
// RUN: %python %S/Inputs/write_npy.py %t/dq.npy f32 2x2x4 1 0 0 0 0 1 0 0 1 1 0 0 0 0 1 1
// RUN: %python %S/Inputs/write_npy.py %t/dk.npy f32 2x4x1x4 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1 1 1 0 0 0 1 1 0 0 0 1 1 1 0 0 1
// RUN: %python %S/Inputs/write_npy.py %t/dv.npy f32 2x4x1x4 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
// RUN: %python %S/Inputs/write_npy.py %t/s.npy i32 2 0 1
// RUN: %python %S/Inputs/write_npy.py %t/s-past-end.npy i32 2 4 1
// RUN: %python %S/Inputs/write_npy.py %t/s-negative.npy i32 2 -1 1
// RUN: %python %S/Inputs/write_npy.py %t/e.npy i32 2 3 4
// RUN: %python %S/Inputs/write_npy.py %t/e-long.npy i32 2 3 5
// RUN: ejk-run %s --entry decode --input %t/dq.npy --input %t/dk.npy --input %t/dv.npy --input %t/s.npy --input %t/e.npy --check | FileCheck %s --check-prefix=OK
// RUN: not ejk-run %s --entry decode --input %t/dq.npy --input %t/dk.npy --input %t/dv.npy --input %t/s.npy --input %t/e-long.npy 2>&1 | FileCheck %s --check-prefix=END
// RUN: not ejk-run %s --entry decode --input %t/dq.npy --input %t/dk.npy --input %t/dv.npy --input %t/s-past-end.npy --input %t/e.npy 2>&1 | FileCheck %s --check-prefix=START
// RUN: not ejk-run %s --entry decode --input %t/dq.npy --input %t/dk.npy --input %t/dv.npy --input %t/s-negative.npy --input %t/e.npy 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: ejk-run %s --entry decode --input %t/dq.npy --input %t/dk.npy --input %t/dv.npy --input %t/s-past-end.npy --input %t/e-long.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK
// RUN: ejk-run %s --entry decode --input %t/dq.npy --input %t/dk.npy --input %t/dv.npy --input %t/s-negative.npy --input %t/e.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK

// END: argument 4 ('{{.*}}e-long.npy'): invalid sequence bounds: sequence_end[1] is 5, outside [0, 4] (the keys of its row)
// START: argument 4 ('{{.*}}e.npy'): invalid sequence bounds: sequence_start[0] is 4, outside [0, 3] (0 and its sequence_end)
// NEGATIVE: argument 4 ('{{.*}}e.npy'): invalid sequence bounds: sequence_start[0] is -1, outside [0, 3] (0 and its sequence_end)

func.func @decode(%q: tensor<2x2x4xf32>, %k: tensor<2x4x1x4xf32>, %v: tensor<2x4x1x4xf32>, %s: tensor<2xi32>, %e: tensor<2xi32>) -> tensor<2x2x4xf32> {
  %o = ejk.ragged_decode_attention %q, %k, %v, %s, %e : tensor<2x2x4xf32>, tensor<2x4x1x4xf32>, tensor<2x4x1x4xf32>, tensor<2xi32>, tensor<2xi32> -> tensor<2x2x4xf32>
  return %o : tensor<2x2x4xf32>
}
