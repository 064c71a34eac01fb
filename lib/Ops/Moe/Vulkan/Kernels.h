//===- Kernels.h - grouped-matmul bodies for Vulkan -------------*- C++ -*-===//
//
// Builds the bodies of the dispatches that run ejk.grouped_matmul and
// ejk.transposed_grouped_matmul on a Vulkan device. Group sizes are known
// only at run time, so the grids are static and each workgroup finds its
// work from group_sizes and group_offset (GroupScan.cpp):
//
// grouped_matmul, grid (n tiles, work items, 1): the work list is the
//   local groups in order, preceded and followed by the rows that no local
//   group owns (written as existing_out or 0); entry e covers rows
//   [begin_e, end_e) in ceil((end_e - begin_e) / block_m) row tiles, which
//   start at begin_e. The list has at most ceil(rows / block_m) +
//   local_groups + 2 tiles, the grid's y; each workgroup scans the list in
//   shared memory and takes tile number workgroup_id.y; past the list its
//   row range is empty and it does no more work (skewed groups bind no
//   workgroup to an expert, they only shorten the list).
// transposed_grouped_matmul, grid (n tiles, k tiles, local groups): a
//   workgroup reduces over its group's rows in steps of block_m.
//
// Every read is clamped into its buffer (a negative size counts 0, sizes
// past rows are cut at rows, an offset out of range leaves groups empty);
// the tile product itself (GemmKernel.cpp, CoopGemmKernel.cpp) reads its
// operands through GemmOperand.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_MOE_VULKAN_KERNELS_H
#define EJK_OPS_MOE_VULKAN_KERNELS_H

#include "Common/CpuEmitter.h"
#include "ejk/Ops/Moe/Problem.h"

#include "Moe/Vulkan/Layout.h"

#include <array>
#include <functional>

namespace mlir::ejk {

struct MoeVulkanPlan : GroupedMatmulProblem {
  MoeVulkanLayout layout;

  /// grouped_matmul: n tiles x work items (the n tiles of one row tile
  /// run side by side and share its lhs rows in the cache).
  std::array<int64_t, 3> groupedGrid() const {
    return {(n + layout.tileN - 1) / layout.tileN, workItems(), 1};
  }
  /// The most row tiles the work list can have.
  int64_t workItems() const {
    return (rows + layout.tileM - 1) / layout.tileM + localGroups + 2;
  }
  /// transposed_grouped_matmul: n tiles x k tiles x local groups.
  std::array<int64_t, 3> transposedGrid() const {
    return {(n + layout.tileN - 1) / layout.tileN,
            (k + layout.tileM - 1) / layout.tileM, localGroups};
  }
};

/// One operand of the tile product, as the kernels read it: the tile of
/// the step starting at reduction index `r0` is `outer` x `inner` elements,
/// `inner` the dimension contiguous in the buffer (the reduction for A when
/// GemmOperandOrder::aReductionInner, ...). `locate(r0, outer, inner)`
/// gives the buffer indices of a tile element, clamped into the buffer,
/// and whether the element exists (else it reads as 0). The cooperative
/// path asks only for inner indices that are multiples of 8, and takes the
/// answer for the 8 elements from there.
struct GemmOperand {
  Value buffer;
  std::function<std::pair<SmallVector<Value>, Value>(Value r0, Value outer,
                                                     Value inner)>
      locate;
};

/// Receives the accumulator of tile element (m, n) (tile-local indices) and
/// stores what it becomes; it guards the store itself.
using GemmEpilogue = std::function<void(Value m, Value n, Value acc)>;

/// Emits `body(i)` for i in [0, total) spread over the `threads` threads of
/// the workgroup (i = thread + j * threads), the last round guarded.
inline void forEachThread(Emitter &e, int64_t threads, Value thread,
                          int64_t total, function_ref<void(Value)> body) {
  for (int64_t base = 0; base < total; base += threads) {
    Value i = e.add(thread, e.index(base));
    if (base + threads <= total) {
      body(i);
      continue;
    }
    auto ifOp =
        scf::IfOp::create(e.b,
                          arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                                i, e.index(total)),
                          /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    body(i);
  }
}

/// `e.forLoop(lb, ub, step, inits, body)` for a loop that may run zero
/// times: under `if lb < ub`, the inits otherwise. MLIR's SCF-to-SPIR-V
/// conversion passes loop results through variables that only the loop's
/// yield stores, so a zero-trip scf.for gives undefined values on Vulkan
/// (seen on the H100: garbage in the rows of no group).
inline SmallVector<Value>
maybeEmptyLoop(Emitter &e, Value lb, Value ub, Value step, ValueRange inits,
               function_ref<SmallVector<Value>(Value, ValueRange)> body) {
  SmallVector<Value> initValues(inits.begin(), inits.end());
  return e.ifElse(
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, lb, ub),
      TypeRange(ValueRange(initValues)),
      [&] { return e.forLoop(lb, ub, step, initValues, body); },
      [&] { return initValues; });
}

