//===- SelectiveScanLanes.cpp - Mamba-1 scan with lanes along time --------===//
//
// The time-lanes selective scan (`time_lanes` = TL): one pass over the
// data, each element's exp computed once. One workgroup = (block of
// `block_d` channels, batch row); the TL neighbouring threads of a channel
// (one subgroup segment) split each chunk of `chunk_l` steps: lane j owns
// the K = chunk_l / TL consecutive steps j*K .. j*K + K - 1, and all d_state
// states of its channel. Per chunk:
//
//   stage    (whole workgroup, coalesced) dt = softplus(delta + bias) and u
//            per channel, B and C per state, transposed (steps fastest,
//            VulkanScanLayout::timeSlot), 0 past the sequence; from
//            registers loaded during the chunk before (the loop carries
//            them, as the state-lanes kernel does)
//   barrier
//   fetch    the next chunk's delta, u, B, C, z into registers
//   scan     each thread, for every state n (A2 = A[d, n] * log2 e):
//              a_i = exp2(dt_i * A2), b_i = dt_i u_i B_i      i < K
//              (P, H) = composition of its steps (h -> P h + H)
//              inclusive scan of (P, H) over the segment's lanes
//                (shuffle idx, log2 TL rounds), the lane before gives
//                h_in = P' carry + H' (carry for lane 0)
//              h = h_in; h = a_i h + b_i; y_i += C_i h         rescan
//              carry = h of the segment's last lane (the chunk's end)
//            y_i + D u_i replaces u_i in shared memory (each thread its
//            own elements)
//   barrier
//   output   (whole workgroup, coalesced) y *= silu(z), stored
//   barrier
//
// and final_state = carry. Steps past the sequence have dt = u = 0, so
// they leave the states alone (a = 1, b = 0) and every chunk is whole.
//
// With `state_lanes` = SL beside it, a channel has SL groups of TL time
// lanes (thread t: time lane t % TL, group (t / TL) % SL, channel
// t / (TL * SL)); group s owns the states s, s + SL, ... (d_state / SL of
// them), so SL times the threads each run 1/SL of the scan, and the
// groups' y_i are summed by shuffle xor (TL, 2 TL, ...) before the D skip
// and group 0's store. B and C rows are `bcStride` words apart (the
// groups' loads of a step hit distinct banks).
//
//===----------------------------------------------------------------------===//

#include "Attention/Vulkan/Scores.h"
#include "StateSpace/Vulkan/Kernels.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

