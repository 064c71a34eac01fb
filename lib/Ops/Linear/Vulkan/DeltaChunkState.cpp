//===- DeltaChunkState.cpp - the delta rule's state pass over chunks ------===//
//
// Workgroup = (block_v columns, head, sequence), 256 threads as a 16 x 16
// grid (DeltaChunk.h). Thread (ti, sj) keeps the state entries (k = ti +
// 16 i, v = sj + 16 j) in registers; per chunk, in order:
//
//   publish  S (the state before the chunk) to the states temporary (for
//            the outputs) and to shared memory (the chunk's loads of Kd
//            and U already issued)
//   values   thread (ti, sj): new values N[t, v] = U[t, v] - sum_k W[t, k]
//            S[k, v] for t = ti + 16 a over key tiles of W, written over U
//            and to shared memory
//   update   S = exp(B_last) S + sum_t Kd[t, k] N[t, v] over step tiles
//
// No load waits in front of the products: the chunk's Kd and U loads are
// issued at its start (they do not depend on S) and wait behind N = U - W
// S; its W was loaded during the update of the chunk before (the loop
// carries it; the first chunk's before the loop). (A load-per-tile loop
// waited on memory a dozen times a chunk: 1.5 ms of 3.3 at B4 T4096 H16
// K=V=128 on an H200.)
//
// The W and Kd tiles are staged as 4-float vectors (W by rows of keys, Kd
// transposed: keys by rows of 4 steps, rows one vector apart more than the
// tile, so that a warp's stores hit distinct banks): a thread reads four
// keys of W or four steps of Kd in one shared load (0.75 and 0.63 shared
// loads a multiply-add before, 0.38 and 0.25 now). On the H200 that moved
// the pass by 3 % only (docs/ops/delta.md): shared loads were not its
// limit.
//
//===----------------------------------------------------------------------===//

#include "Common/VulkanMatrices.h"
#include "Linear/Vulkan/DeltaChunk.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::delta_chunk;

namespace {

class StateKernel : public Kernel {
public:
  using Kernel::Kernel;

  void build() {
    begin();
    Value blockV = e.index(l.blockV);
    v0 = e.mul(WorkgroupIdOp::create(e.b, 0), blockV);
    seqId = WorkgroupIdOp::create(e.b, 2);
    sequenceBounds(seqId);
    int64_t kt = VulkanDeltaChunkLayout::kTile;
    sS = allocWorkgroup(e, l.kPad() * l.blockV);
    vS = allocWorkgroup(e, l.chunk * l.blockV);
    tile = allocWorkgroupOf(
        e, std::max(l.chunk * kt, l.updateTile * l.kPad() + 4 * l.kPad()) / 4,
        vec4());

    SmallVector<Value> s;
    for (int64_t i = 0; i < l.kPer; ++i)
      for (int64_t j = 0; j < l.vPer; ++j) {
        Value s0 = zeroF();
        if (buf.initialState) {
          Value init =
              memref::LoadOp::create(e.b, buf.initialState,
                                     ValueRange{seqId, head, clampK(keyOf(i)),
                                                clampV(e.add(v0, colOf(j)))});
          s0 = orZero(inside(i, j), init);
        }
        s.push_back(s0);
      }
    // The loop carries the state and the next chunk's W (loaded during the
    // update of the chunk before; the first chunk's here).
    int64_t nS = s.size();
    Value count = chunkCount();
    SmallVector<Value> carried = s;
    llvm::append_range(carried, loadWChunk(slotOfChunk(zero, count)));
    carried = e.forLoop(zero, count, one, carried,
                        [&](Value ci, ValueRange in) -> SmallVector<Value> {
                          setChunk(ci);
                          return chunkStep(in.take_front(nS), in.drop_front(nS),
                                           slotOfChunk(e.add(ci, one), count));
                        });
    s.assign(carried.begin(), carried.begin() + nS);
    if (buf.finalState)
      for (int64_t i = 0; i < l.kPer; ++i)
        for (int64_t j = 0; j < l.vPer; ++j)
          emitIf(e, inside(i, j), [&] {
            store(s[i * l.vPer + j], buf.finalState,
                  {seqId, head, keyOf(i), e.add(v0, colOf(j))});
          });
  }

private:
  Value keyOf(int64_t i) { return e.add(rowThread, e.index(i * G)); }
  Value colOf(int64_t j) { return e.add(colThread, e.index(j * G)); }
  Value stepOf(int64_t a) { return e.add(rowThread, e.index(a * G)); }
  /// Whether state entry (i, j) of this thread is inside the problem.
  Value inside(int64_t i, int64_t j) {
    Value dimV = e.index(p.dimV);
    Value inColumns = lt(e.add(v0, colOf(j)), dimV);
    Value dimK = e.index(p.dimK);
    Value inKeys = lt(keyOf(i), dimK);
    return andI(inKeys, inColumns);
  }

