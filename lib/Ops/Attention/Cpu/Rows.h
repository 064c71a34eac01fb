//===- Rows.h - rows of a CPU attention workgroup ---------------*- C++ -*-===//
//
// How the CPU attention kernel assigns query rows to workgroups, shared by
// config verification (key_splits needs one row block per head) and the
// kernel builders (lib/Ops/Attention/Cpu/Kernel.h), so that both read
// the same rules.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_CPU_ROWS_H
#define EJK_OPS_ATTENTION_CPU_ROWS_H

#include <cstdint>

namespace mlir::ejk {

struct CpuAttentionRows {
  int64_t seqQ, numHeads, numKvHeads, blockQ;

  /// Query heads per KV head.
  int64_t groupSize() const { return numHeads / numKvHeads; }
  /// Whether a workgroup's rows run over the query heads of one KV head as
  /// well as over positions (row = head in group * seq_q + position): when
  /// one head's seq_q would leave rows of the block idle (decode), the
  /// heads that share K/V fill them, and each K/V block is read once for
  /// all of them instead of once per head.
  bool packsGroupRows() const { return groupSize() > 1 && seqQ < blockQ; }
  /// Rows per (KV head or head, batch) of the grid.
  int64_t rowsPerHead() const {
    return packsGroupRows() ? groupSize() * seqQ : seqQ;
  }
  /// Whether one row block covers all rows of a head: then the keys may be
  /// split across workgroups (key_splits).
  bool oneRowBlockPerHead() const { return rowsPerHead() <= blockQ; }
  /// Rows up to which K/V are read in place (see readsKvInPlace): beyond,
  /// the per-key dot products (one horizontal sum per row and key) cost
  /// more than packing K^T for the outer-product form (MQA decode, 32 rows:
  /// 0.46 ms in place against 0.38 ms packed).
  static constexpr int64_t kMaxInPlaceRows = 8;
  /// Whether the kernel reads K and V where they are instead of packing
  /// them first: each K/V element is read by one workgroup only (one row
  /// block per head), so packing would only add a copy, and the rows are
  /// few (decode).
  bool readsKvInPlace() const {
    return oneRowBlockPerHead() && rowsPerHead() <= kMaxInPlaceRows;
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_ATTENTION_CPU_ROWS_H
