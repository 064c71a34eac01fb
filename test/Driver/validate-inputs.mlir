// ejk-run checks the group sizes and cu_seqlens it reads with --input
// (the kernels guard every access either way, but the answer would not be
// the op's); --validate-inputs=false runs them, and --check then compares
// the kernels' guarded result with the reference's.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/write_npy.py %t/lhs.npy f32 6x2 1 2 3 4 5 6 7 8 9 10 11 12
// RUN: %python %S/Inputs/write_npy.py %t/rhs.npy f32 2x2x3 1 0 0 0 1 0 0 0 1 1 1 1
// RUN: %python %S/Inputs/write_npy.py %t/good.npy i32 2 2 3
// RUN: %python %S/Inputs/write_npy.py %t/negative.npy i32 2 -1 3
// RUN: %python %S/Inputs/write_npy.py %t/toomany.npy i32 2 4 5
// RUN: ejk-run %s --entry gmm --input %t/lhs.npy --input %t/rhs.npy --input %t/good.npy --check | FileCheck %s --check-prefix=OK
// RUN: not ejk-run %s --entry gmm --input %t/lhs.npy --input %t/rhs.npy --input %t/negative.npy 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not ejk-run %s --entry gmm --input %t/lhs.npy --input %t/rhs.npy --input %t/toomany.npy 2>&1 | FileCheck %s --check-prefix=TOOMANY
// RUN: ejk-run %s --entry gmm --input %t/lhs.npy --input %t/rhs.npy --input %t/toomany.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK
// RUN: ejk-run %s --entry gmm --input %t/lhs.npy --input %t/rhs.npy --input %t/negative.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK

// RUN: %python %S/Inputs/write_npy.py %t/x.npy f32 5x2 1 2 3 4 5 6 7 8 9 10
// RUN: %python %S/Inputs/write_npy.py %t/cu.npy i32 3 0 2 5
// RUN: %python %S/Inputs/write_npy.py %t/cu-down.npy i32 3 0 4 2
// RUN: %python %S/Inputs/write_npy.py %t/cu-past.npy i32 3 0 2 9
// RUN: ejk-run %s --entry pool --input %t/x.npy --input %t/cu.npy --check | FileCheck %s --check-prefix=OK
// RUN: not ejk-run %s --entry pool --input %t/x.npy --input %t/cu-down.npy 2>&1 | FileCheck %s --check-prefix=DOWN
// RUN: not ejk-run %s --entry pool --input %t/x.npy --input %t/cu-past.npy 2>&1 | FileCheck %s --check-prefix=PAST
// RUN: ejk-run %s --entry pool --input %t/x.npy --input %t/cu-past.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK

// OK: result 0 ({{.*}}): {{.*}}: ok
// NEGATIVE: argument 2 ('{{.*}}negative.npy'): invalid group sizes: group 0 has a negative size (-1) (the kernels guard against it, but the result is not the op's; pass --validate-inputs=false to run anyway)
// TOOMANY: invalid group sizes: the group sizes up to group 1 sum to 9, more than the 6 rows
// DOWN: argument 1 ('{{.*}}cu-down.npy'): invalid cu_seqlens: cu_seqlens decreases at 2 (4 then 2)
// PAST: invalid cu_seqlens: cu_seqlens ends at 9, past the 5 packed rows

func.func @gmm(%lhs: tensor<6x2xf32>, %rhs: tensor<2x2x3xf32>, %sizes: tensor<2xi32>) -> tensor<6x3xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes : tensor<6x2xf32>, tensor<2x2x3xf32>, tensor<2xi32> -> tensor<6x3xf32>
  return %out : tensor<6x3xf32>
}

func.func @pool(%x: tensor<5x2xf32>, %cu: tensor<3xi32>) -> tensor<2x2xf32> {
  %y = ejk.mean_pooling %x cu_seqlens(%cu : tensor<3xi32>) : tensor<5x2xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// Paged attention: the lengths must fit the tables, and the pages a length
// reaches must be in the cache; entries past a sequence's last page are not
// read and are not checked.
// RUN: %python %S/Inputs/write_npy.py %t/q.npy f32 2x2x4 1 0 0 0 0 1 0 0 1 1 0 0 0 0 1 1
// RUN: %python %S/Inputs/write_npy.py %t/kc.npy f32 3x1x2x4 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1 1 1 0 0 0 1 1 0
// RUN: %python %S/Inputs/write_npy.py %t/vc.npy f32 3x1x2x4 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24
// RUN: %python %S/Inputs/write_npy.py %t/lens.npy i32 2 3 1
// RUN: %python %S/Inputs/write_npy.py %t/lens-long.npy i32 2 3 5
// RUN: %python %S/Inputs/write_npy.py %t/tables.npy i32 2x2 2 0 1 -1
// RUN: %python %S/Inputs/write_npy.py %t/tables-bad.npy i32 2x2 2 7 1 -1
// RUN: ejk-run %s --entry paged --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens.npy --input %t/tables.npy --check | FileCheck %s --check-prefix=OK
// RUN: not ejk-run %s --entry paged --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens-long.npy --input %t/tables.npy 2>&1 | FileCheck %s --check-prefix=LONG
// RUN: not ejk-run %s --entry paged --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens.npy --input %t/tables-bad.npy 2>&1 | FileCheck %s --check-prefix=PAGE
// RUN: ejk-run %s --entry paged --input %t/q.npy --input %t/kc.npy --input %t/vc.npy --input %t/lens.npy --input %t/tables-bad.npy --validate-inputs=false --check | FileCheck %s --check-prefix=OK
// LONG: argument 3 ('{{.*}}lens-long.npy'): invalid context lengths: entry 1 is 5, outside [0, 4] (the tokens its page table holds)
// PAGE: argument 4 ('{{.*}}tables-bad.npy'): invalid page table: block_tables[0, 1] is 7, outside the 3 pages of the cache

func.func @paged(%q: tensor<2x2x4xf32>, %kc: tensor<3x1x2x4xf32>, %vc: tensor<3x1x2x4xf32>, %lens: tensor<2xi32>, %tables: tensor<2x2xi32>) -> tensor<2x2x4xf32> {
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x2x4xf32>, tensor<3x1x2x4xf32>, tensor<3x1x2x4xf32>, tensor<2xi32>, tensor<2x2xi32> -> tensor<2x2x4xf32>
  return %o : tensor<2x2x4xf32>
}
