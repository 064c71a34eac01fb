//===- DeltaCoopState.cpp - the delta rule's state pass on cooperative
// matrices ---===//
//
// `cooperative = 2` of the chunk-parallel delta rule (DeltaChunk.h): the
// state pass of DeltaChunkState.cpp with its two products per chunk on
// 16x16x16 f16 matrices and f32 accumulators (fla's
// chunk_gated_delta_rule_fwd_h does them as tensor-core dots the same
// way). Workgroup = (block_v columns, head, sequence), 256 threads in
// subgroups. The state S [kPad16, block_v] lives in shared memory in f32;
// per chunk, in order:
//
//   the chunk's W, Kd (f32 temporaries, [chunk, K]) and U loads issued
//   at once (they do not depend on S)
//   publish   S to the states temporary (for the outputs), an f16 copy
//             of S as the B operand, S = exp(B_last) S in place (per head
//             or per key row; exponent <= 0), W staged f16
//   values    N = W S tiles (chunk x block_v) into an f32 stage; then
//             N = U - W S written over U and staged f16 (over the f16
//             copy of S), Kd staged f16 (over W)
//   update    S += Kd^T N tiles (kPad16 x block_v), accumulators loaded
//             from and stored back to S
//
// The f16 operands are W = T diag(beta) K exp(B) and Kd = k exp(B_last -
// B) (bounded by the keys: |k| <= 1 with the l2 norm), the state and the
// new values, all rounded to f16's 11 bits; S itself and every sum stay
// f32. Rows past the chunk's length and key columns past head_dim_k are
// staged as zeros, so they add nothing.
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
    v0 = e.mul(WorkgroupIdOp::create(e.b, 0), e.index(l.blockV));
    seqId = WorkgroupIdOp::create(e.b, 2);
    sequenceBounds(seqId);
    kP = l.coopKeyPad(p);
    int64_t bv = l.blockV, C = l.chunk;
    sF = allocWorkgroupOf(e, kP * bv, e.f32);
    nF = allocWorkgroupOf(e, C * bv, e.f32);
    s16 = allocWorkgroupOf(e, std::max(kP, C) * bv, f16);
    stage = allocWorkgroupOf(e, C * kP, f16);

    forEntries(kP * bv, [&](Value i) {
      Value k = udiv(i, bv);
      Value c = e.add(v0, urem(i, bv));
      Value s0 = zeroF();
      if (buf.initialState)
        s0 = orZero(stateEntry(k, c),
                    memref::LoadOp::create(
                        e.b, buf.initialState,
                        ValueRange{seqId, head, clampK(k), clampV(c)}));
      store(s0, sF, {i});
    });
    gpu::BarrierOp::create(e.b);
    e.forLoop(zero, chunkCount(), one, [&](Value ci) {
      setChunk(ci);
      chunkStep();
    });
    if (buf.finalState)
      forEntries(kP * bv, [&](Value i) {
        Value k = udiv(i, bv);
        Value c = e.add(v0, urem(i, bv));
        emitIf(e, stateEntry(k, c), [&] {
          store(load(sF, {i}), buf.finalState, {seqId, head, k, c});
        });
      });
  }

