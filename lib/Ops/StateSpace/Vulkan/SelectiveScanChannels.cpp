//===- SelectiveScanChannels.cpp - Mamba-1 scan, a channel per lane -------===//
//
// The channel-lanes scan (`channel_lanes = 1`): lane t of a workgroup owns
// channel d0 + t of one batch row and every one of its d_state states, h
// and A * log2(e) in registers. The lanes of a subgroup are neighbouring
// channels, so a step's delta, u, z loads and y stores are contiguous runs,
// and B_t, C_t are the same words for every lane of a group (16-byte loads
// when f32 and d_state is a multiple of 4). y_t = C_t . h_t is complete
// inside the lane: no shuffles, no shared memory, no barriers.
//
//   h = initial_state (or the carried-in state of the split)
//   fetch the first group of chunk_l steps             registers
//   for each group of chunk_l steps:
//     fetch the next group's delta, u, z, B, C          registers
//     (with fetch_ahead = P: delta, u, z P groups ahead, B and C one)
//     per step: dt = softplus(delta + bias), dtu = dt u
//       per state n: h_n = exp2(dt A2_n) h_n + dtu B_n, y += C_n h_n
//       y = (y + D u) * silu(z), stored
//   final_state = h
//
// With `split_l` (the chunked scan) the sequence is cut into splits across
// workgroups (grid z) in two dispatches, as the split scan does
// (SelectiveScanKernel.cpp): the states dispatch runs the loop above
// without C and y from zero over every split but the last and stores the
// split's end state and step sum; the scan of split s starts from
//   h = initial_state; for k < s: h = exp2(A2 * dtsum_k) * h + hend_k
// Every state-step's exp2 then runs twice; with `poly_exp = P` the exp2 of
// a lane's first P states runs on the FP32 pipe as a polynomial (the
// special-function unit computes 16 exp2 a clock and SM, the FP32 lanes 128
// multiply-adds):
//   x clamped to [-125, 126]; t = x + 1.5 * 2^23 (rounds x to j);
//   f = x - j in [-0.5, 0.5], j's float from t's bits (below);
//   2^f by a degree-5 polynomial (relative error 2.4e-7);
//   2^x = bits(2^f) + (bits(t) << 23)   (j added to the exponent)
//
//===----------------------------------------------------------------------===//

#include "Common/VulkanMatrices.h"
#include "StateSpace/Vulkan/Kernels.h"

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

