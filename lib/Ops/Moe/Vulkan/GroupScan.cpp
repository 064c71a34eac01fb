//===- GroupScan.cpp - the device-built work list of a grouped matmul -----===//
//
// Each workgroup rebuilds, in shared memory, what the group sizes say: the
// start of every group (a prefix sum, saturated at `rows`, so a negative
// size counts 0 and sizes past the rows are cut), and for grouped_matmul
// the list of row tiles (Moe/Vulkan/Kernels.h). Both sums run over all
// threads: each sums a run of ceil(count / T) entries, the partial sums are
// scanned Hillis-Steele style in shared memory, and each thread then walks
// its run again from its exclusive prefix.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Scores.h"
#include "Moe/Vulkan/Kernels.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

using namespace mlir;
using namespace mlir::ejk;

static Value cmp(Emitter &e, arith::CmpIPredicate pred, Value x, Value y) {
  return arith::CmpIOp::create(e.b, pred, x, y);
}

static Value clamp(Emitter &e, Value x, int64_t lo, int64_t hi) {
  Value upper = e.index(hi);
  return e.min(e.max(x, e.index(lo)), upper);
}

GroupScan::GroupScan(Emitter &e, const MoeVulkanPlan &plan, Value thread,
                     Value groupSizes, Value groupOffset)
    : e(e), p(plan), thread(thread), groupSizes(groupSizes),
      groupOffset(groupOffset) {
  shared = allocWorkgroup(e, p.layout.scanElements, e.i32);
  partialsBase = p.numGroups + 1;
  foundBase = partialsBase + p.layout.threads;
  Value raw = e.index(0);
  if (groupOffset)
    raw = arith::IndexCastOp::create(
        e.b, e.b.getIndexType(),
        memref::LoadOp::create(e.b, groupOffset, ValueRange{e.index(0)}));
  offset = clamp(e, raw, -p.localGroups, p.numGroups);
  lo = clamp(e, offset, 0, p.numGroups);
  hi = clamp(e, e.add(offset, e.index(p.localGroups)), 0, p.numGroups);
}

Value GroupScan::loadShared(Value index) {
  return arith::IndexCastOp::create(
      e.b, e.b.getIndexType(),
      memref::LoadOp::create(e.b, shared, ValueRange{index}));
}

void GroupScan::storeShared(Value value, Value index) {
  memref::StoreOp::create(e.b, e.toI32(value), shared, ValueRange{index});
}

Value GroupScan::exclusiveScan(Value value, std::optional<int64_t> cap) {
  int64_t threads = p.layout.threads;
  Value slot = e.add(thread, e.index(partialsBase));
  storeShared(value, slot);
  gpu::BarrierOp::create(e.b);
  for (int64_t d = 1; d < threads; d *= 2) {
    Value mine = loadShared(slot);
    Value base = e.index(partialsBase);
    Value zero = e.index(0);
    Value other =
        loadShared(e.add(e.max(e.sub(thread, e.index(d)), zero), base));
    Value sum = e.add(mine, other);
    if (cap)
      sum = e.min(sum, e.index(*cap));
    Value next = e.select(cmp(e, arith::CmpIPredicate::sge, thread, e.index(d)),
                          sum, mine);
    gpu::BarrierOp::create(e.b);
    storeShared(next, slot);
    gpu::BarrierOp::create(e.b);
  }
  // The inclusive sum of the thread before (saturated sums cannot be
  // subtracted from).
  Value base = e.index(partialsBase);
  Value zero = e.index(0);
  Value before =
      loadShared(e.add(e.max(e.sub(thread, e.index(1)), zero), base));
  Value none = e.index(0);
  return e.select(cmp(e, arith::CmpIPredicate::sgt, thread, e.index(0)), before,
                  none);
}

void GroupScan::scanStarts() {
  int64_t groups = p.numGroups, threads = p.layout.threads;
  int64_t run = (groups + threads - 1) / threads;
  Value first = e.mul(thread, e.index(run));
  Value zero = e.index(0), one = e.index(1);
  // max(size[g], 0) cut at rows; 0 past the last group.
  auto size = [&](Value g) -> Value {
    if (groups == 0)
      return e.index(0);
    Value raw = arith::IndexCastOp::create(
        e.b, e.b.getIndexType(),
        memref::LoadOp::create(e.b, groupSizes,
                               ValueRange{e.min(g, e.index(groups - 1))}));
    Value clamped = clamp(e, raw, 0, p.rows);
    return e.select(cmp(e, arith::CmpIPredicate::slt, g, e.index(groups)),
                    clamped, zero);
  };
  // Loops with results must run at least once (maybeEmptyLoop): without
  // groups there is nothing to sum.
  Value sum = run == 0 ? zero
                       : e.forLoop(zero, e.index(run), one, {zero},
                                   [&](Value i, ValueRange acc) {
                                     Value v = size(e.add(first, i));
                                     Value rows = e.index(p.rows);
                                     return SmallVector<Value>{
                                         e.min(e.add(acc[0], v), rows)};
                                   })[0];
  Value prefix = exclusiveScan(sum, p.rows);
  if (run > 0)
    e.forLoop(zero, e.index(run), one, {prefix}, [&](Value i, ValueRange acc) {
      Value g = e.add(first, i);
      Value rows = e.index(p.rows);
      Value next = e.min(e.add(acc[0], size(g)), rows);
      auto ifOp = scf::IfOp::create(
          e.b, cmp(e, arith::CmpIPredicate::slt, g, e.index(groups)),
          /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard guard(e.b);
        e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
        storeShared(next, e.add(g, one));
      }
      return SmallVector<Value>{next};
    });
  auto first0 = scf::IfOp::create(
      e.b, cmp(e, arith::CmpIPredicate::eq, thread, zero), false);
  {
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPoint(first0.thenBlock()->getTerminator());
    storeShared(zero, zero);
  }
  gpu::BarrierOp::create(e.b);
}