  VectorType vec4() { return VectorType::get({4}, e.f32); }
  Value lane(Value v, int64_t c) {
    return vector::ExtractOp::create(e.b, v, c);
  }

  /// This thread's share (elements thread + 256 r) of a tile of `total`
  /// vectors, `element(i)` each (i clamped into the tile in a last
  /// partial round: those are never stored).
  SmallVector<Value> loadTile(int64_t total,
                              function_ref<Value(Value)> element) {
    SmallVector<Value> regs;
    for (int64_t r = 0; r * l.kThreads < total; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      if ((r + 1) * l.kThreads > total)
        i = e.min(i, e.index(total - 1));
      regs.push_back(element(i));
    }
    return regs;
  }

  /// Stores vector r of `regs` at `at(i)` for the elements i of storeTile's
  /// rounds.
  void storeTile(ValueRange regs, int64_t total,
                 function_ref<Value(Value)> at) {
    for (int64_t r = 0; r * l.kThreads < total; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      if ((r + 1) * l.kThreads > total)
        emitIf(e, lt(i, e.index(total)),
               [&] { store(regs[r], tile, {at(i)}); });
      else
        store(regs[r], tile, {at(i)});
    }
  }

  /// The slot of the sequence's chunk `ci`, clamped into its chunks (a
  /// prefetch past the last chunk reloads it; an empty sequence's is its
  /// first slot, never used).
  Value slotOfChunk(Value ci, Value count) {
    Value last = e.max(e.sub(count, one), zero);
    Value chunk = e.min(ci, last);
    return e.add(baseSlot(seqId), chunk);
  }

  /// Every key tile of W of chunk slot `at`, tile after tile.
  SmallVector<Value> loadWChunk(Value at) {
    SmallVector<Value> regs;
    for (int64_t kb = 0; kb < l.kPer; ++kb)
      llvm::append_range(regs, loadW(e.index(kb), at));
    return regs;
  }

  /// Key tile `kb` of W ([chunk, 16] as [chunk, 4] vectors of 4 keys) of
  /// chunk slot `at`.
  SmallVector<Value> loadW(Value kb, Value at) {
    int64_t kt = VulkanDeltaChunkLayout::kTile, q = kt / 4;
    Value k0 = e.mul(kb, e.index(kt));
    return loadTile(l.chunk * q, [&](Value i) {
      Value t = udiv(i, q);
      Value four = e.index(4);
      Value kq = e.add(k0, e.mul(urem(i, q), four));
      SmallVector<Value> keys;
      for (int64_t c = 0; c < 4; ++c) {
        Value k = e.add(kq, e.index(c));
        Value w = memref::LoadOp::create(e.b, tmp.w,
                                         ValueRange{at, head, t, clampK(k)});
        keys.push_back(orZero(lt(k, e.index(p.dimK)), w));
      }
      return vector::FromElementsOp::create(e.b, vec4(), keys).getResult();
    });
  }

  /// Vectors of Kd's transposed step tile per key row.
  int64_t kdPitch() { return l.updateTile / 4 + 1; }

