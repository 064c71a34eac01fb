//===- ThreadTile.h - a thread's part of a register tile --------*- C++ -*-===//
//
// The rows and columns one thread owns of a VulkanTile (Layout.h), as the
// SSD kernels (SsdKernel.cpp, SsdChunkedKernel.cpp) index them.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_STATESPACE_VULKAN_THREADTILE_H
#define EJK_OPS_STATESPACE_VULKAN_THREADTILE_H

#include "Common/CpuEmitter.h"

#include "StateSpace/Vulkan/Layout.h"

namespace mlir::ejk {

/// This thread's rows and columns of a register tile: indices clamped into
/// the tile (for loads) and whether each is inside it (null when always).
struct ThreadTile {
  SmallVector<Value> rows, cols, rowValid, colValid;
  Value rowStart;

  ThreadTile(Emitter &e, const VulkanTile &t, Value thread) {
    Value tx = arith::RemUIOp::create(e.b, thread, e.index(t.threadsX));
    Value ty = arith::DivUIOp::create(e.b, thread, e.index(t.threadsX));
    rowStart = e.mul(ty, e.index(t.rowsPerThread));
    bool rowsExact = t.rowsPerThread * t.threadsY == t.rows;
    for (int64_t i = 0; i < t.rowsPerThread; ++i) {
      Value r = e.add(rowStart, e.index(i));
      rows.push_back(e.min(r, e.index(t.rows - 1)));
      rowValid.push_back(
          rowsExact ? Value()
                    : arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, r,
                                            e.index(t.rows)));
    }
    for (int64_t j = 0; j < t.colsPerThread; ++j) {
      Value c = e.add(tx, e.index(j * t.threadsX));
      bool exact = (j + 1) * t.threadsX <= t.cols;
      cols.push_back(exact ? c : e.min(c, e.index(t.cols - 1)));
      colValid.push_back(
          exact ? Value()
                : arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, c,
                                        e.index(t.cols)));
    }
  }

  /// Whether element (i, j) of the thread's tile is inside the tile; null
  /// when always.
  Value inside(Emitter &e, int64_t i, int64_t j) const {
    if (!rowValid[i])
      return colValid[j];
    if (!colValid[j])
      return rowValid[i];
    return arith::AndIOp::create(e.b, rowValid[i], colValid[j]);
  }
};

} // namespace mlir::ejk

#endif // EJK_OPS_STATESPACE_VULKAN_THREADTILE_H