/// Emits the tile product over the reduction steps r0 = rBegin, rBegin +
/// step, ... < rEnd, then the epilogue of every element of the tile.
void buildPortableGemm(Emitter &e, const MoeVulkanLayout &l, Value thread,
                       const GemmOperand &a, const GemmOperand &b, Value rBegin,
                       Value rEnd, const GemmEpilogue &epilogue);
void buildCoopGemm(Emitter &e, const MoeVulkanLayout &l, Value thread,
                   const GemmOperand &a, const GemmOperand &b, Value rBegin,
                   Value rEnd, const GemmEpilogue &epilogue);

/// The work-list scan's shared memory and the per-group row ranges.
class GroupScan {
public:
  GroupScan(Emitter &e, const MoeVulkanPlan &plan, Value thread,
            Value groupSizes, Value groupOffset);

  /// The rows [begin, end) of local group `local` (index; any value:
  /// a group outside the sizes is empty). Valid after `scanStarts`.
  std::pair<Value, Value> localGroupRows(Value local);
  /// Fills the shared group starts; ends with a barrier.
  void scanStarts();
  /// grouped_matmul: the rows [begin, end) of work item `item`'s tile, and
  /// its local group (-1 for rows of no local group); begin = end when the
  /// item has no tile. Calls scanStarts.
  std::array<Value, 3> findTile(Value item);

private:
  /// Exclusive prefix sum of `value` over the threads, saturated at `cap`
  /// when set (both non-negative).
  Value exclusiveScan(Value value, std::optional<int64_t> cap);
  /// Rows [begin, end) of work-list entry `entry`.
  std::pair<Value, Value> entryRows(Value entry);
  Value loadShared(Value index);
  void storeShared(Value value, Value index);

  Emitter &e;
  const MoeVulkanPlan &p;
  Value thread, groupSizes, groupOffset;
  /// [0, G]: starts; [G + 1, G + 1 + T): partials; then the found tile.
  Value shared;
  int64_t partialsBase, foundBase;
  /// The offset clamped to [-local_groups, num_groups], and the first and
  /// one-past-last global groups that are local, in [0, num_groups].
  Value offset, lo, hi;
};

/// Emits the body of grouped_matmul's dispatch.
void buildVulkanGroupedMatmulBody(OpBuilder &b, Location loc,
                                  const MoeVulkanPlan &plan,
                                  const GroupedMatmulBuffers &buffers);
/// Emits the body of transposed_grouped_matmul's dispatch.
void buildVulkanTransposedGroupedMatmulBody(
    OpBuilder &b, Location loc, const MoeVulkanPlan &plan,
    const GroupedMatmulBuffers &buffers);

} // namespace mlir::ejk

#endif // EJK_OPS_MOE_VULKAN_KERNELS_H
