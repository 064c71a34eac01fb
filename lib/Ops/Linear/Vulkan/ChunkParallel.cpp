//===- ChunkParallel.cpp - gated linear recurrences, chunk-parallel -------===//
//
// The three dispatches of ChunkParallel.h for `ejk.gla`,
// `ejk.lightning_attention` and `ejk.recurrent` without a value gate. With
// B_t the cumulative key log gate of step t from its chunk's start
// (inclusive), per chunk:
//
//   dS     = sum_s (k_s exp(B_last - B_s))^T v_s          (update)
//   S_c    = diag(exp(B_last)) S_{c-1} + dS                (scan)
//   A[t,s] = sum_k scale q_t[k] exp(B_t[k]) k_s[k] exp(-B_s[k])   (s <= t)
//   O[t,:] = sum_s A[t,s] v_s + (scale q_t exp(B_t)) S_{c-1}     (outputs)
//
// Every exponent of the update and the scan is <= 0 for gates <= 0; the
// scores factor the gate ratio while the chunk's strongest decay stays
// within e^-60 (as the CPU kernel does) and take exp(min(B_t - B_s, 0)) per
// key and pair past that. All arithmetic is f32 (SIMT FMAs): the state and
// the gate factors need f32's range.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/ChunkParallel.h"
#include "Attention/Vulkan/Scores.h"
#include "Common/Arithmetic.h"
#include "StateSpace/Vulkan/Kernels.h"

#include "ejk/Ops/Linear/Config.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

/// The largest chunk decay (-min_k B_last) whose gate ratios are factored.
constexpr float kFactorBound = 60.0f;

/// How the key decay of a step is known.
enum class GateMode {
  /// No key decay.
  None,
  /// One constant per head (g_gamma, slopes): B_t = gamma (t + 1).
  Constant,
  /// Per step and key dim (g, gk): B read from the update's temporary.
  PerStep,
};

GateMode gateMode(const GlaProblem &p) {
  if (p.hasG || p.hasGk)
    return GateMode::PerStep;
  return p.hasGamma() ? GateMode::Constant : GateMode::None;
}

int64_t maxChunks(const GlaProblem &p, const VulkanGlaChunkLayout &l) {
  return ceilDiv(std::max<int64_t>(1, p.seq), l.chunk);
}

/// Chunk slots of the update and the scan (the outputs add a filler slot
/// with cu_seqlens).
int64_t numSlots(const GlaProblem &p, const VulkanGlaChunkLayout &l) {
  return p.packed ? maxChunks(p, l) + p.numSeqs : p.batch * maxChunks(p, l);
}

/// The temporaries: the states per chunk slot and, with per-step gates,
/// the chunk decays and the cumulative gates.
struct Temporaries {
  Value states, decays, cumGates;
};

SmallVector<MemRefType> temporaryTypes(const GlaProblem &p,
                                       const VulkanGlaChunkLayout &l,
                                       MLIRContext *context) {
  Type f32 = Float32Type::get(context);
  SmallVector<MemRefType> types = {
      MemRefType::get({numSlots(p, l), p.heads, p.dimK, p.dimV}, f32)};
  if (gateMode(p) == GateMode::PerStep) {
    types.push_back(MemRefType::get({numSlots(p, l), p.heads, p.dimK}, f32));
    types.push_back(MemRefType::get({p.batch, p.seq, p.heads, p.dimK}, f32));
  }
  return types;
}

/// What the three kernels share: the workgroup's sequence and chunk, the
/// steps, the gates.
class ChunkBuilder {
public:
  ChunkBuilder(OpBuilder &builder, Location loc, const GlaProblem &p,
               const VulkanGlaChunkLayout &l, const GlaBuffers &buf,
               const Temporaries &tmp)
      : e(builder, loc, 1), p(p), l(l), buf(buf), tmp(tmp) {
    zero = e.index(0);
    one = e.index(1);
    mode = gateMode(p);
  }

  /// update: dS and the decays of the workgroup's chunk.
  void buildUpdate() {
    begin();
    withChunkOfSlot(WorkgroupIdOp::create(e.b, 0), [&] { update(); });
  }

  /// scan: the states before each chunk, the final state.
  void buildScan() {
    begin();
    Value entryBlock = WorkgroupIdOp::create(e.b, 0);
    seqId = WorkgroupIdOp::create(e.b, 2);
    Value entry = e.add(e.mul(entryBlock, e.index(l.kThreads)), thread);
    emitIf(e, cmp(arith::CmpIPredicate::slt, entry, e.index(p.dimK * p.dimV)),
           [&] {
             Value k = arith::DivUIOp::create(e.b, entry, e.index(p.dimV));
             Value v = arith::RemUIOp::create(e.b, entry, e.index(p.dimV));
             sequenceBounds(seqId);
             scan(k, v);
           });
  }

