//===- GroupedMatmulKernel.cpp - MoE grouped matmul on CPUs ---------------===//
//
// One workgroup = (row tile of one segment, n tile). The segments are the
// groups in order, then the rows past the last group; a segment of s rows
// has ceil(s / block_m) row tiles, so ceil(rows / block_m) + num_groups + 1
// workgroups along x cover every tile whatever the sizes are. Workgroup x
// walks group_sizes at run time to find its tile:
//
//   for each group g (then the tail): tiles of [start_g, end_g) in order;
//     tile number x is (segment, rows [begin, end)), or none
//   a group this shard owns (o <= g < o + local_groups):
//     C = 0                                   f32 scratch, block_m x block_n
//     for each k panel of block_k:
//       pack rhs[g - o, k panel, n tile] into f32 panels of 6x16's width
//       (i8 weights: sign-extended and converted, exact; scaled at the end)
//       (Bp[panel][kk][col]: each panel is one contiguous stream)
//       for each panel, for each 6 rows:      6 x 2 vectors in registers
//         C[rows, panel] += lhs[rows, k panel] Bp[panel]   (broadcast FMAs)
//     out[rows, n tile] = C (* rhs_scales[g - o, n tile]) (+ existing_out)
//   any other segment: out[rows, n tile] = existing_out or 0
//
// Rows past a tile's end in a block of 6 recompute its last row (never
// stored); columns past n are zeros in the panels (never stored). No
// size read at run time can send an access out of bounds: sizes are
// clamped as in the op's description.
//
//===----------------------------------------------------------------------===//

#include "Moe/Cpu/Kernels.h"
#include "Moe/Cpu/MicroKernel.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

class GroupedMatmulBodyBuilder {
public:
  GroupedMatmulBodyBuilder(OpBuilder &builder, Location loc,
                           const CpuGroupedMatmulPlan &plan,
                           const GroupedMatmulBuffers &buffers)
      : e(builder, loc, plan.lanes), p(plan), buf(buffers), tile(plan.micro()) {
  }

  void build() {
    // n tiles along x: the workgroups that run one after the other share
    // the tile's lhs rows (and, a few apart, the group's rhs) in L3.
    Value nBlock = WorkgroupIdOp::create(e.b, 0);
    Value x = WorkgroupIdOp::create(e.b, 1);
    zero = e.index(0);
    one = e.index(1);
    n0 = e.mul(nBlock, e.index(p.blockN));
    Value colsLeft = e.sub(e.index(p.n), n0);
    cols = e.min(e.index(p.blockN), colsLeft);
    // Scratch at the entry, outside every branch: static stack slots.
    cTile = e.scratch({tile.paddedRows(p.blockM), p.blockN});
    packed = e.scratch({p.blockN / tile.cols(), p.packedRows(), tile.cols()});
    lhsRows = e.scratch({p.blockM, p.lhsStride()});

    findTile(x);
    Value owned = cmpI(e, arith::CmpIPredicate::sge, local, zero);
    Value any = cmpI(e, arith::CmpIPredicate::slt, rowBegin, rowEnd);
    emitIf(
        e, owned, [&] { multiplyTile(); },
        [&] { emitIf(e, any, [&] { storeTile(/*fromScratch=*/false); }); });
  }

private:
  /// Sets `local` (the local group, or -1 for rows no local group owns)
  /// and [rowBegin, rowEnd) of workgroup `x`'s tile; an empty range when x
  /// is past the last tile.
  void findTile(Value x) {
    Value offset = loadGroupOffset(e, buf.groupOffset);
    Value blockM = e.index(p.blockM);
    Value none = e.index(-1);
    // The tile of a segment [start, end) whose first tile is number
    // `tiles`: (hit, begin, end, tiles after the segment).
    auto segment = [&](Value start, Value end, Value tiles) {
      Value roundUp = e.index(p.blockM - 1);
      Value count = e.div(e.add(e.sub(end, start), roundUp), blockM);
      Value rel = e.sub(x, tiles);
      Value beforeEnd = cmpI(e, arith::CmpIPredicate::slt, rel, count);
      Value hit =
          andI(e, cmpI(e, arith::CmpIPredicate::sge, rel, zero), beforeEnd);
      Value begin = e.add(start, e.mul(rel, blockM));
      return std::array<Value, 4>{hit, begin, e.min(e.add(begin, blockM), end),
                                  e.add(tiles, count)};
    };
    SmallVector<Value> found = e.forLoop(
        zero, e.index(p.numGroups), one, {zero, zero, none, zero, zero},
        [&](Value g, ValueRange it) {
          Value start = it[0];
          Value end = groupEnd(e, buf.groupSizes, g, start, p.rows);
          auto [hit, begin, tileEnd, tiles] = segment(start, end, it[1]);
          Value l = e.sub(g, offset);
          Value belowLocalGroups =
              cmpI(e, arith::CmpIPredicate::slt, l, e.index(p.localGroups));
          Value isLocal = andI(e, cmpI(e, arith::CmpIPredicate::sge, l, zero),
                               belowLocalGroups);
          Value owner = e.select(isLocal, l, none);
          return SmallVector<Value>{end, tiles, e.select(hit, owner, it[2]),
                                    e.select(hit, begin, it[3]),
                                    e.select(hit, tileEnd, it[4])};
        });
    // The rows past the last group.
    auto [hit, begin, tileEnd, tiles] =
        segment(found[0], e.index(p.rows), found[1]);
    local = e.select(hit, none, found[2]);
    rowBegin = e.select(hit, begin, found[3]);
    rowEnd = e.select(hit, tileEnd, found[4]);
  }

