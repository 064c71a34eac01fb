//===- SelectiveScanKernel.cpp - Mamba-1 selective scan for Vulkan --------===//
//
// One workgroup = (block of `block_d` channels, batch row); thread t owns
// channel t / TN of the block and the states t % TN, t % TN + TN, ... of
// it (StateSpace/Vulkan/Layout.h), the TN lanes of a channel neighbours in one
// subgroup. Per chunk of `chunk_l` steps:
//
//   stage    (whole workgroup, coalesced along channels)
//            dt = softplus(delta + bias) and u  [chunk_l, block_d]
//            the B and C rows of the groups the block touches
//   barrier
//   scan     each thread, over the chunk's steps, its states in registers:
//              h = exp(dt * A) * h + dt * u * B_t      one exp per element
//              y_t = sum over the TN lanes of C_t * h  (shuffle xor)
//            lane 0 of the channel writes y_t to shared memory
//   barrier
//   output   (whole workgroup) y = (y + D u) * silu(z), stored
//   barrier
//
// and final_state = h at the end. Nothing of size [B, L, D, N] exists.
//
// The global loads of a chunk (delta, u, B, C, z) are issued into
// registers before the scan of the chunk before it, and stored to shared
// memory (after bias and softplus) at the start of their own chunk, so
// their latency overlaps a chunk's scan. With f32 B and C and 4 states a
// thread that fill d_state exactly (4 lanes x 4 states for d_state 16), a
// thread owns 4 neighbouring states instead of every TN-th, and B and C
// move as 16-byte words: loaded as words, staged as words, and read as one
// word each per step (`vec`).
//
// Split (chunked) scan: with `split_l` a workgroup owns one split of
// `split_l` steps (grid z). A first dispatch runs the same loop without C,
// y and the output over every split but the last, from h = 0, and stores
// the split's end state and its sum of dt (the decay over the split is
// exp(A * sum dt)). The scan's workgroup of split s then starts from
//   h = initial_state;  for k < s: h = exp(A * dtsum_k) * h + hend_k
// and walks its own steps; the last split stores final_state.
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Scores.h"
#include "Common/VulkanMatrices.h"
#include "StateSpace/Vulkan/Kernels.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

