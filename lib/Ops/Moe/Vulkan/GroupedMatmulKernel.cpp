//===- GroupedMatmulKernel.cpp - the grouped matmuls' Vulkan bodies -------===//
//
// What each op adds to the tile product: where its workgroup's tile lies
// (the work-list scan, Moe/Vulkan/Kernels.h), how the operands are read,
// and the epilogue (the scales of i8 weights, existing_out, the result's
// element type, the bounds).
//
//===----------------------------------------------------------------------===//

#include "Moe/Vulkan/Kernels.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace mlir;
using namespace mlir::ejk;

static Value lt(Emitter &e, Value x, Value y) {
  return arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, x, y);
}

static Value both(Emitter &e, Value x, Value y) {
  return arith::AndIOp::create(e.b, x, y);
}

/// `index` clamped to [0, extent - 1] (extent >= 1).
static Value inside(Emitter &e, Value index, int64_t extent) {
  return e.min(index, e.index(extent - 1));
}

/// Stores `acc` (+ existing_out) at `indices` of the result when `valid`.
static void storeResult(Emitter &e, const GroupedMatmulBuffers &buf,
                        ValueRange indices, Value valid, Value acc) {
  auto ifOp = scf::IfOp::create(e.b, valid, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  Value value = acc;
  if (buf.existingOut)
    value = e.fadd(
        value, e.toF32(memref::LoadOp::create(e.b, buf.existingOut, indices)));
  Type outType = cast<MemRefType>(buf.out.getType()).getElementType();
  memref::StoreOp::create(e.b, e.fromF32(value, outType), buf.out, indices);
}

static void buildGemm(Emitter &e, const MoeVulkanPlan &p, Value thread,
                      const GemmOperand &a, const GemmOperand &b, Value rBegin,
                      Value rEnd, const GemmEpilogue &epilogue) {
  if (p.layout.cooperative)
    buildCoopGemm(e, p.layout, thread, a, b, rBegin, rEnd, epilogue);
  else
    buildPortableGemm(e, p.layout, thread, a, b, rBegin, rEnd, epilogue);
}

void mlir::ejk::buildVulkanGroupedMatmulBody(OpBuilder &builder, Location loc,
                                             const MoeVulkanPlan &p,
                                             const GroupedMatmulBuffers &buf) {
  Emitter e(builder, loc, 1);
  Value nTile = WorkgroupIdOp::create(e.b, 0);
  Value item = WorkgroupIdOp::create(e.b, 1);
  Value thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  GroupScan scan(e, p, thread, buf.groupSizes, buf.groupOffset);
  std::array<Value, 3> tile = scan.findTile(item);
  Value rowBegin = tile[0], rowEnd = tile[1], local = tile[2];
  Value n0 = e.mul(nTile, e.index(p.layout.tileN));
  Value isGroup =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::sge, local, e.index(0));
  Value group = e.max(local, e.index(0));
  // Rows of no local group only take the epilogue.
  Value noReduction = e.index(0);
  Value rEnd = e.select(isGroup, e.index(p.k), noReduction);

  GemmOperand a{buf.lhs, [&](Value r0, Value m, Value kk) {
                  Value row = e.add(rowBegin, m), k = e.add(r0, kk);
                  Value kInside = lt(e, k, e.index(p.k));
                  Value valid = both(e, lt(e, row, rowEnd), kInside);
                  return std::pair(SmallVector<Value>{inside(e, row, p.rows),
                                                      inside(e, k, p.k)},
                                   valid);
                }};
  GemmOperand b;
  b.buffer = buf.rhs;
  if (p.transposeRhs)
    b.locate = [&](Value r0, Value n, Value kk) {
      Value col = e.add(n0, n), k = e.add(r0, kk);
      Value kInside = lt(e, k, e.index(p.k));
      Value valid = both(e, lt(e, col, e.index(p.n)), kInside);
      return std::pair(
          SmallVector<Value>{group, inside(e, col, p.n), inside(e, k, p.k)},
          valid);
    };
  else
    b.locate = [&](Value r0, Value kk, Value n) {
      Value col = e.add(n0, n), k = e.add(r0, kk);
      Value kInside = lt(e, k, e.index(p.k));
      Value valid = both(e, lt(e, col, e.index(p.n)), kInside);
      return std::pair(
          SmallVector<Value>{group, inside(e, k, p.k), inside(e, col, p.n)},
          valid);
    };
  buildGemm(e, p, thread, a, b, e.index(0), rEnd,
            [&](Value m, Value n, Value acc) {
              Value row = e.add(rowBegin, m), col = e.add(n0, n);
              if (buf.rhsScales) {
                // i8 weights: the column's scale (the load clamped; rows of no
                // local group keep their 0).
                Value scale = memref::LoadOp::create(
                    e.b, buf.rhsScales, ValueRange{group, inside(e, col, p.n)});
                acc = e.select(isGroup, e.fmul(acc, scale), acc);
              }
              Value colInside = lt(e, col, e.index(p.n));
              storeResult(e, buf, ValueRange{row, col},
                          both(e, lt(e, row, rowEnd), colInside), acc);
            });
}

void mlir::ejk::buildVulkanTransposedGroupedMatmulBody(
    OpBuilder &builder, Location loc, const MoeVulkanPlan &p,
    const GroupedMatmulBuffers &buf) {
  Emitter e(builder, loc, 1);
  Value nTile = WorkgroupIdOp::create(e.b, 0);
  Value kTile = WorkgroupIdOp::create(e.b, 1);
  Value local = WorkgroupIdOp::create(e.b, 2);
  Value thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  GroupScan scan(e, p, thread, buf.groupSizes, buf.groupOffset);
  scan.scanStarts();
  std::pair<Value, Value> rows = scan.localGroupRows(local);
  Value rowBegin = rows.first, rowEnd = rows.second;
  Value i0 = e.mul(kTile, e.index(p.layout.tileM));
  Value j0 = e.mul(nTile, e.index(p.layout.tileN));

  // A[i, r] = lhs[r, i], B[r, j] = rhs[r, j]: both contiguous along the
  // tile, the reduction runs over rows.
  GemmOperand a{buf.lhs, [&](Value r0, Value r, Value i) {
                  Value row = e.add(r0, r), col = e.add(i0, i);
                  Value colInside = lt(e, col, e.index(p.k));
                  Value valid = both(e, lt(e, row, rowEnd), colInside);
                  return std::pair(SmallVector<Value>{inside(e, row, p.rows),
                                                      inside(e, col, p.k)},
                                   valid);
                }};
  GemmOperand b{buf.rhs, [&](Value r0, Value r, Value j) {
                  Value row = e.add(r0, r), col = e.add(j0, j);
                  Value colInside = lt(e, col, e.index(p.n));
                  Value valid = both(e, lt(e, row, rowEnd), colInside);
                  return std::pair(SmallVector<Value>{inside(e, row, p.rows),
                                                      inside(e, col, p.n)},
                                   valid);
                }};
  buildGemm(e, p, thread, a, b, rowBegin, rowEnd,
            [&](Value m, Value n, Value acc) {
              Value i = e.add(i0, m), j = e.add(j0, n);
              Value jInside = lt(e, j, e.index(p.n));
              storeResult(e, buf, ValueRange{local, i, j},
                          both(e, lt(e, i, e.index(p.k)), jInside), acc);
            });
}