  /// outputs: the chunk's outputs (and, on the filler slot, zeros for the
  /// steps of no sequence).
  void buildOutputs() {
    begin();
    Value slot = WorkgroupIdOp::create(e.b, 0);
    v0 = e.mul(WorkgroupIdOp::create(e.b, 2), e.index(l.blockV));
    if (p.packed) {
      Value filler =
          cmp(arith::CmpIPredicate::eq, slot, e.index(numSlots(p, l)));
      emitIf(e, filler, [&] { zeroUncovered(); });
    }
    withChunkOfSlot(slot, [&] { outputs(); });
  }

private:
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(e.b, pred, x, y);
  }
  Value notOf(Value x) {
    return arith::XOrIOp::create(
        e.b, x, arith::ConstantOp::create(e.b, e.b.getBoolAttr(true)));
  }
  Value load(Value memref, ValueRange indices) {
    return e.toF32(memref::LoadOp::create(e.b, memref, indices));
  }
  Type outputType() {
    return cast<MemRefType>(buf.output.getType()).getElementType();
  }

  void begin() {
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    head = WorkgroupIdOp::create(e.b, 1);
    kvHead = e.div(head, e.index(p.headsPerKv()));
    Value grid = e.index(VulkanGlaChunkLayout::kGrid);
    rowThread = arith::DivUIOp::create(e.b, thread, grid);
    colThread = arith::RemUIOp::create(e.b, thread, grid);
  }

  /// clamp(cu_seqlens[i], 0, seq).
  Value cuEntry(Value i) {
    Value raw = arith::IndexCastOp::create(
        e.b, e.b.getIndexType(),
        memref::LoadOp::create(e.b, buf.cuSeqlens, ValueRange{i}));
    return e.min(e.max(raw, zero), e.index(p.seq));
  }

  /// start, end and batchIdx of sequence `n`.
  void sequenceBounds(Value n) {
    if (!p.packed) {
      batchIdx = n;
      start = zero;
      end = e.index(p.seq);
    } else {
      batchIdx = zero;
      start = cuEntry(n);
      end = e.max(cuEntry(e.add(n, one)), start);
    }
    seqLen = e.sub(end, start);
  }

  /// The first slot of sequence `n` (after sequenceBounds(n)).
  Value baseSlot(Value n) {
    if (!p.packed)
      return e.mul(n, e.index(maxChunks(p, l)));
    return e.add(e.div(start, e.index(l.chunk)), n);
  }
  Value chunkCount() {
    return e.div(e.add(seqLen, e.index(l.chunk - 1)), e.index(l.chunk));
  }

  /// Runs `body` with seqId, the sequence's bounds, the chunk c0 (first
  /// scan index) and len (its steps) of `slot`, when the slot holds a
  /// chunk. Packed slots find their sequence by binary search over the
  /// (non-decreasing) first slots of the sequences.
  void withChunkOfSlot(Value slot, function_ref<void()> body) {
    if (!p.packed) {
      seqId = e.div(slot, e.index(maxChunks(p, l)));
      sequenceBounds(seqId);
      chunkIndex = e.sub(slot, baseSlot(seqId));
      chunkBody(body);
      return;
    }
    // The last n in [0, N) with baseSlot(n) <= slot.
    Value lo = zero, hi = e.index(p.numSeqs);
    int64_t steps = 0;
    for (int64_t span = p.numSeqs; span > 0; span /= 2)
      ++steps;
    SmallVector<Value> range = e.forLoop(
        zero, e.index(steps + 1), one, {lo, hi},
        [&](Value, ValueRange bounds) -> SmallVector<Value> {
          Value low = bounds[0], high = bounds[1];
          // mid = ceil((low + high) / 2), probing while low < high - 1.
          Value mid = e.div(e.add(e.add(low, high), one), e.index(2));
          Value probe = e.min(mid, e.index(p.numSeqs - 1));
          Value base = e.add(e.div(cuEntry(probe), e.index(l.chunk)), probe);
          Value open = cmp(arith::CmpIPredicate::slt, e.add(low, one), high);
          Value fits = arith::AndIOp::create(
              e.b, open, cmp(arith::CmpIPredicate::sle, base, slot));
          Value shrink = arith::AndIOp::create(e.b, open, notOf(fits));
          return {e.select(fits, mid, low), e.select(shrink, mid, high)};
        });
    seqId = range[0];
    sequenceBounds(seqId);
    chunkIndex = e.sub(slot, baseSlot(seqId));
    Value inside = arith::AndIOp::create(
        e.b, cmp(arith::CmpIPredicate::sge, chunkIndex, zero),
        cmp(arith::CmpIPredicate::slt, chunkIndex, chunkCount()));
    emitIf(e, inside, [&] { chunkBody(body); });
  }

  void chunkBody(function_ref<void()> body) {
    c0 = e.mul(chunkIndex, e.index(l.chunk));
    len = e.min(e.index(l.chunk), e.sub(seqLen, c0));
    if (p.hasGamma())
      gamma = loadGamma();
    body();
  }

  /// The step of scan index `i` of the sequence.
  Value rowOf(Value i) {
    return p.reverse ? e.sub(e.sub(end, one), i) : e.add(start, i);
  }
  /// The step of chunk step `t` (clamped into the chunk: rows past it read
  /// its last step, and callers mask them).
  Value chunkRow(Value t) {
    return rowOf(e.add(c0, e.min(t, e.sub(len, one))));
  }

  /// The head's constant log decay (GammaForm).
  Value loadGamma() {
    switch (p.gamma) {
    case GammaForm::PerHead:
      return memref::LoadOp::create(e.b, buf.gGamma, ValueRange{head});
    case GammaForm::PerSequence:
      return memref::LoadOp::create(e.b, buf.gGamma, ValueRange{seqId, head});
    case GammaForm::NegatedSlopes:
      return arith::NegFOp::create(
          e.b, memref::LoadOp::create(e.b, buf.gGamma, ValueRange{head}));
    case GammaForm::LinearInHead: {
      Value h = arith::SIToFPOp::create(e.b, e.f32, e.toI32(head));
      return e.fmul(h, e.constF32(-p.gammaStep));
    }
    case GammaForm::None:
      break;
    }
    return Value();
  }

  /// The key log gate of `row` at key `k`: g + gk + gamma.
  Value stepGate(Value row, Value k) {
    SmallVector<Value, 3> terms;
    for (Value gate : {buf.g, buf.gk})
      if (gate)
        terms.push_back(load(gate, {batchIdx, row, head, k}));
    Value a = terms.front();
    for (Value x : ArrayRef<Value>(terms).drop_front())
      a = e.fadd(a, x);
    if (gamma)
      a = e.fadd(a, gamma);
    return a;
  }

  /// gamma (t + 1) as f32, for a chunk step index t.
  Value constantCum(Value t) {
    Value n = arith::SIToFPOp::create(e.b, e.f32, e.toI32(e.add(t, one)));
    return e.fmul(gamma, n);
  }

  /// B at chunk step `t` and key `k` (gates present), from the
  /// temporary or the constant.
  Value cumGate(Value t, Value k) {
    if (mode == GateMode::Constant)
      return constantCum(t);
    return memref::LoadOp::create(e.b, tmp.cumGates,
                                  ValueRange{batchIdx, chunkRow(t), head, k});
  }

  //===--------------------------------------------------------------------===//
  // update
  //===--------------------------------------------------------------------===//

  void update() {
    int64_t kPad = l.kPad();
    int64_t tile = VulkanGlaChunkLayout::kStepTile;
    v0 = e.mul(WorkgroupIdOp::create(e.b, 2), e.index(l.blockV));
    Value kTile = allocWorkgroup(e, tile * kPad);
    Value vTile = allocWorkgroup(e, tile * l.blockV);
    // B_last per key: from a first pass over the gates (per-step gates; the
    // first V block also writes B for the outputs), or gamma * len.
    Value lastGate;
    if (mode == GateMode::PerStep) {
      // Only the column threads' B_last is used (their own key's).
      auto ifOp = scf::IfOp::create(
          e.b, TypeRange{e.f32},
          cmp(arith::CmpIPredicate::slt, thread, e.index(p.dimK)),
          /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(e.b, cumulateGates(thread));
      e.b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(e.b, e.constF32(0.0f));
      e.b.setInsertionPointAfter(ifOp);
      lastGate = ifOp.getResult(0);
    } else if (mode == GateMode::Constant) {
      lastGate =
          e.fmul(gamma, arith::SIToFPOp::create(e.b, e.f32, e.toI32(len)));
    }

    // dS over tiles of 16 steps: the gated keys k exp(B_last - B_s) (with
    // per-step gates each column thread stages its key, B_s running from
    // tile to tile), the values by every thread.
    SmallVector<Value> inits(l.kPer * l.vPer, e.constF32(0.0f));
    inits.push_back(e.constF32(0.0f)); // the column's running B
    Value numTiles = e.div(e.add(len, e.index(tile - 1)), e.index(tile));
    SmallVector<Value> acc = e.forLoop(
        zero, numTiles, one, inits,
        [&](Value ti, ValueRange accIn) -> SmallVector<Value> {
          Value s0 = e.mul(ti, e.index(tile));
          Value running = accIn.back();
          if (mode == GateMode::PerStep) {
            Value isColumn =
                cmp(arith::CmpIPredicate::slt, thread, e.index(p.dimK));
            auto ifOp = scf::IfOp::create(e.b, TypeRange{e.f32}, isColumn,
                                          /*withElseRegion=*/true);
            {
              OpBuilder::InsertionGuard guard(e.b);
              e.b.setInsertionPointToStart(ifOp.thenBlock());
              Value run = running;
              for (int64_t s = 0; s < tile; ++s) {
                Value step = e.add(s0, e.index(s));
                Value valid = cmp(arith::CmpIPredicate::slt, step, len);
                Value row = chunkRow(step);
                run = e.fadd(run, e.select(valid, stepGate(row, thread),
                                           e.constF32(0.0f)));
                Value key =
                    e.fmul(load(buf.key, {batchIdx, row, kvHead, thread}),
                           e.exp(e.fsub(lastGate, run)));
                memref::StoreOp::create(
                    e.b, e.select(valid, key, e.constF32(0.0f)), kTile,
                    e.add(e.index(s * kPad), thread));
              }
              scf::YieldOp::create(e.b, run);
              e.b.setInsertionPointToStart(ifOp.elseBlock());
              scf::YieldOp::create(e.b, running);
            }
            running = ifOp.getResult(0);
          } else {
            forEachShared(e, l.kThreads, thread, tile * kPad, [&](Value i) {
              Value s = arith::DivUIOp::create(e.b, i, e.index(kPad));
              Value k = arith::RemUIOp::create(e.b, i, e.index(kPad));
              Value step = e.add(s0, s);
              Value valid = arith::AndIOp::create(
                  e.b, cmp(arith::CmpIPredicate::slt, step, len),
                  cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK)));
              Value key = load(buf.key, {batchIdx, chunkRow(step), kvHead,
                                         e.min(k, e.index(p.dimK - 1))});
              if (mode == GateMode::Constant)
                key = e.fmul(key, e.exp(e.fsub(lastGate, constantCum(step))));
              memref::StoreOp::create(
                  e.b, e.select(valid, key, e.constF32(0.0f)), kTile, i);
            });
          }
          stageValues(vTile, s0, tile);
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> next(accIn.drop_back().begin(),
                                  accIn.drop_back().end());
          for (int64_t s = 0; s < tile; ++s) {
            SmallVector<Value> ks, vs;
            for (int64_t i = 0; i < l.kPer; ++i)
              ks.push_back(memref::LoadOp::create(
                  e.b, kTile, e.add(e.index(s * kPad), stateRow(i))));
            for (int64_t j = 0; j < l.vPer; ++j)
              vs.push_back(memref::LoadOp::create(
                  e.b, vTile, e.add(e.index(s * l.blockV), stateCol(j))));
            for (int64_t i = 0; i < l.kPer; ++i)
              for (int64_t j = 0; j < l.vPer; ++j)
                next[i * l.vPer + j] = math::FmaOp::create(
                    e.b, ks[i], vs[j], next[i * l.vPer + j]);
          }
          gpu::BarrierOp::create(e.b);
          next.push_back(running);
          return next;
        });
    for (int64_t i = 0; i < l.kPer; ++i)
      for (int64_t j = 0; j < l.vPer; ++j) {
        Value k = stateRow(i), v = e.add(v0, stateCol(j));
        Value inside = arith::AndIOp::create(
            e.b, cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK)),
            cmp(arith::CmpIPredicate::slt, v, e.index(p.dimV)));
        emitIf(e, inside, [&] {
          memref::StoreOp::create(e.b, acc[i * l.vPer + j], tmp.states,
                                  ValueRange{slot(), head, k, v});
        });
      }
  }

  /// The column thread of key `k`: B over the chunk's steps (loads issued 8
  /// at a time), written to the temporary by the first V block with the
  /// chunk decay exp(B_last); returns B_last.
  Value cumulateGates(Value k) {
    Value firstBlock = cmp(arith::CmpIPredicate::eq, v0, zero);
    Value total = e.forLoop(
        zero, e.index(l.chunk), e.index(8), {e.constF32(0.0f)},
        [&](Value t0, ValueRange acc) -> SmallVector<Value> {
          SmallVector<Value> gates, valid;
          for (int64_t i = 0; i < 8; ++i) {
            Value t = e.add(t0, e.index(i));
            valid.push_back(cmp(arith::CmpIPredicate::slt, t, len));
            gates.push_back(e.select(valid.back(), stepGate(chunkRow(t), k),
                                     e.constF32(0.0f)));
          }
          Value sum = acc[0];
          for (int64_t i = 0; i < 8; ++i) {
            Value t = e.add(t0, e.index(i));
            sum = e.fadd(sum, gates[i]);
            emitIf(e, arith::AndIOp::create(e.b, valid[i], firstBlock), [&] {
              memref::StoreOp::create(
                  e.b, sum, tmp.cumGates,
                  ValueRange{batchIdx, chunkRow(t), head, k});
            });
          }
          return {sum};
        })[0];
    emitIf(e, firstBlock, [&] {
      memref::StoreOp::create(e.b, e.exp(total), tmp.decays,
                              ValueRange{slot(), head, k});
    });
    return total;
  }

  /// Values of chunk steps [s0, s0 + rows) and the block's columns (zero
  /// past the chunk and head_dim_v) into `tile` [rows, block_v].
  void stageValues(Value tile, Value s0, int64_t rows) {
    forEachShared(e, l.kThreads, thread, rows * l.blockV, [&](Value i) {
      Value s = arith::DivUIOp::create(e.b, i, e.index(l.blockV));
      Value c = arith::RemUIOp::create(e.b, i, e.index(l.blockV));
      Value step = e.add(s0, s);
      Value col = e.add(v0, c);
      Value valid = arith::AndIOp::create(
          e.b, cmp(arith::CmpIPredicate::slt, step, len),
          cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV)));
      Value v = load(buf.value, {batchIdx, chunkRow(step), kvHead,
                                 e.min(col, e.index(p.dimV - 1))});
      memref::StoreOp::create(e.b, e.select(valid, v, e.constF32(0.0f)), tile,
                              i);
    });
  }

  Value slot() { return e.add(baseSlot(seqId), chunkIndex); }
  /// The update's and the scan's thread entries: key row tk + 16 i, value
  /// column tv + 16 j (within the block).
  Value stateRow(int64_t i) {
    return e.add(rowThread, e.index(i * VulkanGlaChunkLayout::kGrid));
  }
  Value stateCol(int64_t j) {
    return e.add(colThread, e.index(j * VulkanGlaChunkLayout::kGrid));
  }

  //===--------------------------------------------------------------------===//
  // scan
  //===--------------------------------------------------------------------===//

  void scan(Value k, Value v) {
    Value s0 = e.constF32(0.0f);
    if (buf.initialState)
      s0 = memref::LoadOp::create(e.b, buf.initialState,
                                  ValueRange{seqId, head, k, v});
    if (p.hasGamma())
      gamma = loadGamma();
    Value base = baseSlot(seqId);
    Value count = chunkCount();
    // Eight chunks a round: their loads first (independent of the state),
    // then the eight dependent steps, so a round waits on memory once.
    constexpr int64_t kUnroll = 8;
    Value rounds = e.div(e.add(count, e.index(kUnroll - 1)), e.index(kUnroll));
    Value last = e.max(e.sub(count, one), zero);
    Value state = e.forLoop(
        zero, rounds, one, {s0},
        [&](Value r, ValueRange s) -> SmallVector<Value> {
          SmallVector<Value> valid, at, delta, decay;
          for (int64_t i = 0; i < kUnroll; ++i) {
            Value c = e.add(e.mul(r, e.index(kUnroll)), e.index(i));
            valid.push_back(cmp(arith::CmpIPredicate::slt, c, count));
            at.push_back(e.add(base, e.min(c, last)));
            delta.push_back(memref::LoadOp::create(
                e.b, tmp.states, ValueRange{at[i], head, k, v}));
            if (mode == GateMode::PerStep) {
              decay.push_back(memref::LoadOp::create(
                  e.b, tmp.decays, ValueRange{at[i], head, k}));
            } else if (mode == GateMode::Constant) {
              Value steps = e.min(e.index(l.chunk),
                                  e.sub(seqLen, e.mul(c, e.index(l.chunk))));
              decay.push_back(e.exp(e.fmul(
                  gamma, arith::SIToFPOp::create(e.b, e.f32, e.toI32(steps)))));
            }
          }
          Value cur = s[0];
          for (int64_t i = 0; i < kUnroll; ++i) {
            Value before = cur;
            emitIf(e, valid[i], [&] {
              memref::StoreOp::create(e.b, before, tmp.states,
                                      ValueRange{at[i], head, k, v});
            });
            Value next = decay.empty()
                             ? e.fadd(cur, delta[i])
                             : math::FmaOp::create(e.b, decay[i], cur, delta[i])
                                   .getResult();
            cur = e.select(valid[i], next, cur);
          }
          return {cur};
        })[0];
    if (buf.finalState)
      memref::StoreOp::create(e.b, state, buf.finalState,
                              ValueRange{seqId, head, k, v});
  }

  //===--------------------------------------------------------------------===//
  // outputs
  //===--------------------------------------------------------------------===//

  /// Zeroes the steps outside every sequence (filler slot; all heads and
  /// V blocks of it: the filler runs once per (head, V block)).
  void zeroUncovered() {
    Value lo = cuEntry(zero);
    Value hi = e.max(cuEntry(e.index(p.numSeqs)), lo);
    Value width = e.index(l.blockV);
    Value zeroValue =
        arith::ConstantOp::create(e.b, e.b.getZeroAttr(outputType()));
    auto fill = [&](Value from, Value to) {
      Value total = e.mul(e.sub(to, from), width);
      e.forLoop(zero, total, e.index(l.kThreads), [&](Value base) {
        Value i = e.add(base, thread);
        Value col = e.add(v0, arith::RemUIOp::create(e.b, i, width));
        Value inside = arith::AndIOp::create(
            e.b, cmp(arith::CmpIPredicate::slt, i, total),
            cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV)));
        emitIf(e, inside, [&] {
          Value row = e.add(from, arith::DivUIOp::create(e.b, i, width));
          memref::StoreOp::create(e.b, zeroValue, buf.output,
                                  ValueRange{zero, row, head, col});
        });
      });
    };
    fill(zero, lo);
    fill(hi, e.index(p.seq));
  }

  /// The outputs' rows and columns of this thread.
  Value outRow(int64_t a) {
    return e.add(rowThread, e.index(a * VulkanGlaChunkLayout::kGrid));
  }
  Value outCol(int64_t j) { return stateCol(j); }

  void outputs() {
    int64_t C = l.chunk, kt = l.keyTile;
    int64_t st = VulkanGlaChunkLayout::kStepTile;
    Value scores = allocWorkgroup(e, C * C);
    Value qTile = allocWorkgroup(e, C * kt);
    Value kTile = allocWorkgroup(e, C * kt);
    // Rows of S (per key tile), then of V (per step tile).
    Value rowTile = allocWorkgroup(e, std::max(st, kt) * l.blockV);
    // B of the staged steps, for the exact scores.
    Value cumTile;
    if (mode != GateMode::None)
      cumTile = allocWorkgroup(e, C * kt);

    // The chunk's strongest decay picks factored or exact scores (the
    // same for the whole workgroup).
    Value factor;
    if (mode == GateMode::PerStep)
      factor = lastGateWithinBound();
    else if (mode == GateMode::Constant)
      factor = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGE,
                                     constantCum(e.sub(len, one)),
                                     e.constF32(-kFactorBound));

    // One pass over key tiles: the scores A and (q exp(B)) S together.
    int64_t nA = l.cPer * l.cPer, nO = l.cPer * l.vPer;
    auto keyLoop = [&](bool exact) -> SmallVector<Value> {
      SmallVector<Value> inits(nA + nO, e.constF32(0.0f));
      int64_t keyTiles = ceilDiv(p.dimK, kt);
      // With whole rounds, the next tile's loads are issued before this
      // tile's products and carried in registers (their latency hides
      // behind the FMAs); otherwise each tile is staged, then computed.
      bool prefetch = canPrefetch();
      int64_t numRegs = 0;
      if (prefetch) {
        SmallVector<Value> first = loadTileRegisters(zero, exact);
        numRegs = first.size();
        llvm::append_range(inits, first);
      }
      SmallVector<Value> acc = e.forLoop(
          zero, e.index(keyTiles), one, inits,
          [&](Value kb, ValueRange accIn) -> SmallVector<Value> {
            Value k0 = e.mul(kb, e.index(kt));
            SmallVector<Value> ahead;
            if (prefetch) {
              storeTileRegisters(accIn.take_back(numRegs), qTile, kTile,
                                 cumTile, rowTile, exact);
              gpu::BarrierOp::create(e.b);
              Value nextK0 = e.mul(e.min(e.add(kb, one), e.index(keyTiles - 1)),
                                   e.index(kt));
              ahead = loadTileRegisters(nextK0, exact);
            } else {
              stageKeyTiles(qTile, kTile, cumTile, k0, exact);
              stageStateRows(rowTile, k0);
              gpu::BarrierOp::create(e.b);
            }
            SmallVector<Value> next(accIn.begin(), accIn.begin() + nA + nO);
            for (int64_t k = 0; k < kt; ++k) {
              SmallVector<Value> qs, ks, qb, kb2, ss;
              for (int64_t a = 0; a < l.cPer; ++a) {
                Value idx = e.add(e.mul(outRow(a), e.index(kt)), e.index(k));
                qs.push_back(memref::LoadOp::create(e.b, qTile, idx));
                if (exact)
                  qb.push_back(memref::LoadOp::create(e.b, cumTile, idx));
              }
              for (int64_t b = 0; b < l.cPer; ++b) {
                Value idx = e.add(e.mul(scoreCol(b), e.index(kt)), e.index(k));
                ks.push_back(memref::LoadOp::create(e.b, kTile, idx));
                if (exact)
                  kb2.push_back(memref::LoadOp::create(e.b, cumTile, idx));
              }
              for (int64_t j = 0; j < l.vPer; ++j)
                ss.push_back(memref::LoadOp::create(
                    e.b, rowTile, e.add(e.index(k * l.blockV), outCol(j))));
              for (int64_t a = 0; a < l.cPer; ++a) {
                for (int64_t b = 0; b < l.cPer; ++b) {
                  Value kk = ks[b];
                  if (exact)
                    kk = e.fmul(
                        kk, e.exp(arith::MinNumFOp::create(
                                e.b, e.fsub(qb[a], kb2[b]), e.constF32(0.0f))));
                  next[a * l.cPer + b] =
                      math::FmaOp::create(e.b, qs[a], kk, next[a * l.cPer + b]);
                }
                // The inter-chunk part takes q exp(B_t): staged so when
                // factored, one exp a row and key when exact.
                Value qg = exact ? e.fmul(qs[a], e.exp(qb[a])) : qs[a];
                for (int64_t j = 0; j < l.vPer; ++j)
                  next[nA + a * l.vPer + j] = math::FmaOp::create(
                      e.b, qg, ss[j], next[nA + a * l.vPer + j]);
              }
            }
            gpu::BarrierOp::create(e.b);
            llvm::append_range(next, ahead);
            return next;
          });
      for (int64_t a = 0; a < l.cPer; ++a)
        for (int64_t b = 0; b < l.cPer; ++b) {
          Value t = outRow(a), sIdx = scoreCol(b);
          Value causal = cmp(arith::CmpIPredicate::sle, sIdx, t);
          memref::StoreOp::create(
              e.b, e.select(causal, acc[a * l.cPer + b], e.constF32(0.0f)),
              scores, e.add(e.mul(t, e.index(C)), sIdx));
        }
      return SmallVector<Value>(acc.begin() + nA, acc.begin() + nA + nO);
    };
    SmallVector<Value> o;
    if (!factor) {
      o = keyLoop(false);
    } else {
      auto ifOp = scf::IfOp::create(e.b, SmallVector<Type>(nO, e.f32), factor,
                                    /*withElseRegion=*/true);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(e.b, keyLoop(false));
      e.b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(e.b, keyLoop(true));
      e.b.setInsertionPointAfter(ifOp);
      o.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    }
    gpu::BarrierOp::create(e.b);

    // O += A V over tiles of 16 steps.
    Value numTiles = e.div(e.add(len, e.index(st - 1)), e.index(st));
    o = e.forLoop(
        zero, numTiles, one, o,
        [&](Value ti, ValueRange acc) -> SmallVector<Value> {
          Value s0 = e.mul(ti, e.index(st));
          stageValues(rowTile, s0, st);
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> next(acc.begin(), acc.end());
          for (int64_t s = 0; s < st; ++s) {
            SmallVector<Value> as, vs;
            for (int64_t a = 0; a < l.cPer; ++a)
              as.push_back(memref::LoadOp::create(
                  e.b, scores,
                  e.add(e.mul(outRow(a), e.index(C)), e.add(s0, e.index(s)))));
            for (int64_t j = 0; j < l.vPer; ++j)
              vs.push_back(memref::LoadOp::create(
                  e.b, rowTile, e.add(e.index(s * l.blockV), outCol(j))));
            for (int64_t a = 0; a < l.cPer; ++a)
              for (int64_t j = 0; j < l.vPer; ++j)
                next[a * l.vPer + j] = math::FmaOp::create(
                    e.b, as[a], vs[j], next[a * l.vPer + j]);
          }
          gpu::BarrierOp::create(e.b);
          return next;
        });

    for (int64_t a = 0; a < l.cPer; ++a)
      for (int64_t j = 0; j < l.vPer; ++j) {
        Value t = outRow(a), col = e.add(v0, outCol(j));
        Value inside = arith::AndIOp::create(
            e.b, cmp(arith::CmpIPredicate::slt, t, len),
            cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV)));
        emitIf(e, inside, [&] {
          memref::StoreOp::create(
              e.b, e.fromF32(o[a * l.vPer + j], outputType()), buf.output,
              ValueRange{batchIdx, rowOf(e.add(c0, t)), head, col});
        });
      }
  }

  /// Rows [k0, k0 + key tile) of the state before the chunk, the block's
  /// columns (zero past head_dim_k and head_dim_v), into `tile`.
  void stageStateRows(Value tile, Value k0) {
    forEachShared(e, l.kThreads, thread, l.keyTile * l.blockV, [&](Value i) {
      memref::StoreOp::create(e.b, loadStateElement(i, k0), tile, i);
    });
  }

  /// The scores' columns of this thread.
  Value scoreCol(int64_t b) {
    return e.add(colThread, e.index(b * VulkanGlaChunkLayout::kGrid));
  }

  /// Whether min_k B_last[k] >= -kFactorBound: each thread takes keys
  /// thread, thread + 256, ..., the subgroup maximum of -B_last by
  /// shuffles, the subgroups' maxima through workgroup memory.
  Value lastGateWithinBound() {
    int64_t subgroups = l.kThreads / l.subgroupSize;
    Value partial = allocWorkgroup(e, subgroups);
    Value worst = e.constF32(-std::numeric_limits<float>::infinity());
    for (int64_t k0 = 0; k0 < p.dimK; k0 += l.kThreads) {
      Value k = e.add(thread, e.index(k0));
      Value valid = cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK));
      Value b = cumGate(e.sub(len, one), e.min(k, e.index(p.dimK - 1)));
      worst = e.fmaxNoNaN(
          worst, e.select(valid, arith::NegFOp::create(e.b, b),
                          e.constF32(-std::numeric_limits<float>::infinity())));
    }
    worst = reduceAcrossLanes(e, worst, /*isMax=*/true, l.subgroupSize,
                              l.subgroupSize);
    Value sub = arith::DivUIOp::create(e.b, thread, e.index(l.subgroupSize));
    Value lane = arith::RemUIOp::create(e.b, thread, e.index(l.subgroupSize));
    emitIf(e, cmp(arith::CmpIPredicate::eq, lane, zero),
           [&] { memref::StoreOp::create(e.b, worst, partial, sub); });
    gpu::BarrierOp::create(e.b);
    Value all = memref::LoadOp::create(e.b, partial, zero);
    for (int64_t i = 1; i < subgroups; ++i)
      all = e.fmaxNoNaN(all, memref::LoadOp::create(e.b, partial, e.index(i)));
    return arith::CmpFOp::create(e.b, arith::CmpFPredicate::OLE, all,
                                 e.constF32(kFactorBound));
  }

  /// Keys [k0, k0 + key tile) of the chunk's steps: q (scaled) and k, gated by
  /// exp(B) and exp(-B) (factored) or raw with B beside them (exact); zero
  /// past the chunk and head_dim_k.
  void stageKeyTiles(Value qTile, Value kTile, Value cumTile, Value k0,
                     bool exact) {
    forEachShared(e, l.kThreads, thread, l.chunk * l.keyTile, [&](Value i) {
      storeKeyElement(i, loadKeyElement(i, k0, exact), qTile, kTile, cumTile,
                      exact);
    });
  }

  /// Element `i` of a key tile from k0: q (scaled) and k, gated by exp(B)
  /// and exp(-B) (factored) or raw with B (exact); zero past the chunk and
  /// head_dim_k.
  SmallVector<Value> loadKeyElement(Value i, Value k0, bool exact) {
    int64_t kt = l.keyTile;
    Value t = arith::DivUIOp::create(e.b, i, e.index(kt));
    Value k = e.add(k0, arith::RemUIOp::create(e.b, i, e.index(kt)));
    Value valid = arith::AndIOp::create(
        e.b, cmp(arith::CmpIPredicate::slt, t, len),
        cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK)));
    Value kc = e.min(k, e.index(p.dimK - 1));
    Value row = chunkRow(t);
    Value q =
        e.fmul(load(buf.query, {batchIdx, row, head, kc}), e.constF32(p.scale));
    Value key = load(buf.key, {batchIdx, row, kvHead, kc});
    Value zeroF = e.constF32(0.0f);
    SmallVector<Value> out;
    Value b;
    if (mode != GateMode::None) {
      b = cumGate(t, kc);
      if (!exact) {
        q = e.fmul(q, e.exp(b));
        key = e.fmul(key, e.exp(arith::NegFOp::create(e.b, b)));
      }
    }
    out.push_back(e.select(valid, q, zeroF));
    out.push_back(e.select(valid, key, zeroF));
    if (exact && b)
      out.push_back(b);
    return out;
  }

  void storeKeyElement(Value i, ArrayRef<Value> vals, Value qTile, Value kTile,
                       Value cumTile, bool exact) {
    memref::StoreOp::create(e.b, vals[0], qTile, i);
    memref::StoreOp::create(e.b, vals[1], kTile, i);
    if (vals.size() > 2)
      memref::StoreOp::create(e.b, vals[2], cumTile, i);
  }

  /// Element `i` of the state rows from k0 (stageStateRows).
  Value loadStateElement(Value i, Value k0) {
    Value k = e.add(k0, arith::DivUIOp::create(e.b, i, e.index(l.blockV)));
    Value col = e.add(v0, arith::RemUIOp::create(e.b, i, e.index(l.blockV)));
    Value valid = arith::AndIOp::create(
        e.b, cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK)),
        cmp(arith::CmpIPredicate::slt, col, e.index(p.dimV)));
    Value s = memref::LoadOp::create(
        e.b, tmp.states,
        ValueRange{slot(), head, e.min(k, e.index(p.dimK - 1)),
                   e.min(col, e.index(p.dimV - 1))});
    return e.select(valid, s, e.constF32(0.0f));
  }

  /// Whether a key tile and its state rows split into whole rounds of the
  /// workgroup's threads (then the next tile's loads can be held in
  /// registers while the current one is computed).
  bool canPrefetch() const {
    return (l.chunk * l.keyTile) % l.kThreads == 0 &&
           (l.keyTile * l.blockV) % l.kThreads == 0;
  }

  /// This thread's share of the key tile and state rows from k0, in
  /// registers.
  SmallVector<Value> loadTileRegisters(Value k0, bool exact) {
    SmallVector<Value> regs;
    for (int64_t r = 0; r < l.chunk * l.keyTile / l.kThreads; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      llvm::append_range(regs, loadKeyElement(i, k0, exact));
    }
    for (int64_t r = 0; r < l.keyTile * l.blockV / l.kThreads; ++r)
      regs.push_back(
          loadStateElement(e.add(thread, e.index(r * l.kThreads)), k0));
    return regs;
  }

  void storeTileRegisters(ValueRange regs, Value qTile, Value kTile,
                          Value cumTile, Value rowTile, bool exact) {
    int64_t perKey = exact && mode != GateMode::None ? 3 : 2;
    int64_t keyRounds = l.chunk * l.keyTile / l.kThreads;
    for (int64_t r = 0; r < keyRounds; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      SmallVector<Value> vals(regs.begin() + r * perKey,
                              regs.begin() + (r + 1) * perKey);
      storeKeyElement(i, vals, qTile, kTile, cumTile, exact);
    }
    for (int64_t r = 0; r < l.keyTile * l.blockV / l.kThreads; ++r)
      memref::StoreOp::create(e.b, regs[keyRounds * perKey + r], rowTile,
                              e.add(thread, e.index(r * l.kThreads)));
  }

  Emitter e;
  const GlaProblem &p;
  const VulkanGlaChunkLayout &l;
  const GlaBuffers &buf;
  const Temporaries &tmp;
  GateMode mode;
  Value zero, one, thread, head, kvHead, rowThread, colThread;
  Value seqId, batchIdx, start, end, seqLen, chunkIndex, c0, len, gamma, v0;
};