class VulkanSelectiveScanBuilder {
public:
  VulkanSelectiveScanBuilder(OpBuilder &builder, Location loc,
                             const VulkanSelectiveScanPlan &plan,
                             const SelectiveScanBuffers &buffers,
                             const SelectiveScanSplitBuffers &split,
                             bool statesOnly)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers),
        splitBuf(split), statesOnly(statesOnly) {
    auto bType = cast<MemRefType>(buffers.b.getType());
    bool exact = l.statesPerThread * l.threadsPerChannel == p.state;
    vec = exact && l.statesPerThread == kWord && bType.getElementType().isF32()
              ? kWord
              : 1;
  }

  void build() {
    Value dBlock = WorkgroupIdOp::create(e.b, 0);
    batch = WorkgroupIdOp::create(e.b, 1);
    Value split =
        l.isSplit() ? WorkgroupIdOp::create(e.b, 2).getResult() : e.index(0);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    zero = e.index(0);
    one = e.index(1);
    tn = arith::RemUIOp::create(e.b, thread, e.index(l.threadsPerChannel));
    Value local =
        arith::DivUIOp::create(e.b, thread, e.index(l.threadsPerChannel));
    d0 = e.mul(dBlock, e.index(l.blockD));
    perGroup = e.index(p.channelsPerGroup());
    firstGroup = e.div(d0, perGroup);
    myLocal = local;
    myChannel = clampChannel(e.add(d0, local));
    Value myGroup = e.div(myChannel, perGroup);
    // In units of the B/C stages' elements (words with `vec`).
    Value groupSlots = e.index(p.state / vec);
    myGroupSlot = e.mul(e.sub(myGroup, firstGroup), groupSlots);
    isLane0 = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, tn, zero);

    int64_t blockElems = l.chunkL * l.blockD;
    int64_t bcElems = l.chunkL * l.groupSpan * rowWidth();
    Type bcType = vec > 1 ? Type(wordType(e)) : e.f32;
    dtS = allocWorkgroup(e, blockElems);
    uS = allocWorkgroup(e, blockElems);
    if (!statesOnly)
      yS = allocWorkgroup(e, blockElems);
    bS = allocWorkgroup(e, bcElems, bcType);
    if (vec > 1)
      std::tie(bWords, cWords) = selectiveScanBCWords(e, buf, vec, statesOnly);
    if (!statesOnly)
      cS = allocWorkgroup(e, bcElems, bcType);

    // This thread's states: A and the initial state in registers.
    SmallVector<Value> h;
    for (int64_t k = 0; k < l.statesPerThread; ++k) {
      if (vec > 1) {
        // Neighbouring states, all inside d_state.
        Value first = e.mul(tn, e.index(vec));
        states.push_back(e.add(first, e.index(k)));
        stateValid.push_back(Value());
      } else {
        Value n = e.add(tn, e.index(k * l.threadsPerChannel));
        Value last = e.index(p.state);
        stateValid.push_back(
            k * l.threadsPerChannel + l.threadsPerChannel <= p.state
                ? Value()
                : arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, n,
                                        last));
        states.push_back(e.min(n, e.index(p.state - 1)));
      }
      // exp(dt * A) = exp2(dt * A * log2(e)): one multiply less per step.
      Value log2e = e.constF32(1.4426950408889634f);
      a.push_back(e.fmul(
          memref::LoadOp::create(e.b, buf.a, ValueRange{myChannel, states[k]}),
          log2e));
      Value h0 =
          buf.initialState && !statesOnly
              ? memref::LoadOp::create(e.b, buf.initialState,
                                       ValueRange{batch, myChannel, states[k]})
                    .getResult()
              : e.constF32(0.0f);
      h.push_back(h0);
    }
    if (l.isSplit() && !statesOnly)
      h = carryIn(split, h);
    // The split's end-state pass also sums its step sizes (last).
    if (statesOnly)
      h.push_back(e.constF32(0.0f));

    Value begin = e.mul(split, e.index(l.splitL));
    Value seq = e.index(p.seq);
    Value end = e.min(e.add(begin, e.index(l.splitL)), seq);
    // When every chunk is whole, its step loop has a constant trip count,
    // which the device compiler can unroll (independent steps' loads, exps
    // and shuffles then overlap).
    bool wholeChunks = p.seq % l.chunkL == 0 && l.splitL % l.chunkL == 0;
    // The start of the split's last chunk: the fetch ahead of the last
    // chunk reads it again (in bounds, never staged).
    Value span = e.sub(e.sub(end, begin), one);
    Value chunkL = e.index(l.chunkL);
    Value lastChunk = e.mul(e.div(span, e.index(l.chunkL)), chunkL);
    Value lastStart = e.add(begin, lastChunk);
    int64_t stateCount = h.size();
    SmallVector<Value> inits(h);
    SmallVector<Value> first = fetchChunk(begin);
    inits.append(first);
    SmallVector<Value> carried = e.forLoop(
        begin, end, e.index(l.chunkL), inits, [&](Value c0, ValueRange args) {
          Value len;
          if (wholeChunks) {
            len = e.index(l.chunkL);
          } else {
            Value rowsLeft = e.sub(end, c0);
            len = e.min(e.index(l.chunkL), rowsLeft);
          }
          ValueRange fetched = args.drop_front(stateCount);
          stage(fetched);
          gpu::BarrierOp::create(e.b);
          Value nextStart = e.min(e.add(c0, e.index(l.chunkL)), lastStart);
          SmallVector<Value> ahead = fetchChunk(nextStart);
          SmallVector<Value> next = scan(len, args.take_front(stateCount));
          gpu::BarrierOp::create(e.b);
          if (!statesOnly) {
            output(c0, len, fetched.take_back(zCount()));
            gpu::BarrierOp::create(e.b);
          }
          next.append(ahead);
          return next;
        });
    h.assign(carried.begin(), carried.begin() + stateCount);
    if (statesOnly) {
      storeSplitEnd(split, h);
      return;
    }
    if (!buf.finalState)
      return;
    if (!l.isSplit()) {
      storeFinalState(h);
      return;
    }
    Value last = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, split,
                                       e.index(l.numSplits - 1));
    emitIf(e, last, [&] { storeFinalState(h); });
  }