std::pair<Value, Value> GroupScan::localGroupRows(Value local) {
  Value g = e.add(offset, local);
  Value localBelow =
      cmp(e, arith::CmpIPredicate::slt, local, e.index(p.localGroups));
  Value localNonNegative = cmp(e, arith::CmpIPredicate::sge, local, e.index(0));
  Value localValid = arith::AndIOp::create(e.b, localNonNegative, localBelow);
  Value groupBelow = cmp(e, arith::CmpIPredicate::slt, g, e.index(p.numGroups));
  Value groupNonNegative = cmp(e, arith::CmpIPredicate::sge, g, e.index(0));
  Value groupValid = arith::AndIOp::create(e.b, groupNonNegative, groupBelow);
  Value valid = arith::AndIOp::create(e.b, groupValid, localValid);
  // A group outside the sizes reads a valid start and is empty.
  Value gc = clamp(e, g, 0, std::max<int64_t>(p.numGroups - 1, 0));
  Value begin = loadShared(gc);
  Value end = loadShared(e.add(gc, e.index(1)));
  return {begin, e.select(valid, end, begin)};
}

std::pair<Value, Value> GroupScan::entryRows(Value entry) {
  int64_t last = p.localGroups + 1;
  Value coveredBegin = loadShared(lo);
  Value coveredEnd = e.max(loadShared(hi), coveredBegin);
  auto [groupBegin, groupEnd] = localGroupRows(e.sub(entry, e.index(1)));
  Value isFirst = cmp(e, arith::CmpIPredicate::eq, entry, e.index(0));
  Value isLast = cmp(e, arith::CmpIPredicate::eq, entry, e.index(last));
  Value laterBegin = e.select(isLast, coveredEnd, groupBegin);
  Value begin = e.select(isFirst, e.index(0), laterBegin);
  Value end = e.select(isFirst, coveredBegin,
                       e.select(isLast, e.index(p.rows), groupEnd));
  return {begin, end};
}

std::array<Value, 3> GroupScan::findTile(Value item) {
  int64_t threads = p.layout.threads, tileM = p.layout.tileM;
  int64_t entries = p.localGroups + 2;
  Value zero = e.index(0), one = e.index(1);
  // No tile unless a thread finds one.
  auto init = scf::IfOp::create(
      e.b, cmp(e, arith::CmpIPredicate::eq, thread, zero), false);
  {
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPoint(init.thenBlock()->getTerminator());
    storeShared(zero, e.index(foundBase));
    storeShared(zero, e.index(foundBase + 1));
    Value groupSlot = e.index(foundBase + 2);
    storeShared(e.index(-1), groupSlot);
  }
  scanStarts();

  int64_t run = (entries + threads - 1) / threads;
  Value first = e.mul(thread, e.index(run));
  // Tiles of entry `entry` (0 past the list) and its rows.
  auto tiles = [&](Value entry, Value &begin, Value &end) {
    std::tie(begin, end) = entryRows(entry);
    Value tileRows = e.index(tileM);
    Value roundUp = e.index(tileM - 1);
    Value count = arith::DivUIOp::create(e.b, e.add(e.sub(end, begin), roundUp),
                                         tileRows);
    return e.select(cmp(e, arith::CmpIPredicate::slt, entry, e.index(entries)),
                    count, zero);
  };
  Value sum =
      e.forLoop(zero, e.index(run), one, {zero}, [&](Value i, ValueRange acc) {
        Value begin, end;
        Value t = tiles(e.add(first, i), begin, end);
        return SmallVector<Value>{e.add(acc[0], t)};
      })[0];
  Value prefix = exclusiveScan(sum, std::nullopt);
  e.forLoop(zero, e.index(run), one, {prefix}, [&](Value i, ValueRange acc) {
    Value entry = e.add(first, i);
    Value begin, end;
    Value t = tiles(entry, begin, end);
    // One statement per op: argument evaluation order is unspecified, and
    // the IR (and its tests) must not depend on the compiler.
    Value atOrAfter = cmp(e, arith::CmpIPredicate::sle, acc[0], item);
    Value tileEnd = e.add(acc[0], t);
    Value before = cmp(e, arith::CmpIPredicate::slt, item, tileEnd);
    Value hit = arith::AndIOp::create(e.b, atOrAfter, before);
    auto ifOp = scf::IfOp::create(e.b, hit, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
      Value tileRows = e.index(tileM);
      Value rowBegin = e.add(begin, e.mul(e.sub(item, acc[0]), tileRows));
      Value beforeLast =
          cmp(e, arith::CmpIPredicate::slt, entry, e.index(p.localGroups + 1));
      Value isGroup = arith::AndIOp::create(
          e.b, cmp(e, arith::CmpIPredicate::sgt, entry, zero), beforeLast);
      storeShared(rowBegin, e.index(foundBase));
      storeShared(end, e.index(foundBase + 1));
      Value groupSlot = e.index(foundBase + 2);
      Value noGroup = e.index(-1);
      storeShared(e.select(isGroup, e.sub(entry, one), noGroup), groupSlot);
    }
    return SmallVector<Value>{e.add(acc[0], t)};
  });
  gpu::BarrierOp::create(e.b);
  return {loadShared(e.index(foundBase)), loadShared(e.index(foundBase + 1)),
          loadShared(e.index(foundBase + 2))};
}