class LanesScanBuilder {
public:
  LanesScanBuilder(OpBuilder &builder, Location loc,
                   const VulkanSelectiveScanPlan &plan,
                   const SelectiveScanBuffers &buffers)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers) {}

  void build() {
    Value dBlock = WorkgroupIdOp::create(e.b, 0);
    batch = WorkgroupIdOp::create(e.b, 1);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    lane = arith::RemUIOp::create(e.b, thread, e.index(l.timeLanes));
    Value local =
        arith::DivUIOp::create(e.b, thread, e.index(l.threadsPerChannel));
    if (l.timeStateLanes > 1) {
      Value laneGroup =
          arith::DivUIOp::create(e.b, thread, e.index(l.timeLanes));
      stateGroup =
          arith::RemUIOp::create(e.b, laneGroup, e.index(l.timeStateLanes));
    }
    Value subLane =
        arith::RemUIOp::create(e.b, thread, e.index(l.subgroupSize));
    subLaneI32 = e.toI32(subLane);
    laneI32 = e.toI32(lane);
    Value lastTimeLane = e.index(l.timeLanes - 1);
    Value segLast = e.add(e.sub(subLane, lane), lastTimeLane);
    segLastI32 = e.toI32(segLast);
    d0 = e.mul(dBlock, e.index(l.blockD));
    Value perGroup = e.index(p.channelsPerGroup());
    firstGroup = e.div(d0, perGroup);
    myChannel = clampChannel(e.add(d0, local));
    Value mySlot = e.sub(e.div(myChannel, perGroup), firstGroup);
    myRow = e.mul(local, e.index(l.timeStride));
    myBcRow = e.mul(mySlot, e.index(p.state * l.bcStride));
    if (stateGroup)
      myBcRow = e.add(myBcRow, e.mul(stateGroup, e.index(l.bcStride)));

    int64_t stride = l.timeStride;
    dtS = allocWorkgroup(e, l.blockD * stride);
    uyS = allocWorkgroup(e, l.blockD * stride * (l.doubleBuffer ? 2 : 1));
    bS = allocWorkgroup(e, l.groupSpan * p.state * l.bcStride);
    cS = allocWorkgroup(e, l.groupSpan * p.state * l.bcStride);

    SmallVector<Value> carry;
    for (int64_t n = 0; n < l.statesPerThread; ++n) {
      Value state = stateOf(n);
      Value log2e = e.constF32(1.4426950408889634f);
      a2.push_back(e.fmul(
          memref::LoadOp::create(e.b, buf.a, ValueRange{myChannel, state}),
          log2e));
      carry.push_back(
          buf.initialState
              ? memref::LoadOp::create(e.b, buf.initialState,
                                       ValueRange{batch, myChannel, state})
                    .getResult()
              : e.constF32(0.0f));
    }
    if (buf.d)
      skip = memref::LoadOp::create(e.b, buf.d, myChannel);

    // The chunk loop carries the states, then the next chunk's global
    // loads (issued before this chunk's scan, stored at the start of the
    // next iteration).
    int64_t states = carry.size();
    SmallVector<Value> inits(carry);
    inits.append(fetchChunk(e.index(0)));
    Value chunkL = e.index(l.chunkL);
    Value seq = e.index(p.seq);
    SmallVector<Value> results = e.forLoop(
        e.index(0), seq, chunkL, inits, [&](Value c0, ValueRange args) {
          ValueRange fetched = args.drop_front(states);
          if (l.doubleBuffer) {
            Value two = e.index(2);
            Value parity =
                arith::RemUIOp::create(e.b, e.div(c0, e.index(l.chunkL)), two);
            uyOff = e.mul(parity, e.index(l.blockD * l.timeStride));
          }
          stage(c0, fetched);
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> ahead = fetchChunk(e.add(c0, e.index(l.chunkL)));
          SmallVector<Value> next = scan(args.take_front(states));
          gpu::BarrierOp::create(e.b);
          output(c0, fetched.take_back(zCount()));
          // Double-buffered, the next chunk's stage writes the
          // other u / y buffer, and the scan read dt, B and C
          // before the barrier above.
          if (!l.doubleBuffer)
            gpu::BarrierOp::create(e.b);
          next.append(ahead);
          return next;
        });
    carry.assign(results.begin(), results.begin() + states);
    if (buf.finalState)
      storeFinalState(carry, local);
  }