/// `buffers` (the main dispatch's) as the arguments `args` of another
/// dispatch with the same leading arguments.
GlaBuffers remap(const GlaBuffers &buffers, ValueRange args) {
  auto at = [&](Value v) -> Value {
    return v ? args[DispatchRewriter::argumentIndex(v)] : Value();
  };
  GlaBuffers out;
  out.query = at(buffers.query);
  out.key = at(buffers.key);
  out.value = at(buffers.value);
  out.g = at(buffers.g);
  out.gk = at(buffers.gk);
  out.gv = at(buffers.gv);
  out.gGamma = at(buffers.gGamma);
  out.initialState = at(buffers.initialState);
  out.cuSeqlens = at(buffers.cuSeqlens);
  out.output = at(buffers.output);
  out.finalState = at(buffers.finalState);
  return out;
}

Temporaries remapTemporaries(ArrayRef<Value> temps) {
  Temporaries t;
  t.states = temps[0];
  if (temps.size() > 1) {
    t.decays = temps[1];
    t.cumGates = temps[2];
  }
  return t;
}

} // namespace

std::optional<VulkanGlaChunkLayout>
VulkanGlaChunkLayout::compute(const GlaProblem &p, int64_t chunk,
                              int64_t blockV, const TargetInfo &target,
                              llvm::raw_ostream &reason) {
  if (p.hasGv) {
    reason << "the chunk-parallel kernel has no value gate ('gv'); use '"
           << GlaConfig::kChunkParallel << "' = 0";
    return std::nullopt;
  }
  if (chunk < kStepTile || chunk > 128 || chunk % kStepTile != 0) {
    reason << "'" << GlaConfig::kChunkSize << "' (" << chunk
           << ") must be a multiple of " << kStepTile << " in [16, 128] with '"
           << GlaConfig::kChunkParallel << "' = 1";
    return std::nullopt;
  }
  if (blockV < kGrid || blockV % kGrid != 0) {
    reason << "'" << GlaConfig::kBlockV << "' (" << blockV
           << ") must be a positive multiple of " << kGrid << " with '"
           << GlaConfig::kChunkParallel << "' = 1";
    return std::nullopt;
  }
  VulkanGlaChunkLayout l;
  l.chunk = chunk;
  l.blockV = blockV;
  l.subgroupSize = std::max<unsigned>(1, target.subgroupSize);
  l.kPer = ceilDiv(std::max<int64_t>(1, p.dimK), kGrid);
  l.vPer = blockV / kGrid;
  l.cPer = chunk / kGrid;
  if (p.dimK > kThreads) {
    reason << "head_dim_k (" << p.dimK << ") exceeds the " << kThreads
           << " threads of the chunk-parallel kernel";
    return std::nullopt;
  }
  for (auto [what, n] :
       {std::pair<StringRef, int64_t>{"state", l.kPer * l.vPer},
        {"score", l.cPer * l.cPer},
        {"output", l.cPer * l.vPer}})
    if (n > kMaxRegisters) {
      reason << "the chunk-parallel kernel would keep " << n << " " << what
             << " entries per thread (at most " << kMaxRegisters
             << "): smaller '" << GlaConfig::kChunkSize << "' or '"
             << GlaConfig::kBlockV << "'";
      return std::nullopt;
    }
  if (kThreads > target.maxWorkgroupInvocations ||
      kThreads % l.subgroupSize != 0) {
    reason << "the chunk-parallel kernel runs " << kThreads
           << " threads per workgroup in whole subgroups; the device allows "
           << target.maxWorkgroupInvocations << " in subgroups of "
           << l.subgroupSize;
    return std::nullopt;
  }
  if (!target.hasVulkanFeature("subgroup_shuffle")) {
    reason << "the chunk-parallel kernel reduces the chunk decay with "
              "subgroup shuffles, which the target lacks ('subgroup_shuffle')";
    return std::nullopt;
  }
  int64_t slots = numSlots(p, l) + (p.packed ? 1 : 0);
  if (slots > 65535) {
    reason << "the chunk-parallel kernel launches " << slots
           << " chunk workgroups along x, more than 65535";
    return std::nullopt;
  }
  bool gated = p.gated();
  bool perStep = p.hasG || p.hasGk;
  l.updateSharedBytes = 4 * (kStepTile * l.kPad() + kStepTile * blockV);
  // Key tiles of 16 where shared memory allows (half the barriers of 8).
  auto outputBytes = [&](int64_t keyTile) {
    return 4 * (chunk * chunk + (gated ? 3 : 2) * chunk * keyTile +
                std::max(kStepTile, keyTile) * blockV +
                (perStep ? kThreads / l.subgroupSize : 0));
  };
  l.keyTile = outputBytes(16) <= target.sharedMemoryBytes ? 16 : 8;
  l.outputSharedBytes = outputBytes(l.keyTile);
  int64_t shared = std::max(l.updateSharedBytes, l.outputSharedBytes);
  if (shared > target.sharedMemoryBytes) {
    reason << "the chunk-parallel kernel stages " << shared
           << " bytes of shared memory, the device has "
           << target.sharedMemoryBytes;
    return std::nullopt;
  }
  return l;
}