private:
  Value stateEntry(Value k, Value c) {
    return andI(lt(k, e.index(p.dimK)), lt(c, e.index(p.dimV)));
  }

  /// `body(i)` for i = thread + 256 r in [0, total).
  void forEntries(int64_t total, function_ref<void(Value)> body) {
    for (int64_t r = 0; r * l.kThreads < total; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      if ((r + 1) * l.kThreads > total)
        emitIf(e, lt(i, e.index(total)), [&] { body(i); });
      else
        body(i);
    }
  }

  /// The thread's share of a [chunk, kPad16] temporary (W or Kd), zero
  /// past the chunk and head_dim_k.
  Staged loadKeys(Value temporary) {
    return loadStaged(l.chunk * kP, [&](Value i) -> SmallVector<Value> {
      Value t = udiv(i, kP);
      Value k = urem(i, kP);
      Value valid = andI(lt(t, len), lt(k, e.index(p.dimK)));
      return {orZero(valid, load(temporary, {slot, head, t, clampK(k)}))};
    });
  }

  void storeHalves(const Staged &staged, Value memref) {
    storeStaged(staged, [&](Value i, ArrayRef<Value> v) {
      store(e.fromF32(v[0], f16), memref, {i});
    });
  }

  void chunkStep() {
    int64_t C = l.chunk, bv = l.blockV;
    int64_t vTiles = bv / kT, nTiles = (C / kT) * vTiles;
    int64_t sTiles = (kP / kT) * vTiles;
    Staged w = loadKeys(tmp.w);
    Staged kd = loadKeys(tmp.kd);
    Staged u = loadStaged(C * bv, [&](Value i) -> SmallVector<Value> {
      Value t = udiv(i, bv);
      Value c = e.add(v0, urem(i, bv));
      Value valid = andI(lt(t, len), lt(c, e.index(p.dimV)));
      return {orZero(valid, load(tmp.u, {slot, head, t, clampV(c)}))};
    });

    // Publish S; decay it in place; stage W.
    Value headDecay;
    if (p.decay == DeltaDecay::PerHead)
      headDecay = e.exp(cumGate(e.sub(len, one), Value()));
    forEntries(kP * bv, [&](Value i) {
      Value k = udiv(i, bv);
      Value c = e.add(v0, urem(i, bv));
      Value sv = load(sF, {i});
      emitIf(e, stateEntry(k, c), [&] {
        store(sv, tmp.states, {slot, head, k, c});
      });
      store(e.fromF32(sv, f16), s16, {i});
      if (p.decayed()) {
        Value d =
            headDecay ? headDecay : e.exp(cumGate(e.sub(len, one), clampK(k)));
        store(e.fmul(d, sv), sF, {i});
      }
    });
    storeHalves(w, stage);
    gpu::BarrierOp::create(e.b);

    // W S.
    SmallVector<Value> ws;
    for (int64_t m = 0; m < ceilDiv(nTiles, l.subgroups()); ++m)
      ws.push_back(zeroMatrix());
    for (int64_t kk = 0; kk < kP / kT; ++kk)
      mmaTiles(ws, nTiles, vTiles,
               {stage, kk * kT, kT * kP, kP, /*transpose=*/false},
               {s16, kk * kT * bv, kT, bv, /*transpose=*/false});
    storeTiles(ws, nTiles, vTiles, nF, bv);
    gpu::BarrierOp::create(e.b);

    // N = U - W S: over U and staged f16; Kd staged.
    for (auto item : llvm::enumerate(u.index)) {
      size_t r = item.index();
      Value i = item.value();
      auto body = [&] {
        Value t = udiv(i, bv);
        Value c = e.add(v0, urem(i, bv));
        Value n = e.fsub(u.values[r][0], load(nF, {i}));
        n = orZero(lt(t, len), n);
        emitIf(e, andI(lt(t, len), lt(c, e.index(p.dimV))), [&] {
          store(n, tmp.u, {slot, head, t, c});
        });
        store(e.fromF32(n, f16), s16, {i});
      };
      if ((int64_t(r) + 1) * l.kThreads > C * bv)
        emitIf(e, lt(i, e.index(C * bv)), body);
      else
        body();
    }
    storeHalves(kd, stage);
    gpu::BarrierOp::create(e.b);

    // S += Kd^T N, the accumulators loaded from S; Kd^T: the [chunk,
    // kPad16] stage read column-major.
    SmallVector<Value> acc;
    for (int64_t m = 0; m < ceilDiv(sTiles, l.subgroups()); ++m) {
      Value tile = tileOf(m, sTiles);
      Value ki = udiv(tile, vTiles);
      Value vt = urem(tile, vTiles);
      Value at = e.add(e.mul(ki, e.index(kT * bv)), e.mul(vt, e.index(kT)));
      acc.push_back(loadMatrix(e, cType, sF, at, bv, /*transpose=*/false));
    }
    for (int64_t tt = 0; tt < C / kT; ++tt)
      mmaTiles(acc, sTiles, vTiles,
               {stage, tt * kT * kP, kT, kP, /*transpose=*/true},
               {s16, tt * kT * bv, kT, bv, /*transpose=*/false});
    storeTiles(acc, sTiles, vTiles, sF, bv);
    gpu::BarrierOp::create(e.b);
  }

  int64_t kP = 0;
  Value sF, nF, s16, stage;
};

} // namespace

void mlir::ejk::delta_chunk::buildDeltaCoopState(
    OpBuilder &builder, Location loc, const DeltaProblem &p,
    const VulkanDeltaChunkLayout &l, const DeltaBuffers &buf,
    const Temporaries &tmp) {
  CoopStateKernel(builder, loc, p, l, buf, tmp).build();
}