  /// C = lhs[rows] rhs[local] over the n tile, then stored.
  void multiplyTile() {
    zeroScratch(e, cTile, tile.paddedRows(p.blockM), p.blockN);
    Value numRows = e.sub(rowEnd, rowBegin);
    Value tileCols = e.index(tile.cols());
    Value panels = e.div(e.add(cols, e.index(tile.cols() - 1)), tileCols);
    Value tileRows = e.index(tile.rows);
    Value blocks = e.div(e.add(numRows, e.index(tile.rows - 1)), tileRows);
    Value blockK = e.index(p.blockK);
    e.forLoop(zero, e.index(p.k), blockK, [&](Value k0) {
      Value kLeft = e.sub(e.index(p.k), k0);
      Value kCount = e.min(e.index(p.blockK), kLeft);
      packPanels(k0, kCount, panels);
      copyRows(k0, kCount, numRows);
      e.forLoop(zero, panels, one, [&](Value panel) {
        Value c0 = e.mul(panel, e.index(tile.cols()));
        e.forLoop(zero, blocks, one, [&](Value block) {
          multiplyBlock(kCount, numRows, panel, c0, block);
        });
      });
    });
    storeTile(/*fromScratch=*/true);
  }

  /// Packs rhs[local, k0 + kk, n0 + panel * cols + c] into
  /// packed[panel, kk, c] (f32; columns past n are 0).
  void packPanels(Value k0, Value kCount, Value panels) {
    int64_t width = tile.cols();
    if (!p.transposeRhs) {
      bool inBounds = p.n % width == 0;
      e.forLoop(zero, kCount, one, [&](Value kk) {
        Value k = e.add(k0, kk);
        e.forLoop(zero, panels, one, [&](Value panel) {
          Value col = e.add(n0, e.mul(panel, e.index(width)));
          for (int64_t v = 0; v < tile.vectors; ++v) {
            Value c = e.index(v * p.lanes);
            Value b = readWeights({local, k, e.add(col, c)}, inBounds);
            vector::StoreOp::create(e.b, b, packed, ValueRange{panel, kk, c});
          }
        });
      });
      return;
    }
    // rhs[local, j, k]: square blocks of lanes columns x lanes k, read
    // along k (contiguous), transposed in registers, stored along the
    // panel's columns. Columns past n repeat the last one and k past the
    // step reads zeros (or the next step's values): both reach only
    // columns or packed rows that are never used.
    bool inBounds = p.k % p.lanes == 0 && p.blockK % p.lanes == 0;
    Value lanes = e.index(p.lanes);
    Value blocks = e.div(e.add(kCount, e.index(p.lanes - 1)), lanes);
    e.forLoop(zero, panels, one, [&](Value panel) {
      Value col0 = e.add(n0, e.mul(panel, e.index(width)));
      e.forLoop(zero, blocks, one, [&](Value block) {
        Value kk = e.mul(block, e.index(p.lanes));
        for (int64_t c = 0; c < width; c += p.lanes) {
          SmallVector<Value> rows;
          for (int64_t l = 0; l < p.lanes; ++l) {
            Value lastColumn = e.index(p.n - 1);
            Value j = e.min(e.add(col0, e.index(c + l)), lastColumn);
            rows.push_back(readWeights({local, j, e.add(k0, kk)}, inBounds));
          }
          transposeSquare(rows);
          for (int64_t l = 0; l < p.lanes; ++l)
            vector::StoreOp::create(
                e.b, rows[l], packed,
                ValueRange{panel, e.add(kk, e.index(l)), e.index(c)});
        }
      });
    });
  }

  /// A vector of rhs along its last dim, as f32: floats widened, i8
  /// weights sign-extended and converted (exact), unscaled: the scale is
  /// per output column and applied to C at the store.
  Value readWeights(ValueRange indices, bool inBounds) {
    Value w = e.readVector(buf.rhs, indices, inBounds);
    if (!p.quantized())
      return w;
    return arith::SIToFPOp::create(e.b, e.vf32, w);
  }

  /// Transposes the lanes x lanes matrix whose rows are `rows` in place:
  /// log2(lanes) butterfly stages of two-input shuffles (unpack, shufps and
  /// vperm2f128 on AVX2). At the stage of distance d, rows i and i + d (i
  /// without bit d) swap the d-blocks where the column's bit d differs
  /// from the row's.
  void transposeSquare(SmallVector<Value> &rows) {
    int64_t n = static_cast<int64_t>(rows.size());
    for (int64_t d = 1; d < n; d *= 2) {
      SmallVector<int64_t> low(n), high(n);
      for (int64_t j = 0; j < n; ++j) {
        low[j] = (j & d) ? n + (j ^ d) : j;
        high[j] = (j & d) ? n + j : (j ^ d);
      }
      for (int64_t i = 0; i < n; ++i) {
        if (i & d)
          continue;
        Value a = rows[i], b = rows[i | d];
        rows[i] = vector::ShuffleOp::create(e.b, a, b, low);
        rows[i | d] = vector::ShuffleOp::create(e.b, a, b, high);
      }
    }
  }