LogicalResult mlir::ejk::tileVulkanGlaChunkParallel(
    Operation *op, const GlaProblem &p, const VulkanGlaChunkLayout &l,
    const GlaBuffers &buf, DispatchRewriter &rewriter) {
  SmallVector<MemRefType> tempTypes =
      temporaryTypes(p, l, rewriter.dispatch().getContext());
  FailureOr<SmallVector<Value>> temps = rewriter.appendArguments(tempTypes);
  if (failed(temps))
    return failure();
  Temporaries mainTemps = remapTemporaries(*temps);
  SmallVector<Type> argTypes(rewriter.dispatch().getArgumentTypes());
  int64_t vBlocks = ceilDiv(p.dimV, l.blockV);
  int64_t slots = numSlots(p, l);

  auto build = [&](function_ref<void(ChunkBuilder &)> body) {
    return [&, body](OpBuilder &b, Location loc, ValueRange args) {
      GlaBuffers mapped = remap(buf, args);
      SmallVector<Value> tempArgs(args.take_back(tempTypes.size()));
      Temporaries t = remapTemporaries(tempArgs);
      ChunkBuilder builder(b, loc, p, l, mapped, t);
      body(builder);
    };
  };
  func::FuncOp update =
      rewriter.addDispatch("update", argTypes, {slots, p.heads, vBlocks},
                           build([](ChunkBuilder &cb) { cb.buildUpdate(); }));
  DispatchRewriter::setVulkanLaunch(update, l.kThreads, l.updateSharedBytes);
  DispatchRewriter::setWork(
      update, p.steps() * p.heads * 2 * p.dimK * p.dimV,
      DispatchRewriter::bytesOf({buf.key, buf.value, buf.g, buf.gk}) +
          DispatchRewriter::bytesOf(mainTemps.states));
  func::FuncOp scan =
      rewriter.addDispatch("scan", argTypes,
                           {ceilDiv(p.dimK * p.dimV, l.kThreads), p.heads,
                            std::max<int64_t>(1, p.numSeqs)},
                           build([](ChunkBuilder &cb) { cb.buildScan(); }));
  DispatchRewriter::setVulkanLaunch(scan, l.kThreads, 0);
  DispatchRewriter::setWork(
      scan, 0,
      2 * DispatchRewriter::bytesOf(mainTemps.states) +
          DispatchRewriter::bytesOf({buf.initialState, buf.finalState}));

  rewriter.rewriteCallers(
      tempTypes,
      [&](OpBuilder &b, Location loc, DispatchOp call, ValueRange callTemps) {
        SmallVector<Value> bindings(call.getBuffers());
        bindings.append(callTemps.begin(), callTemps.end());
        DispatchOp::create(b, loc, update.getSymName(), bindings);
        DispatchOp::create(b, loc, scan.getSymName(), bindings);
        DispatchOp::create(b, loc, call.getCallee(), bindings);
      });

  Location loc = op->getLoc();
  OpBuilder b = rewriter.replaceBody();
  ChunkBuilder(b, loc, p, l, buf, mainTemps).buildOutputs();
  rewriter.finish(b);
  func::FuncOp outputs = rewriter.dispatch();
  DispatchRewriter::setGrid(outputs,
                            {slots + (p.packed ? 1 : 0), p.heads, vBlocks});
  DispatchRewriter::setVulkanLaunch(outputs, l.kThreads, l.outputSharedBytes);
  DispatchRewriter::setWork(
      outputs, glaFlops(p, l.chunk) - p.steps() * p.heads * 2 * p.dimK * p.dimV,
      DispatchRewriter::bytesOf({buf.query, buf.key, buf.value, buf.output}) +
          DispatchRewriter::bytesOf(mainTemps.states));
  return success();
}
