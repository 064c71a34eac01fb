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
#include "StateSpace/Vulkan/Kernels.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

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
        splitBuf(split), statesOnly(statesOnly) {}

  void build() {
    Value dBlock = WorkgroupIdOp::create(e.b, 0);
    batch = WorkgroupIdOp::create(e.b, 1);
    Value split =
        l.isSplit() ? WorkgroupIdOp::create(e.b, 2).getResult() : e.index(0);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    zero = e.index(0);
    one = e.index(1);
    Value tn =
        arith::RemUIOp::create(e.b, thread, e.index(l.threadsPerChannel));
    Value local =
        arith::DivUIOp::create(e.b, thread, e.index(l.threadsPerChannel));
    d0 = e.mul(dBlock, e.index(l.blockD));
    perGroup = e.index(p.channelsPerGroup());
    firstGroup = e.div(d0, perGroup);
    myLocal = local;
    myChannel = clampChannel(e.add(d0, local));
    Value myGroup = e.div(myChannel, perGroup);
    myGroupSlot = e.mul(e.sub(myGroup, firstGroup), e.index(p.state));
    isLane0 = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, tn, zero);

    int64_t blockElems = l.chunkL * l.blockD;
    int64_t bcElems = l.chunkL * l.groupSpan * p.state;
    dtS = allocWorkgroup(e, blockElems);
    uS = allocWorkgroup(e, blockElems);
    if (!statesOnly)
      yS = allocWorkgroup(e, blockElems);
    bS = allocWorkgroup(e, bcElems);
    if (!statesOnly)
      cS = allocWorkgroup(e, bcElems);

    // This thread's states: A and the initial state in registers.
    SmallVector<Value> h;
    for (int64_t k = 0; k < l.statesPerThread; ++k) {
      Value n = e.add(tn, e.index(k * l.threadsPerChannel));
      stateValid.push_back(
          k * l.threadsPerChannel + l.threadsPerChannel <= p.state
              ? Value()
              : arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, n,
                                      e.index(p.state)));
      states.push_back(e.min(n, e.index(p.state - 1)));
      // exp(dt * A) = exp2(dt * A * log2(e)): one multiply less per step.
      a.push_back(e.fmul(
          memref::LoadOp::create(e.b, buf.a, ValueRange{myChannel, states[k]}),
          e.constF32(1.4426950408889634f)));
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
    Value end = e.min(e.add(begin, e.index(l.splitL)), e.index(p.seq));
    // When every chunk is whole, its step loop has a constant trip count,
    // which the device compiler can unroll (independent steps' loads, exps
    // and shuffles then overlap).
    bool wholeChunks = p.seq % l.chunkL == 0 && l.splitL % l.chunkL == 0;
    h = e.forLoop(
        begin, end, e.index(l.chunkL), h, [&](Value c0, ValueRange hs) {
          Value len = wholeChunks ? e.index(l.chunkL)
                                  : e.min(e.index(l.chunkL), e.sub(end, c0));
          stage(c0);
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> next = scan(len, hs);
          gpu::BarrierOp::create(e.b);
          if (!statesOnly) {
            output(c0, len);
            gpu::BarrierOp::create(e.b);
          }
          return next;
        });
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
    Value owned =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                              e.add(d0, myLocal), e.index(p.channels));
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

  /// softplus(x) = x > 20 ? x : log1p(exp(x)), as the reference.
  Value softplus(Value x) {
    Value big = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, x,
                                      e.constF32(20.0f));
    return e.select(big, x, math::Log1pOp::create(e.b, e.exp(x)));
  }

  /// dt and u of the chunk's steps, then the B and C rows of the groups
  /// from `firstGroup` (rows past the sequence are copies of the last).
  void stage(Value c0) {
    forEachShared(e, l.threads, thread, l.chunkL * l.blockD, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(l.blockD));
      Value c = arith::RemUIOp::create(e.b, i, e.index(l.blockD));
      Value row = clampRow(e.add(c0, t));
      Value d = clampChannel(e.add(d0, c));
      Value dt = e.toF32(
          memref::LoadOp::create(e.b, buf.delta, ValueRange{batch, row, d}));
      if (buf.deltaBias)
        dt = e.fadd(dt, memref::LoadOp::create(e.b, buf.deltaBias, d));
      if (p.softplus)
        dt = softplus(dt);
      Value u = e.toF32(
          memref::LoadOp::create(e.b, buf.u, ValueRange{batch, row, d}));
      // Rows past the split or the sequence are staged, never scanned.
      memref::StoreOp::create(e.b, dt, dtS, i);
      memref::StoreOp::create(e.b, u, uS, i);
    });
    int64_t rowElems = l.groupSpan * p.state;
    forEachShared(e, l.threads, thread, l.chunkL * rowElems, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(rowElems));
      Value r = arith::RemUIOp::create(e.b, i, e.index(rowElems));
      Value slot = arith::DivUIOp::create(e.b, r, e.index(p.state));
      Value n = arith::RemUIOp::create(e.b, r, e.index(p.state));
      Value g = e.min(e.add(firstGroup, slot), e.index(p.groups - 1));
      Value row = clampRow(e.add(c0, t));
      for (auto [source, stage] : {std::pair(buf.b, bS), std::pair(buf.c, cS)})
        if (stage)
          memref::StoreOp::create(
              e.b,
              e.toF32(memref::LoadOp::create(e.b, source,
                                             ValueRange{batch, row, g, n})),
              stage, i);
    });
  }

  /// Sums `value` over the TN lanes of a channel (every lane gets the sum).
  Value reduceChannel(Value value) {
    for (int64_t offset = l.threadsPerChannel / 2; offset >= 1; offset /= 2) {
      auto shuffle = gpu::ShuffleOp::create(e.b, value, e.constI32(offset),
                                            e.constI32(l.subgroupSize),
                                            gpu::ShuffleMode::XOR);
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
      Value rowBase =
          e.add(e.mul(t, e.index(l.groupSpan * p.state)), myGroupSlot);
      Value partial = e.constF32(0.0f);
      SmallVector<Value> next;
      for (int64_t k = 0; k < l.statesPerThread; ++k) {
        Value idx = e.add(rowBase, states[k]);
        Value bv = memref::LoadOp::create(e.b, bS, idx);
        Value decay = exp2(e.fmul(dt, a[k]));
        Value hn = math::FmaOp::create(e.b, decay, h[k], e.fmul(dtu, bv));
        next.push_back(hn);
        if (statesOnly)
          continue;
        Value cv = memref::LoadOp::create(e.b, cS, idx);
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
  /// channels inside the problem.
  void output(Value c0, Value len) {
    forEachShared(e, l.threads, thread, l.chunkL * l.blockD, [&](Value i) {
      Value t = arith::DivUIOp::create(e.b, i, e.index(l.blockD));
      Value c = arith::RemUIOp::create(e.b, i, e.index(l.blockD));
      Value d = e.add(d0, c);
      Value inside = arith::AndIOp::create(
          e.b, arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, t, len),
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, d,
                                e.index(p.channels)));
      emitIf(e, inside, [&] {
        Value row = e.add(c0, t);
        Value y = memref::LoadOp::create(e.b, yS, i);
        if (buf.d)
          y = math::FmaOp::create(e.b, memref::LoadOp::create(e.b, buf.d, d),
                                  memref::LoadOp::create(e.b, uS, i), y);
        if (buf.z) {
          Value z = e.toF32(
              memref::LoadOp::create(e.b, buf.z, ValueRange{batch, row, d}));
          Value sigmoid = e.fdiv(
              e.constF32(1.0f),
              e.fadd(e.constF32(1.0f), e.exp(arith::NegFOp::create(e.b, z))));
          y = e.fmul(y, e.fmul(z, sigmoid));
        }
        Type outType = cast<MemRefType>(buf.y.getType()).getElementType();
        memref::StoreOp::create(e.b, e.fromF32(y, outType), buf.y,
                                ValueRange{batch, row, d});
      });
    });
  }

  void storeFinalState(ArrayRef<Value> h) {
    Value owned =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                              e.add(d0, myLocal), e.index(p.channels));
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
  Value batch, thread, zero, one, d0, perGroup, firstGroup;
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