class ChannelScanBuilder {
public:
  ChannelScanBuilder(OpBuilder &builder, Location loc,
                     const VulkanSelectiveScanPlan &plan,
                     const SelectiveScanBuffers &buffers,
                     const SelectiveScanSplitBuffers &split, bool statesOnly)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers),
        splitBuf(split), statesOnly(statesOnly) {
    auto bType = cast<MemRefType>(buffers.b.getType());
    vec = bType.getElementType().isF32() && p.state % kWord == 0 ? kWord : 1;
  }

  void build() {
    Value dBlock = WorkgroupIdOp::create(e.b, 0);
    batch = WorkgroupIdOp::create(e.b, 1);
    Value split = e.index(0);
    if (l.isSplit())
      split = WorkgroupIdOp::create(e.b, 2);
    Value thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    Value blockD = e.index(l.blockD);
    Value d0 = e.mul(dBlock, blockD);
    Value channel = e.add(d0, thread);
    Value channels = e.index(p.channels);
    owned = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, channel,
                                  channels);
    Value lastChannel = e.index(p.channels - 1);
    myChannel = e.min(channel, lastChannel);
    Value perGroup = e.index(p.channelsPerGroup());
    myGroup = e.div(myChannel, perGroup);
    if (vec > 1)
      std::tie(bWords, cWords) = selectiveScanBCWords(e, buf, vec, statesOnly);

    // A * log2(e) and the start state, per state of the channel.
    Value log2e = e.constF32(1.4426950408889634f);
    SmallVector<Value> h;
    for (int64_t n = 0; n < p.state; ++n) {
      Value state = e.index(n);
      Value a =
          memref::LoadOp::create(e.b, buf.a, ValueRange{myChannel, state});
      a2.push_back(e.fmul(a, log2e));
      if (buf.initialState && !statesOnly) {
        Value h0 = memref::LoadOp::create(e.b, buf.initialState,
                                          ValueRange{batch, myChannel, state});
        h.push_back(h0);
      } else {
        h.push_back(e.constF32(0.0f));
      }
    }
    if (buf.deltaBias)
      bias = memref::LoadOp::create(e.b, buf.deltaBias, myChannel);
    if (buf.d && !statesOnly)
      skip = memref::LoadOp::create(e.b, buf.d, myChannel);
    if (l.isSplit() && !statesOnly)
      h = l.carryPass ? carriedState(split, h) : carryIn(split, h);
    // The end-state pass also sums its step sizes (last).
    if (statesOnly)
      h.push_back(e.constF32(0.0f));

    Value splitL = e.index(l.splitL);
    Value begin = e.mul(split, splitL);
    Value seq = e.index(p.seq);
    Value splitEnd = e.add(begin, splitL);
    end = e.min(splitEnd, seq);
    // Whole groups need no step predicates.
    whole = p.seq % l.chunkL == 0 && l.splitL % l.chunkL == 0;
    // The start of the split's last group: the fetch ahead of the last
    // group reads it again (in bounds, never used).
    Value one = e.index(1);
    Value steps = e.sub(end, begin);
    Value stepsBefore = e.sub(steps, one);
    Value chunkL = e.index(l.chunkL);
    Value groupsBefore = e.div(stepsBefore, chunkL);
    Value lastGroup = e.mul(groupsBefore, chunkL);
    Value lastStart = e.add(begin, lastGroup);

    int64_t stateCount = h.size();
    SmallVector<Value> inits(h);
    // With fetch_ahead = P > 1 the loop carries P groups of delta, u, z
    // (the group in use first) and one group of B, C; else one group of
    // both, step by step.
    int64_t ahead = l.fetchAhead;
    if (ahead == 1) {
      SmallVector<Value> first = fetchGroup(begin, true, true);
      inits.append(first);
    } else {
      for (int64_t g = 0; g < ahead; ++g) {
        Value offset = e.index(g * l.chunkL);
        Value start = e.add(begin, offset);
        Value clamped = e.min(start, lastStart);
        SmallVector<Value> rows = fetchGroup(clamped, true, false);
        inits.append(rows);
      }
      SmallVector<Value> firstBC = fetchGroup(begin, false, true);
      inits.append(firstBC);
    }
    int64_t rowCount = rowValues() * l.chunkL;
    SmallVector<Value> carried =
        e.forLoop(begin, end, chunkL, inits, [&](Value c0, ValueRange args) {
          Value nextC0 = e.add(c0, chunkL);
          Value nextStart = e.min(nextC0, lastStart);
          SmallVector<Value> fetchedAhead;
          if (ahead == 1) {
            fetchedAhead = fetchGroup(nextStart, true, true);
          } else {
            Value rowsOffset = e.index(ahead * l.chunkL);
            Value rowsC0 = e.add(c0, rowsOffset);
            Value rowsStart = e.min(rowsC0, lastStart);
            SmallVector<Value> rows = fetchGroup(rowsStart, true, false);
            SmallVector<Value> bc = fetchGroup(nextStart, false, true);
            ValueRange queue = args.drop_front(stateCount + rowCount);
            queue = queue.take_front((ahead - 1) * rowCount);
            fetchedAhead.assign(queue.begin(), queue.end());
            fetchedAhead.append(rows);
            fetchedAhead.append(bc);
          }
          SmallVector<Value> state(args.take_front(stateCount));
          ValueRange fetched = args.drop_front(stateCount);
          for (int64_t i = 0; i < l.chunkL; ++i) {
            Value offset = e.index(i);
            Value t = e.add(c0, offset);
            ValueRange rows, bc;
            if (ahead == 1) {
              int64_t perStep = rowValues() + bcValues();
              rows = fetched.slice(i * perStep, rowValues());
              bc = fetched.slice(i * perStep + rowValues(), bcValues());
            } else {
              rows = fetched.slice(i * rowValues(), rowValues());
              int64_t bcStart = ahead * rowCount + i * bcValues();
              bc = fetched.slice(bcStart, bcValues());
            }
            state = step(t, rows, bc, state);
          }
          state.append(fetchedAhead);
          return state;
        });
    h.assign(carried.begin(), carried.begin() + stateCount);
    if (statesOnly) {
      storeSplitEnd(split, h);
      return;
    }
    if (!buf.finalState)
      return;
    Value store = owned;
    if (l.isSplit()) {
      Value lastSplit = e.index(l.numSplits - 1);
      Value isLast = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, split,
                                           lastSplit);
      store = arith::AndIOp::create(e.b, store, isLast);
    }
    emitIf(e, store, [&] {
      for (int64_t n = 0; n < p.state; ++n) {
        Value state = e.index(n);
        memref::StoreOp::create(e.b, h[n], buf.finalState,
                                ValueRange{batch, myChannel, state});
      }
    });
  }

