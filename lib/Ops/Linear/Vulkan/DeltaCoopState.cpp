//===- DeltaCoopState.cpp - the delta rule's state pass on cooperative
// matrices ---===//
//
// `cooperative = 2` of the chunk-parallel delta rule (DeltaChunk.h): the
// state pass on 16x16x16 f16 matrices with f32 accumulators, laid out as
// fla's chunk_gated_delta_rule_fwd_h: the state in accumulators across the
// chunks, the chunk's operands read straight from memory into matrices.
// Workgroup = (block_v columns, head, sequence), 256 threads in subgroups;
// subgroup g owns the state tiles g, g + n, ... of S [K, block_v] (n
// subgroups) and the new-value tiles g, g + n, ... of N [chunk, block_v].
// The prepare wrote W (`w16`) and Kd (`kd`) in f16 for it; per chunk:
//
//   publish  each S tile to the states temporary (f32, for the outputs)
//            and, through the subgroup's 16x16 f32 stage, as f16 to
//            shared memory (the B operand of W S)            | barrier
//   values   N = U - W S: U loaded as an accumulator, W's tiles from the
//            f16 temporary (16-byte words); N written over U (f32) and,
//            through the stage, as f16 to shared memory     | barrier
//            (with the outputs on matrices, `directOutputs`, the states
//            and N go to their temporaries in f16 after each barrier,
//            every thread copying neighbouring halves of the shared f16
//            stages; for the outputs in words the states transposed,
//            [V, K] a chunk)
//   update   S = exp(B_last) S + Kd^T N: Kd^T read column-major from the
//            f16 temporary
//
// Two workgroup barriers a chunk. The loop carries the state tiles and the
// next chunk's operands: its W tiles are loaded once this chunk's W S is
// done, its U once N is formed, its Kd once the update is done, so each
// load has most of a chunk to arrive and no more than one chunk's
// operands are live at a time.
//
// The f16 operands are W = T diag(beta) K exp(B) and Kd = k exp(B_last -
// B) (bounded by the keys: |k| <= 1 with the l2 norm), the state and the
// new values, all rounded to f16's 11 bits; S itself, U, N and every sum
// stay f32. The rules (DeltaChunk.cpp) ask head_dim_k a multiple of 16 and
// block_v a divisor of head_dim_v, so every tile lies inside the problem;
// the prepare writes every row of a chunk (zero past its length).
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/CoopMatrices.h"
#include "Linear/Vulkan/DeltaChunk.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::delta_chunk;

namespace {

class CoopStateKernel : public CoopMatrices<Kernel> {
public:
  using CoopMatrices::CoopMatrices;

  void build() {
    beginCoop();
    // The word views at the function's top level, where the Vulkan
    // preparation pass finds them.
    wWords = wordView(e, tmp.w16, kWord);
    kdWords = wordView(e, tmp.kd, kWord);
    Value width = e.index(l.blockV);
    v0 = e.mul(WorkgroupIdOp::create(e.b, 0), width);
    seqId = WorkgroupIdOp::create(e.b, 2);
    sequenceBounds(seqId);
    int64_t n = l.subgroups();
    vTiles = l.blockV / kT;
    kTiles = p.dimK / kT;
    cTiles = l.chunk / kT;
    nTiles = cTiles * vTiles;
    sTiles = kTiles * vTiles;
    nSlots = ceilDiv(nTiles, n);
    sSlots = ceilDiv(sTiles, n);
    pitch = VulkanDeltaChunkLayout::coopStatePitch(l.blockV);
    sHalf = allocWorkgroupOf(e, p.dimK * pitch, f16);
    nHalf = allocWorkgroupOf(e, l.chunk * pitch, f16);
    stage = allocWorkgroupOf(e, n * kT * kT, e.f32);

    SmallVector<Value> carried;
    for (int64_t m = 0; m < sSlots; ++m) {
      if (!buf.initialState) {
        carried.push_back(zeroMatrix());
        continue;
      }
      Value a, j;
      std::tie(a, j) = stateTile(m);
      carried.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
          e.b, cType, buf.initialState,
          ValueRange{seqId, head, e.mul(a, e.index(kT)), column(j)},
          e.b.getIndexAttr(p.dimV), UnitAttr()));
    }
    Value count = chunkCount();
    Value first = slotOfChunk(zero, count);
    llvm::append_range(carried, loadW(first));
    llvm::append_range(carried, loadU(first));
    llvm::append_range(carried, loadKd(first));
    carried =
        e.forLoop(zero, count, one, carried,
                  [&](Value ci, ValueRange in) -> SmallVector<Value> {
                    setChunk(ci);
                    return chunkStep(in, slotOfChunk(e.add(ci, one), count));
                  });
    if (buf.finalState)
      for (int64_t m = 0; m < sSlots; ++m) {
        Value a, j;
        std::tie(a, j) = stateTile(m);
        Value tile = carried[m];
        emitIf(e, ownsTile(m, sTiles), [&] {
          gpu::SubgroupMmaStoreMatrixOp::create(
              e.b, tile, buf.finalState,
              ValueRange{seqId, head, e.mul(a, e.index(kT)), column(j)},
              e.b.getIndexAttr(p.dimV), UnitAttr());
        });
      }
  }

