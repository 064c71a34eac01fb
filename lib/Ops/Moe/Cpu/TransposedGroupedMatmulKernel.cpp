//===- TransposedGroupedMatmulKernel.cpp - MoE weight gradient on CPUs ----===//
//
// One workgroup = (k tile, n tile, local group g): out[g, k tile, n tile] =
// lhs[rows of g, k tile]^T rhs[rows of g, n tile], reduced over the group's
// rows in steps of block_m:
//
//   [begin, end) = the rows of global group g + o (empty when it does not
//                  exist), from group_sizes read at run time
//   C = 0                                      f32 scratch, block_k x block_n
//   for each step of block_m rows:
//     L = lhs[step, k tile], R = rhs[step, n tile]    f32 scratch, zero-padded
//     for each 16-column panel, for each 6 k rows:    6 x 2 vectors in
//       C[k rows, panel] += L[:, k rows]^T R[:, panel]   registers
//   out[g, k tile, n tile] = C (+ existing_out)
//
// An empty group or one past num_groups writes existing_out (or 0).
//
//===----------------------------------------------------------------------===//

#include "Moe/Cpu/Kernels.h"
#include "Moe/Cpu/MicroKernel.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

class TransposedBodyBuilder {
public:
  TransposedBodyBuilder(OpBuilder &builder, Location loc,
                        const CpuTransposedGroupedMatmulPlan &plan,
                        const GroupedMatmulBuffers &buffers)
      : e(builder, loc, plan.lanes), p(plan), buf(buffers), tile(plan.micro()) {
    // L holds block_k columns rounded up to whole register blocks and
    // vectors.
    lWidth = tile.paddedRows(p.blockK);
    lWidth = (lWidth + p.lanes - 1) / p.lanes * p.lanes;
  }

  void build() {
    Value kBlock = WorkgroupIdOp::create(e.b, 0);
    Value nBlock = WorkgroupIdOp::create(e.b, 1);
    group = WorkgroupIdOp::create(e.b, 2);
    zero = e.index(0);
    one = e.index(1);
    i0 = e.mul(kBlock, e.index(p.blockK));
    n0 = e.mul(nBlock, e.index(p.blockN));
    Value kLeft = e.sub(e.index(p.k), i0);
    kCount = e.min(e.index(p.blockK), kLeft);
    Value colsLeft = e.sub(e.index(p.n), n0);
    cols = e.min(e.index(p.blockN), colsLeft);
    cTile = e.scratch({tile.paddedRows(p.blockK), p.blockN});
    lTile = e.scratch({p.blockM, lWidth});
    rTile = e.scratch({p.blockM, p.blockN});

    std::pair<Value, Value> rows = groupRows();
    Value begin = rows.first, end = rows.second;
    zeroScratch(e, cTile, tile.paddedRows(p.blockK), p.blockN);
    Value tileCols = e.index(tile.cols());
    Value panels = e.div(e.add(cols, e.index(tile.cols() - 1)), tileCols);
    e.forLoop(begin, end, e.index(p.blockM), [&](Value r0) {
      Value rowsLeft = e.sub(end, r0);
      Value steps = e.min(e.index(p.blockM), rowsLeft);
      stage(r0, steps, panels);
      e.forLoop(zero, panels, one, [&](Value panel) {
        Value c0 = e.mul(panel, e.index(tile.cols()));
        e.forLoop(zero, kCount, e.index(tile.rows),
                  [&](Value k0) { multiplyBlock(steps, c0, k0); });
      });
    });
    storeTile();
  }

private:
  /// The rows [begin, end) of global group `group + offset`; empty when
  /// that group does not exist.
  std::pair<Value, Value> groupRows() {
    Value global = e.add(group, loadGroupOffset(e, buf.groupOffset));
    SmallVector<Value> found =
        e.forLoop(zero, e.index(p.numGroups), one, {zero, zero, zero},
                  [&](Value g, ValueRange it) {
                    Value end = groupEnd(e, buf.groupSizes, g, it[0], p.rows);
                    Value hit = cmpI(e, arith::CmpIPredicate::eq, g, global);
                    return SmallVector<Value>{end, e.select(hit, it[0], it[1]),
                                              e.select(hit, end, it[2])};
                  });
    return {found[1], found[2]};
  }