private:
  static constexpr int64_t kWord = 4;

  Value exp2(Value x) { return math::Exp2Op::create(e.b, x); }
  Value fma(Value x, Value y, Value acc) {
    return math::FmaOp::create(e.b, x, y, acc);
  }
  Value bitsOf(Value x) { return arith::BitcastOp::create(e.b, e.i32, x); }

  /// 2^x on the FP32 pipe (see the file comment); x is clamped to [-125,
  /// 126], where the exponent field stays normal.
  Value polyExp2(Value x) {
    // Degree-5 fit of 2^f on [-0.5, 0.5], highest power first.
    static constexpr float kCoeffs[] = {
        0.0013276470126584172f, 0.009675541892647743f, 0.05550713464617729f,
        0.24022120237350464f,   0.6931469440460205f,   1.0000001192092896f};
    Value lo = e.constF32(-125.0f);
    Value hi = e.constF32(126.0f);
    Value above =
        arith::MaxNumFOp::create(e.b, x, lo, arith::FastMathFlags::nnan);
    Value clamped =
        arith::MinNumFOp::create(e.b, above, hi, arith::FastMathFlags::nnan);
    // shifted = 1.5 * 2^23 + j exactly (its low mantissa bits hold j). The
    // float of j comes from those bits moved under a second magic number
    // (1.25 * 2^23): `shifted - 1.5 * 2^23` would be folded back to x by a
    // device compiler that reassociates (lavapipe's does).
    Value magic = e.constF32(12582912.0f);
    Value shifted = e.fadd(clamped, magic);
    Value exponent = bitsOf(shifted);
    Value rebase = e.constI32(-0x200000);
    Value rebased = arith::AddIOp::create(e.b, exponent, rebase);
    Value magic2 = e.constF32(10485760.0f);
    Value biased = arith::BitcastOp::create(e.b, e.f32, rebased);
    Value rounded = e.fsub(biased, magic2);
    Value f = e.fsub(clamped, rounded);
    Value poly = e.constF32(kCoeffs[0]);
    for (float c : ArrayRef<float>(kCoeffs).drop_front()) {
      Value coeff = e.constF32(c);
      poly = fma(poly, f, coeff);
    }
    Value shiftBits = e.constI32(23);
    Value scale = arith::ShLIOp::create(e.b, exponent, shiftBits);
    Value polyBits = bitsOf(poly);
    Value sum = arith::AddIOp::create(e.b, polyBits, scale);
    return arith::BitcastOp::create(e.b, e.f32, sum);
  }

  Value decay(Value dt, int64_t n) {
    Value x = e.fmul(dt, a2[n]);
    return n < l.polyExp ? polyExp2(x) : exp2(x);
  }

  /// The state at the start of split `split`: the earlier splits' end
  /// states (from zero) carried in order, each decayed over its steps; the
  /// next split's loads are issued before the current one's math.
  SmallVector<Value> carryIn(Value split, ArrayRef<Value> h0) {
    Value zero = e.index(0);
    Value one = e.index(1);
    Value lastEnd = e.index(l.numSplits - 2);
    SmallVector<Value> inits(h0);
    SmallVector<Value> first = fetchEnd(zero);
    inits.append(first);
    SmallVector<Value> carried =
        e.forLoop(zero, split, one, inits, [&](Value k, ValueRange args) {
          Value nextK = e.add(k, one);
          Value clamped = e.min(nextK, lastEnd);
          SmallVector<Value> ahead = fetchEnd(clamped);
          ValueRange h = args.take_front(p.state);
          ValueRange end = args.drop_front(p.state);
          Value sum = end.back();
          SmallVector<Value> next;
          for (int64_t n = 0; n < p.state; ++n) {
            Value x = e.fmul(sum, a2[n]);
            Value d = exp2(x);
            next.push_back(fma(d, h[n], end[n]));
          }
          next.append(ahead);
          return next;
        });
    carried.resize(p.state);
    return carried;
  }

  /// With `carry_pass`: split s > 0 starts from the state the carry
  /// dispatch left in its predecessor's end-state slot; split 0 from `h0`.
  SmallVector<Value> carriedState(Value split, ArrayRef<Value> h0) {
    Value zero = e.index(0);
    Value one = e.index(1);
    Value before = e.sub(split, one);
    Value slot = e.max(before, zero);
    Value first =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, split, zero);
    SmallVector<Value> h;
    for (int64_t n = 0; n < p.state; ++n) {
      Value state = e.index(n);
      Value carried = memref::LoadOp::create(
          e.b, splitBuf.endStates, ValueRange{batch, slot, myChannel, state});
      h.push_back(e.select(first, h0[n], carried));
    }
    return h;
  }

  /// Split k's end state (d_state values) and step sum.
  SmallVector<Value> fetchEnd(Value k) {
    SmallVector<Value> out;
    for (int64_t n = 0; n < p.state; ++n) {
      Value state = e.index(n);
      Value v = memref::LoadOp::create(e.b, splitBuf.endStates,
                                       ValueRange{batch, k, myChannel, state});
      out.push_back(v);
    }
    Value sum = memref::LoadOp::create(e.b, splitBuf.stepSums,
                                       ValueRange{batch, k, myChannel});
    out.push_back(sum);
    return out;
  }

  /// The end-state pass's results: the channel's states and step sum.
  void storeSplitEnd(Value split, ArrayRef<Value> h) {
    emitIf(e, owned, [&] {
      for (int64_t n = 0; n < p.state; ++n) {
        Value state = e.index(n);
        memref::StoreOp::create(e.b, h[n], splitBuf.endStates,
                                ValueRange{batch, split, myChannel, state});
      }
      memref::StoreOp::create(e.b, h.back(), splitBuf.stepSums,
                              ValueRange{batch, split, myChannel});
    });
  }

  /// Values fetched per step: delta, u, z (scan with z), then B's and (scan)
  /// C's words or scalars.
  int64_t bcCount() const { return p.state / vec; }
  /// Per step: delta, u and z (`rowValues`); B and C (`bcValues`).
  int64_t rowValues() const { return buf.z && !statesOnly ? 3 : 2; }
  int64_t bcValues() const { return bcCount() * (statesOnly ? 1 : 2); }

  /// The global loads of the `chunk_l` steps from `c0` (rows past the
  /// sequence read the last), step by step: delta, u, z when `rows`, B and
  /// C when `bc`.
  SmallVector<Value> fetchGroup(Value c0, bool rows, bool bc) {
    SmallVector<Value> out;
    Value lastRow = e.index(p.seq - 1);
    for (int64_t i = 0; i < l.chunkL; ++i) {
      Value offset = e.index(i);
      Value t = e.add(c0, offset);
      Value row = e.min(t, lastRow);
      if (rows) {
        Value delta = memref::LoadOp::create(e.b, buf.delta,
                                             ValueRange{batch, row, myChannel});
        out.push_back(delta);
        Value u = memref::LoadOp::create(e.b, buf.u,
                                         ValueRange{batch, row, myChannel});
        out.push_back(u);
        if (buf.z && !statesOnly) {
          Value z = memref::LoadOp::create(e.b, buf.z,
                                           ValueRange{batch, row, myChannel});
          out.push_back(z);
        }
      }
      for (int64_t which = 0; bc && which < (statesOnly ? 1 : 2); ++which) {
        Value source = which == 0 ? buf.b : buf.c;
        Value words = which == 0 ? bWords : cWords;
        if (vec == 1) {
          for (int64_t n = 0; n < p.state; ++n) {
            Value state = e.index(n);
            Value v = memref::LoadOp::create(
                e.b, source, ValueRange{batch, row, myGroup, state});
            out.push_back(v);
          }
          continue;
        }
        // The words of [batch, row, group] (d_state a multiple of 4).
        Value seq = e.index(p.seq);
        Value groups = e.index(p.groups);
        Value rowWords = e.index(p.state / vec);
        Value flat = e.mul(batch, seq);
        flat = e.add(flat, row);
        flat = e.mul(flat, groups);
        flat = e.add(flat, myGroup);
        flat = e.mul(flat, rowWords);
        for (int64_t w = 0; w < p.state / vec; ++w) {
          Value wordOffset = e.index(w);
          Value word = e.add(flat, wordOffset);
          Value v = memref::LoadOp::create(e.b, words, word);
          out.push_back(v);
        }
      }
    }
    return out;
  }

  /// State n of a step's B or C values (`values`: words or scalars).
  Value stateValue(ValueRange values, int64_t n) {
    if (vec == 1)
      return e.toF32(values[n]);
    Value bits = vector::ExtractOp::create(e.b, values[n / vec], n % vec);
    return arith::BitcastOp::create(e.b, e.f32, bits);
  }

  /// One step t of the recurrence from the step's fetched values; returns
  /// the states (and the step sum in the end-state pass).
  SmallVector<Value> step(Value t, ValueRange rows, ValueRange bc,
                          ArrayRef<Value> h) {
    Value dt = e.toF32(rows[0]);
    if (bias)
      dt = e.fadd(dt, bias);
    if (p.softplus)
      dt = scanSoftplus(e, dt);
    Value valid;
    if (!whole) {
      // Steps past the split leave the states alone (a = 1, b = 0).
      valid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, t, end);
      Value zeroF = e.constF32(0.0f);
      dt = e.select(valid, dt, zeroF);
    }
    Value u = e.toF32(rows[1]);
    Value dtu = e.fmul(dt, u);
    int64_t zCount = buf.z && !statesOnly ? 1 : 0;
    ValueRange bValues = bc.take_front(bcCount());
    ValueRange cValues;
    if (!statesOnly)
      cValues = bc.slice(bcCount(), bcCount());
    // y in two chains (even and odd states) for the device's latency.
    Value acc[2] = {Value(), Value()};
    SmallVector<Value> next;
    for (int64_t n = 0; n < p.state; ++n) {
      Value bn = stateValue(bValues, n);
      Value a = decay(dt, n);
      Value input = e.fmul(dtu, bn);
      Value hn = fma(a, h[n], input);
      next.push_back(hn);
      if (statesOnly)
        continue;
      Value cn = stateValue(cValues, n);
      Value &chain = acc[n % 2];
      chain = chain ? fma(cn, hn, chain) : e.fmul(cn, hn);
    }
    if (statesOnly) {
      next.push_back(e.fadd(h.back(), dt));
      return next;
    }
    Value y = acc[1] ? e.fadd(acc[0], acc[1]) : acc[0];
    if (skip)
      y = fma(skip, u, y);
    if (zCount)
      y = siluGate(e, y, rows[2]);
    Value store = owned;
    if (valid)
      store = arith::AndIOp::create(e.b, store, valid);
    Type outType = cast<MemRefType>(buf.y.getType()).getElementType();
    Value out = e.fromF32(y, outType);
    emitIf(e, store, [&] {
      memref::StoreOp::create(e.b, out, buf.y, ValueRange{batch, t, myChannel});
    });
    return next;
  }

  Emitter e;
  const VulkanSelectiveScanPlan &p;
  const VulkanScanLayout &l;
  const SelectiveScanBuffers &buf;
  const SelectiveScanSplitBuffers &splitBuf;
  /// The end-state pass of a split scan (no C, y or output).
  bool statesOnly;
  /// Elements per 16-byte word of B and C (f32 B and C, d_state a multiple
  /// of 4), else 1 (scalars).
  int64_t vec = 1;
  /// Whether every group of steps lies inside its split.
  bool whole = false;
  Value bWords, cWords;
  Value batch, owned, myChannel, myGroup, end, bias, skip;
  /// A[d, n] * log2(e) of this lane's channel.
  SmallVector<Value> a2;
};

} // namespace