private:
  /// The state at the start of split `split`: the earlier splits' end
  /// states (from zero) carried in order, each decayed over its steps.
  SmallVector<Value> carryIn(Value split, ArrayRef<Value> h0) {
    return e.forLoop(zero, split, one, h0, [&](Value k, ValueRange h) {
      Value sum = memref::LoadOp::create(e.b, splitBuf.stepSums,
                                         ValueRange{batch, k, myChannel});
      SmallVector<Value> next;
      for (int64_t j = 0; j < l.statesPerThread; ++j) {
        Value end =
            memref::LoadOp::create(e.b, splitBuf.endStates,
                                   ValueRange{batch, k, myChannel, states[j]});
        next.push_back(
            math::FmaOp::create(e.b, exp2(e.fmul(sum, a[j])), h[j], end));
      }
      return next;
    });
  }

  /// The end-state pass's results: this thread's states and (lane 0) the
  /// split's step sum, for channels inside the problem.
  void storeSplitEnd(Value split, ArrayRef<Value> h) {
    Value channels = e.index(p.channels);
    Value owned = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                        e.add(d0, myLocal), channels);
    emitIf(e, owned, [&] {
      for (int64_t k = 0; k < l.statesPerThread; ++k) {
        auto store = [&] {
          memref::StoreOp::create(
              e.b, h[k], splitBuf.endStates,
              ValueRange{batch, split, myChannel, states[k]});
        };
        if (stateValid[k])
          emitIf(e, stateValid[k], store);
        else
          store();
      }
      emitIf(e, isLane0, [&] {
        memref::StoreOp::create(e.b, h.back(), splitBuf.stepSums,
                                ValueRange{batch, split, myChannel});
      });
    });
  }

  Value exp2(Value x) { return math::Exp2Op::create(e.b, x); }
  Value clampChannel(Value d) { return e.min(d, e.index(p.channels - 1)); }
  Value clampRow(Value row) { return e.min(row, e.index(p.seq - 1)); }

  /// Elements of a B/C stage row of one step (words with `vec`).
  int64_t rowWidth() const { return l.groupSpan * p.state / vec; }
  RoundElements round() { return RoundElements{e, l.threads, thread}; }
  int64_t blockCount() { return round().count(l.chunkL * l.blockD); }
  int64_t rowCount() { return round().count(l.chunkL * rowWidth()); }
  /// z values a thread fetches per chunk (none without z or in the
  /// end-state pass).
  int64_t zCount() { return buf.z && !statesOnly ? blockCount() : 0; }

  /// The global loads of the chunk from step c0, in registers: delta, u,
  /// then the B (and C) rows of the groups from `firstGroup`, then z (rows
  /// past the sequence read the last).
  SmallVector<Value> fetchChunk(Value c0) {
    auto blockValue = [&](Value source) {
      return [&, source](Value t, Value c) -> Value {
        Value row = clampRow(e.add(c0, t));
        Value d = clampChannel(e.add(d0, c));
        return memref::LoadOp::create(e.b, source, ValueRange{batch, row, d});
      };
    };
    SmallVector<Value> out =
        round().fetch(l.chunkL, l.blockD, blockValue(buf.delta));
    out.append(round().fetch(l.chunkL, l.blockD, blockValue(buf.u)));
    int64_t rowElems = l.chunkL * rowWidth();
    // B, then C (not in the end-state pass).
    for (int64_t which = 0; which < (statesOnly ? 1 : 2); ++which) {
      Value source = which == 0 ? buf.b : buf.c;
      Value words = which == 0 ? bWords : cWords;
      for (int64_t k = 0; k < rowCount(); ++k) {
        bool clamp = (k + 1) * l.threads > rowElems;
        auto [t, r] = round().element(k, l.chunkL, rowWidth(), clamp);
        Value first = e.mul(r, e.index(vec));
        Value slot = arith::DivUIOp::create(e.b, first, e.index(p.state));
        Value n = arith::RemUIOp::create(e.b, first, e.index(p.state));
        Value lastGroup = e.index(p.groups - 1);
        Value g = e.min(e.add(firstGroup, slot), lastGroup);
        Value row = clampRow(e.add(c0, t));
        if (vec == 1) {
          out.push_back(memref::LoadOp::create(e.b, source,
                                               ValueRange{batch, row, g, n}));
          continue;
        }
        // The word of states n .. n + 3 of [batch, row, g] (d_state is a
        // multiple of 4, so words never straddle rows).
        Value flat = e.add(e.mul(batch, e.index(p.seq)), row);
        flat = e.add(e.mul(flat, e.index(p.groups)), g);
        flat = e.add(e.mul(flat, e.index(p.state)), n);
        Value word = arith::DivUIOp::create(e.b, flat, e.index(vec));
        out.push_back(memref::LoadOp::create(e.b, words, word));
      }
    }
    if (zCount())
      out.append(round().fetch(l.chunkL, l.blockD, blockValue(buf.z)));
    return out;
  }

  /// Stores a chunk's fetched values to shared memory: dt = softplus(delta
  /// + bias) and u (rows past the split or the sequence are staged, never
  /// scanned), B and C (f32, or 16-byte words of f32 with `vec`).
  void stage(ValueRange fetched) {
    int64_t n = blockCount();
    ValueRange delta = fetched.take_front(n);
    ValueRange u = fetched.slice(n, n);
    round().forEach(
        l.chunkL, l.blockD,
        [&](int64_t k, Value, Value c) {
          Value dt = e.toF32(delta[k]);
          if (buf.deltaBias) {
            Value d = clampChannel(e.add(d0, c));
            Value bias = memref::LoadOp::create(e.b, buf.deltaBias, d);
            dt = e.fadd(dt, bias);
          }
          return p.softplus ? scanSoftplus(e, dt) : dt;
        },
        [&](Value t, Value c, Value dt) {
          Value i = e.add(e.mul(t, e.index(l.blockD)), c);
          memref::StoreOp::create(e.b, dt, dtS, i);
        });
    round().forEach(
        l.chunkL, l.blockD,
        [&](int64_t k, Value, Value) { return e.toF32(u[k]); },
        [&](Value t, Value c, Value value) {
          Value i = e.add(e.mul(t, e.index(l.blockD)), c);
          memref::StoreOp::create(e.b, value, uS, i);
        });
    int64_t offset = 2 * n;
    for (Value stageBuf : {bS, cS}) {
      if (!stageBuf)
        continue;
      ValueRange values = fetched.slice(offset, rowCount());
      offset += rowCount();
      round().forEach(
          l.chunkL, rowWidth(),
          [&](int64_t k, Value, Value) -> Value {
            return vec > 1 ? values[k] : e.toF32(values[k]);
          },
          [&](Value t, Value r, Value value) {
            Value i = e.add(e.mul(t, e.index(rowWidth())), r);
            memref::StoreOp::create(e.b, value, stageBuf, i);
          });
    }
  }

  /// Sums `value` over the TN lanes of a channel (every lane gets the sum).
  Value reduceChannel(Value value) {
    for (int64_t offset = l.threadsPerChannel / 2; offset >= 1; offset /= 2) {
      Value width = e.constI32(l.subgroupSize);
      auto shuffle = gpu::ShuffleOp::create(e.b, value, e.constI32(offset),
                                            width, gpu::ShuffleMode::XOR);
      value = e.fadd(value, shuffle.getShuffleResult());
    }
    return value;
  }

  /// The recurrence over the chunk's `len` steps (the same for every
  /// thread, so that the shuffles see whole subgroups). The end-state pass
  /// carries the step sum after the states and computes no output.
  SmallVector<Value> scan(Value len, ValueRange hs) {
    return e.forLoop(zero, len, one, hs, [&](Value t, ValueRange h) {
      Value at = e.add(e.mul(t, e.index(l.blockD)), myLocal);
      Value dt = memref::LoadOp::create(e.b, dtS, at);
      Value dtu = e.fmul(dt, memref::LoadOp::create(e.b, uS, at));
      Value rowBase = e.add(e.mul(t, e.index(rowWidth())), myGroupSlot);
      // One word of B (and C) per step when the states are neighbours.
      Value wordIdx = vec > 1 ? e.add(rowBase, tn) : Value();
      Value bWord = vec > 1
                        ? memref::LoadOp::create(e.b, bS, wordIdx).getResult()
                        : Value();
      Value cWord = vec > 1 && !statesOnly
                        ? memref::LoadOp::create(e.b, cS, wordIdx).getResult()
                        : Value();
      auto stateOf = [&](Value stageBuf, Value word, int64_t k) -> Value {
        if (vec > 1) {
          Value bits = vector::ExtractOp::create(e.b, word, k);
          return arith::BitcastOp::create(e.b, e.f32, bits);
        }
        return memref::LoadOp::create(e.b, stageBuf, e.add(rowBase, states[k]));
      };
      Value partial = e.constF32(0.0f);
      SmallVector<Value> next;
      for (int64_t k = 0; k < l.statesPerThread; ++k) {
        Value bv = stateOf(bS, bWord, k);
        Value decay = exp2(e.fmul(dt, a[k]));
        Value input = e.fmul(dtu, bv);
        Value hn = math::FmaOp::create(e.b, decay, h[k], input);
        next.push_back(hn);
        if (statesOnly)
          continue;
        Value cv = stateOf(cS, cWord, k);
        Value term = e.fmul(cv, hn);
        if (stateValid[k])
          term = e.select(stateValid[k], term, e.constF32(0.0f));
        partial = e.fadd(partial, term);
      }
      if (statesOnly) {
        next.push_back(e.fadd(h.back(), dt));
        return next;
      }
      Value y = reduceChannel(partial);
      emitIf(e, isLane0, [&] { memref::StoreOp::create(e.b, y, yS, at); });
      return next;
    });
  }

  /// y = (y + D u) * silu(z) for the chunk's steps and the block's
  /// channels inside the problem (z fetched with the chunk).
  void output(Value c0, Value len, ValueRange zs) {
    round().forEach(
        l.chunkL, l.blockD,
        [&](int64_t k, Value, Value) { return zs.empty() ? Value() : zs[k]; },
        [&](Value t, Value c, Value zv) {
          Value d = e.add(d0, c);
          Value inStep =
              arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, t, len);
          Value inChannel = arith::CmpIOp::create(
              e.b, arith::CmpIPredicate::slt, d, e.index(p.channels));
          Value inside = arith::AndIOp::create(e.b, inStep, inChannel);
          emitIf(e, inside, [&] {
            Value row = e.add(c0, t);
            Value i = e.add(e.mul(t, e.index(l.blockD)), c);
            Value y = memref::LoadOp::create(e.b, yS, i);
            if (buf.d) {
              Value skip = memref::LoadOp::create(e.b, buf.d, d);
              Value u = memref::LoadOp::create(e.b, uS, i);
              y = math::FmaOp::create(e.b, skip, u, y);
            }
            if (zv)
              y = siluGate(e, y, zv);
            Type outType = cast<MemRefType>(buf.y.getType()).getElementType();
            memref::StoreOp::create(e.b, e.fromF32(y, outType), buf.y,
                                    ValueRange{batch, row, d});
          });
        });
  }

  void storeFinalState(ArrayRef<Value> h) {
    Value channels = e.index(p.channels);
    Value owned = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                        e.add(d0, myLocal), channels);
    emitIf(e, owned, [&] {
      for (int64_t k = 0; k < l.statesPerThread; ++k) {
        auto store = [&] {
          memref::StoreOp::create(e.b, h[k], buf.finalState,
                                  ValueRange{batch, myChannel, states[k]});
        };
        if (stateValid[k])
          emitIf(e, stateValid[k], store);
        else
          store();
      }
    });
  }

  Emitter e;
  const VulkanSelectiveScanPlan &p;
  const VulkanScanLayout &l;
  const SelectiveScanBuffers &buf;
  const SelectiveScanSplitBuffers &splitBuf;
  /// The end-state pass of a split scan (no C, y or output).
  bool statesOnly;
  /// States per 16-byte word of B and C when a thread's states are one
  /// word of them, else 1 (scalar B and C, states TN apart).
  int64_t vec = 1;
  static constexpr int64_t kWord = 4;
  Value bWords, cWords;
  Value batch, thread, tn, zero, one, d0, perGroup, firstGroup;
  Value myLocal, myChannel, myGroupSlot, isLane0;
  Value dtS, uS, yS, bS, cS;
  /// Per state slot of this thread: its index (clamped), whether it is a
  /// real state (null when always), A[d, n] * log2(e).
  SmallVector<Value> states, stateValid, a;
};

} // namespace

void mlir::ejk::buildVulkanSelectiveScanBody(
    OpBuilder &builder, Location loc, const VulkanSelectiveScanPlan &plan,
    const SelectiveScanBuffers &buffers,
    const SelectiveScanSplitBuffers &split) {
  VulkanSelectiveScanBuilder(builder, loc, plan, buffers, split,
                             /*statesOnly=*/false)
      .build();
}

void mlir::ejk::buildVulkanSelectiveScanStatesBody(
    OpBuilder &builder, Location loc, const VulkanSelectiveScanPlan &plan,
    const SelectiveScanBuffers &buffers,
    const SelectiveScanSplitBuffers &split) {
  VulkanSelectiveScanBuilder(builder, loc, plan, buffers, split,
                             /*statesOnly=*/true)
      .build();
}