private:
  /// The state this thread keeps in its n-th register.
  Value stateOf(int64_t n) {
    if (!stateGroup)
      return e.index(n);
    return e.add(stateGroup, e.index(n * l.timeStateLanes));
  }
  Value clampChannel(Value d) { return e.min(d, e.index(p.channels - 1)); }
  Value clampRow(Value row) { return e.min(row, e.index(p.seq - 1)); }
  RoundElements round() { return RoundElements{e, l.threads, thread}; }
  /// timeSlot of a dynamic step.
  Value slot(Value t) {
    return e.add(t, arith::DivUIOp::create(e.b, t, e.index(32)));
  }
  /// Position of step t of stage row r (rows `stride` words apart).
  Value stagePos(Value r, Value t, int64_t stride) {
    Value rowStart = e.mul(r, e.index(stride));
    return e.add(rowStart, slot(t));
  }
  Value stagePos(Value r, Value t) { return stagePos(r, t, l.timeStride); }
  Value inSequence(Value row) {
    return arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, row,
                                 e.index(p.seq));
  }

  /// Elements of a thread's share of a channel stage and a B/C stage.
  int64_t channelCount() { return round().count(l.chunkL * l.blockD); }
  int64_t stateCount() {
    return round().count(l.chunkL * l.groupSpan * p.state);
  }
  /// z values a thread fetches per chunk (none without z).
  int64_t zCount() { return buf.z ? channelCount() : 0; }

  /// The global loads of the chunk from step c0 (rows past the sequence
  /// read the last): delta, u, B, C, then z.
  SmallVector<Value> fetchChunk(Value c0) {
    auto perChannel = [&](Value source) {
      return round().fetch(l.chunkL, l.blockD, [&](Value t, Value c) {
        Value row = clampRow(e.add(c0, t));
        Value d = clampChannel(e.add(d0, c));
        return memref::LoadOp::create(e.b, source, ValueRange{batch, row, d})
            .getResult();
      });
    };
    auto perState = [&](Value source) {
      return round().fetch(
          l.chunkL, l.groupSpan * p.state, [&](Value t, Value r) {
            Value slotOfGroup = e.div(r, e.index(p.state));
            Value lastGroup = e.index(p.groups - 1);
            Value g = e.min(e.add(firstGroup, slotOfGroup), lastGroup);
            Value n = arith::RemUIOp::create(e.b, r, e.index(p.state));
            Value row = clampRow(e.add(c0, t));
            return memref::LoadOp::create(e.b, source,
                                          ValueRange{batch, row, g, n})
                .getResult();
          });
    };
    SmallVector<Value> out = perChannel(buf.delta);
    out.append(perChannel(buf.u));
    out.append(perState(buf.b));
    out.append(perState(buf.c));
    if (buf.z)
      out.append(perChannel(buf.z));
    return out;
  }

  /// Stages the chunk from step c0 from its fetched values: dt =
  /// softplus(delta + bias) and u per channel, B and C per state of the
  /// groups from `firstGroup`; dt and u zero past the sequence.
  void stage(Value c0, ValueRange fetched) {
    Value zeroF = e.constF32(0.0f);
    int64_t perChannel = channelCount(), perState = stateCount();
    auto channelStage = [&](ValueRange values, Value target, bool isDelta) {
      round().forEach(
          l.chunkL, l.blockD,
          [&](int64_t k, Value t, Value c) -> Value {
            Value v = e.toF32(values[k]);
            if (isDelta) {
              if (buf.deltaBias) {
                Value d = clampChannel(e.add(d0, c));
                v = e.fadd(v, memref::LoadOp::create(e.b, buf.deltaBias, d));
              }
              if (p.softplus)
                v = scanSoftplus(e, v);
            }
            return e.select(inSequence(e.add(c0, t)), v, zeroF);
          },
          [&](Value t, Value c, Value v) {
            Value pos = stagePos(c, t);
            if (target == uyS)
              pos = uyPos(pos);
            memref::StoreOp::create(e.b, v, target, pos);
          });
    };
    channelStage(fetched.take_front(perChannel), dtS, /*isDelta=*/true);
    channelStage(fetched.slice(perChannel, perChannel), uyS,
                 /*isDelta=*/false);
    int64_t width = l.groupSpan * p.state;
    int64_t offset = 2 * perChannel;
    for (Value target : {bS, cS}) {
      ValueRange values = fetched.slice(offset, perState);
      offset += perState;
      round().forEach(
          l.chunkL, width,
          [&](int64_t k, Value, Value) { return e.toF32(values[k]); },
          [&](Value t, Value r, Value v) {
            memref::StoreOp::create(e.b, v, target, stagePos(r, t, l.bcStride));
          });
    }
  }

  /// Position `pos` of this chunk's u / y stage (the buffer of the
  /// chunk's parity with `double_buffer`).
  Value uyPos(Value pos) { return l.doubleBuffer ? e.add(uyOff, pos) : pos; }

  /// The subgroup lane `off` before this one (clamped to 0; only read
  /// where this lane is at least `off` into its segment).
  Value laneBefore(int64_t off) {
    Value before = e.sub(subLaneI32, e.constI32(off));
    Value zeroI = e.constI32(0);
    return arith::MaxSIOp::create(e.b, before, zeroI);
  }

  Value shuffleFrom(Value value, Value srcLane) {
    return gpu::ShuffleOp::create(e.b, value, srcLane,
                                  e.constI32(l.subgroupSize),
                                  gpu::ShuffleMode::IDX)
        .getShuffleResult();
  }

  /// The state before this thread's steps of each state of a batch, from
  /// the chunk's carry and the lanes' inclusive prefixes (P, H): with
  /// `lane_batch`, each lane's end state P carry + H, shuffled once to the
  /// next lane and once from the segment's last lane into `next` (the next
  /// chunk's carry); without it, the lane before's (P, H) applied to the
  /// carry (the caller shuffles the next carry after the rescan).
  SmallVector<Value> stateBefore(ValueRange carry, ArrayRef<Value> prod,
                                 ArrayRef<Value> sum,
                                 SmallVectorImpl<Value> &next) {
    if (l.timeLanes == 1)
      return SmallVector<Value>(carry);
    Value src = laneBefore(1);
    SmallVector<Value> hIn;
    if (l.laneBatch == 0) {
      Value sumBefore = shuffleFrom(sum[0], src);
      Value prodBefore = shuffleFrom(prod[0], src);
      Value isFirst = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq,
                                            laneI32, e.constI32(0));
      Value carried = math::FmaOp::create(e.b, prodBefore, carry[0], sumBefore);
      hIn.push_back(e.select(isFirst, carry[0], carried));
      return hIn;
    }
    Value isFirst = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq,
                                          laneI32, e.constI32(0));
    SmallVector<Value> hEnd, before;
    for (auto [j, c] : llvm::enumerate(carry))
      hEnd.push_back(math::FmaOp::create(e.b, prod[j], c, sum[j]));
    for (Value h : hEnd) {
      before.push_back(shuffleFrom(h, src));
      next.push_back(shuffleFrom(h, segLastI32));
    }
    for (auto [j, c] : llvm::enumerate(carry))
      hIn.push_back(e.select(isFirst, c, before[j]));
    return hIn;
  }

  /// The chunk's scan of this thread's K steps, every state; returns the
  /// states at the chunk's end (the same in every lane of the channel).
  /// The states go in batches of `lane_batch` (one without it), each
  /// round's shuffles of a batch issued together (independent chains).
  SmallVector<Value> scan(ValueRange carry) {
    int64_t k = l.itemsPerThread;
    SmallVector<Value> at, dt, dtu, us, y;
    Value first = e.mul(lane, e.index(k));
    // With state groups the D skip joins after their sum.
    bool skipFirst = skip && !stateGroup;
    for (int64_t i = 0; i < k; ++i) {
      Value s = slot(e.add(first, e.index(i)));
      at.push_back(s);
      dt.push_back(memref::LoadOp::create(e.b, dtS, e.add(myRow, s)));
      Value u = memref::LoadOp::create(e.b, uyS, uyPos(e.add(myRow, s)));
      us.push_back(u);
      dtu.push_back(e.fmul(dt.back(), u));
      y.push_back(skipFirst ? e.fmul(skip, u) : e.constF32(0.0f));
    }
    SmallVector<Value> next;
    int64_t batch = std::max<int64_t>(1, l.laneBatch);
    for (int64_t n0 = 0; n0 < l.statesPerThread; n0 += batch) {
      int64_t n1 = std::min(n0 + batch, l.statesPerThread);
      // This thread's steps of each state as one map h -> P h + H.
      SmallVector<SmallVector<Value>> decay, input;
      SmallVector<Value> rows, prod, sum;
      for (int64_t n = n0; n < n1; ++n) {
        rows.push_back(
            e.add(myBcRow, e.index(n * l.timeStateLanes * l.bcStride)));
        decay.emplace_back();
        input.emplace_back();
        Value p, h;
        for (int64_t i = 0; i < k; ++i) {
          decay.back().push_back(
              math::Exp2Op::create(e.b, e.fmul(dt[i], a2[n])));
          Value bv = memref::LoadOp::create(e.b, bS, e.add(rows.back(), at[i]));
          input.back().push_back(e.fmul(dtu[i], bv));
          h = i == 0 ? input.back()[i]
                     : math::FmaOp::create(e.b, decay.back()[i], h,
                                           input.back()[i])
                           .getResult();
          p = i == 0 ? decay.back()[i] : e.fmul(p, decay.back()[i]);
        }
        prod.push_back(p);
        sum.push_back(h);
      }
      int64_t count = n1 - n0;
      // Inclusive scan over the segment's lanes (earlier lanes first).
      for (int64_t off = 1; off < l.timeLanes; off *= 2) {
        Value src = laneBefore(off);
        SmallVector<Value> sumBefore, prodBefore;
        for (int64_t j = 0; j < count; ++j) {
          sumBefore.push_back(shuffleFrom(sum[j], src));
          prodBefore.push_back(shuffleFrom(prod[j], src));
        }
        Value take = arith::CmpIOp::create(e.b, arith::CmpIPredicate::sge,
                                           laneI32, e.constI32(off));
        for (int64_t j = 0; j < count; ++j) {
          Value combined =
              math::FmaOp::create(e.b, prod[j], sumBefore[j], sum[j]);
          sum[j] = e.select(take, combined, sum[j]);
          Value product = e.fmul(prod[j], prodBefore[j]);
          prod[j] = e.select(take, product, prod[j]);
        }
      }
      SmallVector<Value> hIn =
          stateBefore(carry.slice(n0, count), prod, sum, next);
      for (int64_t j = 0; j < count; ++j) {
        Value h = hIn[j];
        for (int64_t i = 0; i < k; ++i) {
          h = math::FmaOp::create(e.b, decay[j][i], h, input[j][i]);
          Value cv = memref::LoadOp::create(e.b, cS, e.add(rows[j], at[i]));
          y[i] = math::FmaOp::create(e.b, cv, h, y[i]);
        }
        if (l.timeLanes == 1)
          next.push_back(h);
        else if (l.laneBatch == 0)
          next.push_back(shuffleFrom(h, segLastI32));
      }
    }
    if (!stateGroup) {
      for (int64_t i = 0; i < k; ++i)
        memref::StoreOp::create(e.b, y[i], uyS, uyPos(e.add(myRow, at[i])));
      return next;
    }
    for (int64_t i = 0; i < k; ++i) {
      for (int64_t off = l.timeLanes; off < l.threadsPerChannel; off *= 2) {
        Value mask = e.constI32(off);
        Value width = e.constI32(l.subgroupSize);
        Value other = gpu::ShuffleOp::create(e.b, y[i], mask, width,
                                             gpu::ShuffleMode::XOR)
                          .getShuffleResult();
        y[i] = e.fadd(y[i], other);
      }
      if (skip)
        y[i] = math::FmaOp::create(e.b, skip, us[i], y[i]);
    }
    Value group0 = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq,
                                         stateGroup, e.index(0));
    emitIf(e, group0, [&] {
      for (int64_t i = 0; i < k; ++i)
        memref::StoreOp::create(e.b, y[i], uyS, uyPos(e.add(myRow, at[i])));
    });
    return next;
  }

  /// y (with the D skip) times silu(z), stored for the chunk's steps and
  /// the block's channels inside the problem.
  void output(Value c0, ValueRange zs) {
    round().forEach(
        l.chunkL, l.blockD,
        [&](int64_t k, Value, Value) { return zs.empty() ? Value() : zs[k]; },
        [&](Value t, Value c, Value zv) {
          Value d = e.add(d0, c);
          Value row = e.add(c0, t);
          Value inChannel = arith::CmpIOp::create(
              e.b, arith::CmpIPredicate::slt, d, e.index(p.channels));
          Value inside = arith::AndIOp::create(e.b, inSequence(row), inChannel);
          emitIf(e, inside, [&] {
            Value i = uyPos(stagePos(c, t));
            Value y = memref::LoadOp::create(e.b, uyS, i);
            if (zv)
              y = siluGate(e, y, zv);
            Type outType = cast<MemRefType>(buf.y.getType()).getElementType();
            memref::StoreOp::create(e.b, e.fromF32(y, outType), buf.y,
                                    ValueRange{batch, row, d});
          });
        });
  }

  /// Lane 0 of each channel (and state group) inside the problem stores
  /// its states.
  void storeFinalState(ArrayRef<Value> h, Value local) {
    Value channels = e.index(p.channels);
    Value owned = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                        e.add(d0, local), channels);
    Value lane0 =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, lane, e.index(0));
    emitIf(e, arith::AndIOp::create(e.b, owned, lane0), [&] {
      for (int64_t n = 0; n < l.statesPerThread; ++n)
        memref::StoreOp::create(e.b, h[n], buf.finalState,
                                ValueRange{batch, myChannel, stateOf(n)});
    });
  }

  Emitter e;
  const VulkanSelectiveScanPlan &p;
  const VulkanScanLayout &l;
  const SelectiveScanBuffers &buf;
  Value batch, thread, lane, laneI32, subLaneI32, segLastI32;
  Value d0, firstGroup, myChannel, myRow, myBcRow, skip;
  /// This thread's group of time lanes (null without state groups).
  Value stateGroup;
  Value dtS, uyS, bS, cS;
  /// The offset of this chunk's u/y stage in uyS (double-buffered: dbuf).
  Value uyOff;
  /// A[d, n] * log2(e) of this thread's channel, per state.
  SmallVector<Value> a2;
};

} // namespace

void mlir::ejk::buildVulkanSelectiveScanLanesBody(
    OpBuilder &builder, Location loc, const VulkanSelectiveScanPlan &plan,
    const SelectiveScanBuffers &buffers) {
  LanesScanBuilder(builder, loc, plan, buffers).build();
}