void mlir::ejk::buildVulkanSelectiveScanChannelsBody(
    OpBuilder &builder, Location loc, const VulkanSelectiveScanPlan &plan,
    const SelectiveScanBuffers &buffers,
    const SelectiveScanSplitBuffers &split) {
  ChannelScanBuilder(builder, loc, plan, buffers, split, /*statesOnly=*/false)
      .build();
}

void mlir::ejk::buildVulkanSelectiveScanCarryBody(
    OpBuilder &builder, Location loc, const VulkanSelectiveScanPlan &plan,
    Value a, Value initialState, const SelectiveScanSplitBuffers &split) {
  // One thread per (channel, state) of a batch row: the splits' end states
  // folded in order from the initial state, each slot replaced by the
  // state after its split (the start state of the next).
  Emitter e(builder, loc, 1);
  const VulkanScanLayout &l = plan.layout;
  Value block = WorkgroupIdOp::create(e.b, 0);
  Value batch = WorkgroupIdOp::create(e.b, 1);
  Value thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  Value threads = e.index(l.carryThreads);
  Value first = e.mul(block, threads);
  Value i = e.add(first, thread);
  int64_t total = plan.channels * plan.state;
  Value totalV = e.index(total);
  Value inside =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, i, totalV);
  Value last = e.index(total - 1);
  Value clamped = e.min(i, last);
  Value states = e.index(plan.state);
  Value channel = arith::DivUIOp::create(e.b, clamped, states);
  Value state = arith::RemUIOp::create(e.b, clamped, states);
  Value aValue = memref::LoadOp::create(e.b, a, ValueRange{channel, state});
  Value log2e = e.constF32(1.4426950408889634f);
  Value a2 = e.fmul(aValue, log2e);
  Value h0 = e.constF32(0.0f);
  if (initialState)
    h0 = memref::LoadOp::create(e.b, initialState,
                                ValueRange{batch, channel, state});
  Value zero = e.index(0);
  Value one = e.index(1);
  Value ends = e.index(l.numSplits - 1);
  e.forLoop(zero, ends, one, ValueRange{h0}, [&](Value k, ValueRange h) {
    Value sum = memref::LoadOp::create(e.b, split.stepSums,
                                       ValueRange{batch, k, channel});
    Value end = memref::LoadOp::create(e.b, split.endStates,
                                       ValueRange{batch, k, channel, state});
    Value x = e.fmul(sum, a2);
    Value decay = math::Exp2Op::create(e.b, x);
    Value next = math::FmaOp::create(e.b, decay, h[0], end);
    emitIf(e, inside, [&] {
      memref::StoreOp::create(e.b, next, split.endStates,
                              ValueRange{batch, k, channel, state});
    });
    return SmallVector<Value>{next};
  });
}

void mlir::ejk::buildVulkanSelectiveScanChannelsStatesBody(
    OpBuilder &builder, Location loc, const VulkanSelectiveScanPlan &plan,
    const SelectiveScanBuffers &buffers,
    const SelectiveScanSplitBuffers &split) {
  ChannelScanBuilder(builder, loc, plan, buffers, split, /*statesOnly=*/true)
      .build();
}