  /// Step tile `sb` of Kd ([update tile, kPad]), transposed: vector i
  /// holds steps 4 (i / kPad) .. + 3 of key i % kPad (consecutive threads
  /// read consecutive keys).
  SmallVector<Value> loadKd(Value sb) {
    int64_t kPad = l.kPad();
    Value s0 = e.mul(sb, e.index(l.updateTile));
    return loadTile(l.updateTile * kPad / 4, [&](Value i) {
      Value k = urem(i, kPad);
      Value four = e.index(4);
      Value sq = e.add(s0, e.mul(udiv(i, kPad), four));
      SmallVector<Value> steps;
      for (int64_t c = 0; c < 4; ++c) {
        Value kd = memref::LoadOp::create(
            e.b, tmp.kd,
            ValueRange{slot, head, e.add(sq, e.index(c)), clampK(k)});
        steps.push_back(orZero(lt(k, e.index(p.dimK)), kd));
      }
      return vector::FromElementsOp::create(e.b, vec4(), steps).getResult();
    });
  }

  /// One chunk, its W (`w`, every key tile's vectors in order) loaded
  /// before. The loads of its Kd tiles and of U are issued first (they do
  /// not depend on S) and wait behind N = U - W S; the loads of the next
  /// chunk's W (slot `nextSlot`) go out once this chunk's W is staged, and
  /// wait behind the update. Returns the new state, then the next W.
  SmallVector<Value> chunkStep(ValueRange state, ValueRange w, Value nextSlot) {
    int64_t C = l.chunk, kt = VulkanDeltaChunkLayout::kTile;
    int64_t bv = l.blockV, kPad = l.kPad(), ut = l.updateTile;
    int64_t perTile = w.size() / l.kPer;
    SmallVector<SmallVector<Value>> kdTiles;
    for (int64_t sb = 0; sb < C / ut; ++sb)
      kdTiles.push_back(loadKd(e.index(sb)));
    SmallVector<Value> u;
    for (int64_t a = 0; a < l.cPer; ++a)
      for (int64_t j = 0; j < l.vPer; ++j) {
        Value c = e.add(v0, colOf(j));
        Value value = memref::LoadOp::create(
            e.b, tmp.u, ValueRange{slot, head, stepOf(a), clampV(c)});
        u.push_back(orZero(lt(c, e.index(p.dimV)), value));
      }
    SmallVector<Value> n(u.size(), zeroF());
    // Publish S.
    for (int64_t i = 0; i < l.kPer; ++i)
      for (int64_t j = 0; j < l.vPer; ++j) {
        Value sv = state[i * l.vPer + j];
        Value col = colOf(j);
        Value rowPitch = e.index(bv);
        Value at = e.add(e.mul(keyOf(i), rowPitch), col);
        store(sv, sS, {at});
        emitIf(e, inside(i, j), [&] {
          store(sv, tmp.states, {slot, head, keyOf(i), e.add(v0, colOf(j))});
        });
      }

    // N = U - W S over the key tiles, four keys a shared load of W.
    auto same = [](Value i) { return i; };
    for (int64_t kb = 0; kb < l.kPer; ++kb) {
      storeTile(w.slice(kb * perTile, perTile), C * kt / 4, same);
      gpu::BarrierOp::create(e.b);
      for (int64_t kq = 0; kq < kt / 4; ++kq) {
        SmallVector<Value> ws;
        for (int64_t a = 0; a < l.cPer; ++a) {
          Value quad = e.index(kq);
          Value rowPitch = e.index(kt / 4);
          Value at = e.add(e.mul(stepOf(a), rowPitch), quad);
          ws.push_back(memref::LoadOp::create(e.b, tile, at));
        }
        for (int64_t c = 0; c < 4; ++c) {
          SmallVector<Value> ss;
          Value sRow = e.index((kb * kt + 4 * kq + c) * bv);
          for (int64_t j = 0; j < l.vPer; ++j)
            ss.push_back(
                memref::LoadOp::create(e.b, sS, e.add(sRow, colOf(j))));
          for (int64_t a = 0; a < l.cPer; ++a) {
            Value w = arith::NegFOp::create(e.b, lane(ws[a], c));
            for (int64_t j = 0; j < l.vPer; ++j)
              n[a * l.vPer + j] =
                  math::FmaOp::create(e.b, w, ss[j], n[a * l.vPer + j]);
          }
        }
      }
      gpu::BarrierOp::create(e.b);
    }
    SmallVector<Value> nextW = loadWChunk(nextSlot);
    for (int64_t a = 0; a < l.cPer; ++a)
      for (int64_t j = 0; j < l.vPer; ++j) {
        n[a * l.vPer + j] = e.fadd(u[a * l.vPer + j], n[a * l.vPer + j]);
        Value t = stepOf(a), c = e.add(v0, colOf(j));
        Value valid = lt(t, len);
        Value col = colOf(j);
        Value at = e.add(e.mul(t, e.index(bv)), col);
        Value out = orZero(valid, n[a * l.vPer + j]);
        store(out, vS, {at});
        emitIf(e, andI(valid, lt(c, e.index(p.dimV))), [&] {
          store(n[a * l.vPer + j], tmp.u, {slot, head, t, c});
        });
      }
    // (The step tiles' first barrier publishes N.)

    // S = exp(B_last) S + Kd^T N over the step tiles.
    SmallVector<Value> next(state.begin(), state.end());
    if (p.decayed()) {
      Value lastStep = e.sub(len, one);
      Value headDecay;
      if (p.decay == DeltaDecay::PerHead)
        headDecay = e.exp(cumGate(lastStep, Value()));
      for (int64_t i = 0; i < l.kPer; ++i) {
        Value d =
            headDecay ? headDecay : e.exp(cumGate(lastStep, clampK(keyOf(i))));
        for (int64_t j = 0; j < l.vPer; ++j)
          next[i * l.vPer + j] = e.fmul(d, next[i * l.vPer + j]);
      }
    }
    // Four steps a shared load of Kd.
    int64_t pitch = kdPitch();
    auto transposed = [&](Value i) {
      Value step = udiv(i, kPad);
      Value rowPitch = e.index(pitch);
      Value keyAt = e.mul(urem(i, kPad), rowPitch);
      return e.add(keyAt, step);
    };
    for (int64_t sb = 0; sb < C / ut; ++sb) {
      storeTile(kdTiles[sb], ut * kPad / 4, transposed);
      gpu::BarrierOp::create(e.b);
      for (int64_t sq = 0; sq < ut / 4; ++sq) {
        SmallVector<Value> ks;
        for (int64_t i = 0; i < l.kPer; ++i) {
          Value quad = e.index(sq);
          Value rowPitch = e.index(pitch);
          Value at = e.add(e.mul(keyOf(i), rowPitch), quad);
          ks.push_back(memref::LoadOp::create(e.b, tile, at));
        }
        for (int64_t c = 0; c < 4; ++c) {
          SmallVector<Value> vs;
          Value vRow = e.index((sb * ut + 4 * sq + c) * bv);
          for (int64_t j = 0; j < l.vPer; ++j)
            vs.push_back(
                memref::LoadOp::create(e.b, vS, e.add(vRow, colOf(j))));
          for (int64_t i = 0; i < l.kPer; ++i) {
            Value kd = lane(ks[i], c);
            for (int64_t j = 0; j < l.vPer; ++j)
              next[i * l.vPer + j] =
                  math::FmaOp::create(e.b, kd, vs[j], next[i * l.vPer + j]);
          }
        }
      }
      gpu::BarrierOp::create(e.b);
    }
    llvm::append_range(next, nextW);
    return next;
  }

  Value v0, sS, vS, tile;
};

} // namespace

void mlir::ejk::delta_chunk::buildDeltaChunkState(
    OpBuilder &builder, Location loc, const DeltaProblem &p,
    const VulkanDeltaChunkLayout &l, const DeltaBuffers &buf,
    const Temporaries &tmp) {
  StateKernel(builder, loc, p, l, buf, tmp).build();
}