private:
  static constexpr int64_t kWord = 8; // f16 elements per 16-byte word

  /// (key tile, column tile) of the subgroup's `m`-th state tile.
  std::pair<Value, Value> stateTile(int64_t m) {
    Value tile = tileOf(m, sTiles);
    return {udiv(tile, vTiles), urem(tile, vTiles)};
  }
  /// (step tile, column tile) of the subgroup's `m`-th new-value tile.
  std::pair<Value, Value> valueTile(int64_t m) {
    Value tile = tileOf(m, nTiles);
    return {udiv(tile, vTiles), urem(tile, vTiles)};
  }
  /// The first head_dim_v column of column tile `j`.
  Value column(Value j) { return e.add(v0, e.mul(j, e.index(kT))); }

  /// The slot of the sequence's chunk `ci`, clamped into its chunks (a
  /// prefetch past the last chunk reloads it; an empty sequence's is its
  /// first slot, never used).
  Value slotOfChunk(Value ci, Value count) {
    Value last = e.max(e.sub(count, one), zero);
    Value within = e.min(ci, last);
    return e.add(baseSlot(seqId), within);
  }

  /// Element (t, k) of the [chunk, head_dim_k] f16 temporaries of slot
  /// `at`, in halves.
  Value keyOffset(Value at, Value t, Value k) {
    Value chunk = e.index(l.chunk);
    Value slotHead = e.add(e.mul(at, e.index(p.heads)), head);
    Value rows = e.add(e.mul(slotHead, chunk), t);
    return e.add(e.mul(rows, e.index(p.dimK)), k);
  }

  /// keyOffset(at, `tile` i, `k`) and keyOffset(at, `t`, `tile` a), one op
  /// per statement (in the order GCC built them: the IR must not follow
  /// the C++ compiler's argument order).
  Value keyOffsetOf(Value at, Value i, int64_t tile, int64_t k) {
    Value key = e.index(k);
    Value step = e.mul(i, e.index(tile));
    return keyOffset(at, step, key);
  }
  Value keyOffsetAt(Value at, int64_t t, Value a, int64_t tile) {
    Value key = e.mul(a, e.index(tile));
    Value step = e.index(t);
    return keyOffset(at, step, key);
  }
  /// Element `row0` + 16 `j` of an f16 stage (one op per statement).
  Value halfAt(int64_t row0, Value j) {
    Value col = e.mul(j, e.index(kT));
    Value row = e.index(row0);
    return e.add(row, col);
  }

  /// The W tiles of the subgroup's new-value tiles (every key tile, in
  /// order) of slot `at`.
  SmallVector<Value> loadW(Value at) {
    SmallVector<Value> w;
    for (int64_t m = 0; m < nSlots; ++m) {
      Value i = valueTile(m).first;
      for (int64_t kk = 0; kk < kTiles; ++kk)
        w.push_back(loadMatrix(e, aType, wWords,
                               keyOffsetOf(at, i, kT, kk * kT), p.dimK,
                               /*transpose=*/false));
    }
    return w;
  }

  /// U's tiles of the subgroup's new-value tiles of slot `at` (f32
  /// accumulators).
  SmallVector<Value> loadU(Value at) {
    SmallVector<Value> u;
    for (int64_t m = 0; m < nSlots; ++m) {
      Value i, j;
      std::tie(i, j) = valueTile(m);
      u.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
          e.b, cType, tmp.u,
          ValueRange{at, head, e.mul(i, e.index(kT)), column(j)},
          e.b.getIndexAttr(p.dimV), UnitAttr()));
    }
    return u;
  }

  /// Kd^T's tiles of the subgroup's state tiles (every step tile, in order)
  /// of slot `at`: Kd [chunk, head_dim_k] read column-major.
  SmallVector<Value> loadKd(Value at) {
    SmallVector<Value> kd;
    for (int64_t m = 0; m < sSlots; ++m) {
      Value a = stateTile(m).first;
      for (int64_t tt = 0; tt < cTiles; ++tt)
        kd.push_back(loadMatrix(e, aType, kdWords,
                                keyOffsetAt(at, tt * kT, a, kT), p.dimK,
                                /*transpose=*/true));
    }
    return kd;
  }

  /// `tile` as f16 at rows 16 r.., columns 16 j.. of `half` (rows `pitch`
  /// apart), through the subgroup's part of the f32 stage; only where
  /// `owns` (a subgroup's last slot may be a duplicate).
  void toHalves(Value tile, Value half, Value r, Value j, Value owns,
                bool exact) {
    auto convert = [&] {
      writeMatrix(
          tile, stage,
          [&](Value row, Value col, Value value) {
            Value rowAt = e.add(e.mul(r, e.index(kT)), row);
            Value colAt = e.add(e.mul(j, e.index(kT)), col);
            Value at = e.add(e.mul(rowAt, e.index(pitch)), colAt);
            Value h = e.fromF32(value, f16);
            store(h, half, {at});
          },
          /*withinSubgroup=*/true);
    };
    if (exact)
      convert();
    else
      emitIf(e, owns, convert);
  }

  /// `tile` (rows 16 r.., columns 16 j..) into `half` for this chunk's
  /// products and, without the outputs on matrices, as f32 into `f32Temp`
  /// at the chunk's slot (with them, copyHalves writes the f16 stage out
  /// after the barrier).
  void publish(Value tile, Value half, Value f32Temp, Value r, Value j,
               Value owns, bool exact) {
    if (l.directOutputs) {
      toHalves(tile, half, r, j, owns, exact);
      return;
    }
    emitIf(e, owns, [&] {
      gpu::SubgroupMmaStoreMatrixOp::create(
          e.b, tile, f32Temp,
          ValueRange{slot, head, e.mul(r, e.index(kT)), column(j)},
          e.b.getIndexAttr(p.dimV), UnitAttr());
    });
    toHalves(tile, half, r, j, owns, exact);
  }

  /// `rows` rows of `half` (block_v halves each, `pitch` apart) to the
  /// chunk's slot of `global` ([slots, H, rows, head_dim_v] f16) from
  /// column v0: consecutive threads take consecutive halves, so the
  /// stores coalesce and no subgroup keeps their addresses. `transposed`:
  /// `global` is [slots, H, head_dim_v, rows], consecutive threads take
  /// consecutive rows of a column.
  void copyHalves(Value half, int64_t rows, Value global,
                  bool transposed = false) {
    int64_t bv = l.blockV, total = rows * bv;
    for (int64_t r = 0; r * l.kThreads < total; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      auto copy = [&] {
        Value row = transposed ? urem(i, rows) : udiv(i, bv);
        Value col = transposed ? udiv(i, rows) : urem(i, bv);
        Value at = e.add(e.mul(row, e.index(pitch)), col);
        Value value = memref::LoadOp::create(e.b, half, at);
        Value column = e.add(v0, col);
        if (transposed)
          store(value, global, {slot, head, column, row});
        else
          store(value, global, {slot, head, row, column});
      };
      if ((r + 1) * l.kThreads > total)
        emitIf(e, lt(i, e.index(total)), copy);
      else
        copy();
    }
  }

  /// One chunk: `in` = the state tiles, then this chunk's W, U and Kd
  /// tiles. Returns the new state, then the W, U and Kd tiles of slot
  /// `next`.
  SmallVector<Value> chunkStep(ValueRange in, Value next) {
    SmallVector<Value> s(in.take_front(sSlots));
    in = in.drop_front(sSlots);
    SmallVector<Value> w(in.take_front(nSlots * kTiles));
    in = in.drop_front(nSlots * kTiles);
    SmallVector<Value> u(in.take_front(nSlots));
    SmallVector<Value> kd(in.drop_front(nSlots));
    int64_t n = l.subgroups();
    Value decay;
    if (p.decay == DeltaDecay::PerHead)
      decay = e.exp(cumGate(e.sub(len, one), Value()));

    // Publish S.
    for (int64_t m = 0; m < sSlots; ++m) {
      Value a, j;
      std::tie(a, j) = stateTile(m);
      Value owns = ownsTile(m, sTiles);
      publish(s[m], sHalf, tmp.states, a, j, owns, (m + 1) * n <= sTiles);
    }
    gpu::BarrierOp::create(e.b);
    if (l.directOutputs)
      copyHalves(sHalf, p.dimK, tmp.states, l.wordOutputs);

    // N = U - W S.
    SmallVector<Value> values;
    for (int64_t m = 0; m < nSlots; ++m) {
      Value j = valueTile(m).second;
      Value ws = zeroMatrix();
      for (int64_t kk = 0; kk < kTiles; ++kk) {
        Value sm = loadMatrix(e, bType, sHalf, halfAt(kk * kT * pitch, j),
                              pitch, /*transpose=*/false);
        ws = mma(w[m * kTiles + kk], sm, ws);
      }
      values.push_back(gpu::SubgroupMmaElementwiseOp::create(
          e.b, cType, ValueRange{u[m], ws}, gpu::MMAElementwiseOp::SUBF));
    }
    SmallVector<Value> out = s;
    llvm::append_range(out, loadW(next));
    for (int64_t m = 0; m < nSlots; ++m) {
      Value i, j;
      std::tie(i, j) = valueTile(m);
      Value owns = ownsTile(m, nTiles);
      publish(values[m], nHalf, tmp.u, i, j, owns, (m + 1) * n <= nTiles);
    }
    llvm::append_range(out, loadU(next));
    gpu::BarrierOp::create(e.b);
    if (l.directOutputs)
      copyHalves(nHalf, l.chunk, tmp.n16);

    // S = exp(B_last) S + Kd^T N.
    Value factor;
    if (decay)
      factor = gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, decay);
    for (int64_t m = 0; m < sSlots; ++m) {
      Value j = stateTile(m).second;
      Value acc = s[m];
      if (factor)
        acc = gpu::SubgroupMmaElementwiseOp::create(
            e.b, cType, ValueRange{acc, factor}, gpu::MMAElementwiseOp::MULF);
      for (int64_t tt = 0; tt < cTiles; ++tt) {
        Value nm = loadMatrix(e, bType, nHalf, halfAt(tt * kT * pitch, j),
                              pitch, /*transpose=*/false);
        acc = mma(kd[m * cTiles + tt], nm, acc);
      }
      out[m] = acc;
    }
    llvm::append_range(out, loadKd(next));
    return out;
  }

  Value wWords, kdWords, sHalf, nHalf, stage;
  int64_t vTiles = 0, kTiles = 0, cTiles = 0, nTiles = 0, sTiles = 0;
  int64_t nSlots = 0, sSlots = 0, pitch = 0;
};

} // namespace

void mlir::ejk::delta_chunk::buildDeltaCoopState(
    OpBuilder &builder, Location loc, const DeltaProblem &p,
    const VulkanDeltaChunkLayout &l, const DeltaBuffers &buf,
    const Temporaries &tmp) {
  CoopStateKernel(builder, loc, p, l, buf, tmp).build();
}