  /// L[s, c] = lhs[r0 + s, i0 + c] and R[s, c] = rhs[r0 + s, n0 + c] for
  /// the step's rows, f32. When k (n) is whole vectors only the tile's
  /// vectors are read, unmasked; the rest of L (R) then holds stale values
  /// that reach only rows (columns) of C that are never stored. Otherwise
  /// masked reads fill it with zeros.
  void stage(Value r0, Value steps, Value panels) {
    auto vectorsOf = [&](Value count) {
      Value lanes = e.index(p.lanes);
      return e.div(e.add(count, e.index(p.lanes - 1)), lanes);
    };
    bool kWhole = p.k % p.lanes == 0, nWhole = p.n % p.lanes == 0;
    Value lVectors = kWhole ? vectorsOf(kCount) : e.index(lWidth / p.lanes);
    Value rVectors =
        nWhole ? vectorsOf(cols) : e.mul(panels, e.index(tile.vectors));
    e.forLoop(zero, steps, one, [&](Value s) {
      Value row = e.add(r0, s);
      e.forLoop(zero, lVectors, one, [&](Value v) {
        Value c = e.mul(v, e.index(p.lanes));
        Value l = e.readVector(buf.lhs, {row, e.add(i0, c)}, kWhole);
        vector::StoreOp::create(e.b, l, lTile, ValueRange{s, c});
      });
      e.forLoop(zero, rVectors, one, [&](Value v) {
        Value c = e.mul(v, e.index(p.lanes));
        Value r = e.readVector(buf.rhs, {row, e.add(n0, c)}, nWhole);
        vector::StoreOp::create(e.b, r, rTile, ValueRange{s, c});
      });
    });
  }

  /// C[k0 .. k0 + rows, c0 .. c0 + width] += L[:, k0 ..]^T R[:, c0 ..] over
  /// the step's rows: one register block.
  void multiplyBlock(Value steps, Value c0, Value k0) {
    SmallVector<Value> acc;
    for (int64_t r = 0; r < tile.rows; ++r)
      for (int64_t v = 0; v < tile.vectors; ++v)
        acc.push_back(vector::LoadOp::create(
            e.b, e.vf32, cTile,
            ValueRange{e.add(k0, e.index(r)),
                       e.add(c0, e.index(v * p.lanes))}));
    SmallVector<Value> sums = emitMicroKernel(
        e, tile, steps, acc,
        [&](Value s, int64_t v) -> Value {
          return vector::LoadOp::create(
              e.b, e.vf32, rTile,
              ValueRange{s, e.add(c0, e.index(v * p.lanes))});
        },
        [&](Value s, int64_t r) -> Value {
          return memref::LoadOp::create(e.b, lTile,
                                        ValueRange{s, e.add(k0, e.index(r))});
        });
    for (int64_t r = 0; r < tile.rows; ++r)
      for (int64_t v = 0; v < tile.vectors; ++v)
        vector::StoreOp::create(
            e.b, sums[r * tile.vectors + v], cTile,
            ValueRange{e.add(k0, e.index(r)), e.add(c0, e.index(v * p.lanes))});
  }

  /// out[group, k tile, n tile] = C + existing_out.
  void storeTile() {
    bool inBounds = p.n % p.lanes == 0;
    Value lanes = e.index(p.lanes);
    Value vectors = e.div(e.add(cols, e.index(p.lanes - 1)), lanes);
    e.forLoop(zero, kCount, one, [&](Value i) {
      Value row = e.add(i0, i);
      e.forLoop(zero, vectors, one, [&](Value v) {
        Value c = e.mul(v, e.index(p.lanes));
        Value col = e.add(n0, c);
        Value value =
            vector::LoadOp::create(e.b, e.vf32, cTile, ValueRange{i, c});
        if (buf.existingOut)
          value = e.fadd(value, e.readVector(buf.existingOut, {group, row, col},
                                             inBounds));
        e.writeVector(value, buf.out, {group, row, col}, inBounds);
      });
    });
  }

  Emitter e;
  const CpuTransposedGroupedMatmulPlan &p;
  const GroupedMatmulBuffers &buf;
  CpuMicroTile tile;
  int64_t lWidth;
  Value zero, one, group, i0, n0, kCount, cols, cTile, lTile, rTile;
};

} // namespace

void mlir::ejk::buildCpuTransposedGroupedMatmulBody(
    OpBuilder &builder, Location loc,
    const CpuTransposedGroupedMatmulPlan &plan,
    const GroupedMatmulBuffers &buffers) {
  TransposedBodyBuilder(builder, loc, plan, buffers).build();
}