  /// Copies lhs[tile rows, k0 .. k0 + kCount] into lhsRows (f32, 0 past
  /// k), whose row stride is not a multiple of 4 KiB: the 6 rows a
  /// register block broadcasts from stay in distinct L1 sets.
  void copyRows(Value k0, Value kCount, Value numRows) {
    bool inBounds = p.k % p.lanes == 0 && p.blockK % p.lanes == 0;
    Value lanes = e.index(p.lanes);
    Value vectors = e.div(e.add(kCount, e.index(p.lanes - 1)), lanes);
    e.forLoop(zero, numRows, one, [&](Value r) {
      Value row = e.add(rowBegin, r);
      e.forLoop(zero, vectors, one, [&](Value v) {
        Value kk = e.mul(v, e.index(p.lanes));
        Value a = e.readVector(buf.lhs, {row, e.add(k0, kk)}, inBounds);
        vector::StoreOp::create(e.b, a, lhsRows, ValueRange{r, kk});
      });
    });
  }

  /// C[r0 .. r0 + rows, c0 .. c0 + width] += lhsRows[rows] packed[panel]:
  /// one register block. Rows past the tile read its last row (computed,
  /// never stored).
  void multiplyBlock(Value kCount, Value numRows, Value panel, Value c0,
                     Value block) {
    SmallVector<Value> acc, rows;
    Value r0 = e.mul(block, e.index(tile.rows));
    Value last = e.sub(numRows, one);
    for (int64_t r = 0; r < tile.rows; ++r) {
      rows.push_back(e.min(e.add(r0, e.index(r)), last));
      for (int64_t v = 0; v < tile.vectors; ++v)
        acc.push_back(vector::LoadOp::create(
            e.b, e.vf32, cTile,
            ValueRange{e.add(r0, e.index(r)),
                       e.add(c0, e.index(v * p.lanes))}));
    }
    SmallVector<Value> sums = emitMicroKernel(
        e, tile, kCount, acc,
        [&](Value kk, int64_t v) -> Value {
          return vector::LoadOp::create(
              e.b, e.vf32, packed, ValueRange{panel, kk, e.index(v * p.lanes)});
        },
        [&](Value kk, int64_t r) -> Value {
          return memref::LoadOp::create(e.b, lhsRows, ValueRange{rows[r], kk});
        });
    for (int64_t r = 0; r < tile.rows; ++r)
      for (int64_t v = 0; v < tile.vectors; ++v)
        vector::StoreOp::create(
            e.b, sums[r * tile.vectors + v], cTile,
            ValueRange{e.add(r0, e.index(r)), e.add(c0, e.index(v * p.lanes))});
  }

  /// out[rows, n tile] = C (or 0 without `fromScratch`) + existing_out;
  /// with i8 weights C is scaled per column first.
  void storeTile(bool fromScratch) {
    bool inBounds = p.n % p.lanes == 0;
    Value lanes = e.index(p.lanes);
    Value vectors = e.div(e.add(cols, e.index(p.lanes - 1)), lanes);
    e.forLoop(zero, e.sub(rowEnd, rowBegin), one, [&](Value r) {
      Value row = e.add(rowBegin, r);
      e.forLoop(zero, vectors, one, [&](Value v) {
        Value c = e.mul(v, e.index(p.lanes));
        Value col = e.add(n0, c);
        Value value;
        if (fromScratch)
          value = vector::LoadOp::create(e.b, e.vf32, cTile, ValueRange{r, c});
        if (fromScratch && buf.rhsScales) {
          Value scale = e.readVector(buf.rhsScales, {local, col}, inBounds);
          value = e.fmul(value, scale);
        }
        if (buf.existingOut) {
          Value existing = e.readVector(buf.existingOut, {row, col}, inBounds);
          value = value ? e.fadd(value, existing) : existing;
        }
        if (!value)
          value = e.splatF32(0.0f);
        e.writeVector(value, buf.out, {row, col}, inBounds);
      });
    });
  }

  Emitter e;
  const CpuGroupedMatmulPlan &p;
  const GroupedMatmulBuffers &buf;
  CpuMicroTile tile;
  Value zero, one, n0, cols, cTile, packed, lhsRows;
  Value local, rowBegin, rowEnd;
};

} // namespace

void mlir::ejk::buildCpuGroupedMatmulBody(OpBuilder &builder, Location loc,
                                          const CpuGroupedMatmulPlan &plan,
                                          const GroupedMatmulBuffers &buffers) {
  GroupedMatmulBodyBuilder(builder, loc, plan, buffers).build();
}
