//===- SelectiveScanSegments.cpp - Mamba-1 scan, time across subgroups ----===//
//
// The time-segments selective scan (`time_segments` = W): one pass over the
// data, each element's exp computed once, no transposed stages. One
// workgroup = (block of `block_d` channels, batch row); thread t owns
// channel t % block_d of the block, state group g = (t / block_d) % SL (the
// states g * S .. g * S + S - 1, S = d_state / SL, with `state_lanes` = SL)
// and segment w = t / (block_d * SL): the K = chunk_l / W consecutive steps
// w * K .. w * K + K - 1 of each chunk. The channels lie along the lanes, so
// a subgroup's loads of delta, u, z and its stores of y are runs of
// neighbouring channels, and B and C (shared by a group's channels) are
// the same few words for the whole subgroup (16-byte words for f32). Per
// chunk:
//
//   dt_i = softplus(delta + bias), u_i      registers, fetched during the
//                                            chunk before with B; 0 past L;
//                                            with SL groups each group takes
//                                            the softplus of every SL-th step
//                                            and shuffles it to the others
//   fetch   the next chunk's delta, u, z, B  registers
//   local   per state n: a_i = exp2(dt_i A2[n]), b_i = dt_i u_i B_i[n],
//           H_i = a_i H_{i-1} + b_i, P_i = a_i P_{i-1} (from H = 0, P = 1),
//           all K kept; every segment but the last stores (P_K, H_K); C
//           of the K steps loaded
//   barrier (the only one of a chunk)
//   carry   h_in = the chunk's carry folded through the segments before:
//           for s < w: h_in = P_s h_in + H_s; the last segment stores its
//           end state P_K h_in + H_K as the next chunk's carry
//   output  y_i = sum_n C_i[n] (P_i h_in + H_i) for every step, then each
//           summed over the state groups (shuffle xor block_d, 2 block_d,
//           ...), D skip, gate; group 0 stores (every global load of a
//           chunk is issued before its first store of y)
//
// The segments' (P, H) and the carry alternate between two buffers by the
// chunk's parity: a subgroup that runs ahead into the next chunk writes the
// other buffer, and the one barrier of a chunk orders the rest. Steps past
// the sequence have dt = u = 0 (a = 1, b = 0), so every chunk is whole. The
// last segment keeps the final state in registers and stores it.
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

/// f32 elements of a 16-byte word.
constexpr int64_t kWord = 4;

class SegmentsScanBuilder {
public:
  SegmentsScanBuilder(OpBuilder &builder, Location loc,
                      const VulkanSelectiveScanPlan &plan,
                      const SelectiveScanBuffers &buffers)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers) {
    auto bType = cast<MemRefType>(buffers.b.getType());
    words = bType.getElementType().isF32() && p.state % kWord == 0 &&
            l.statesPerThread % kWord == 0;
  }

  void build() {
    Value dBlock = WorkgroupIdOp::create(e.b, 0);
    batch = WorkgroupIdOp::create(e.b, 1);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    Value local = arith::RemUIOp::create(e.b, thread, e.index(l.blockD));
    Value rest = arith::DivUIOp::create(e.b, thread, e.index(l.blockD));
    group = arith::RemUIOp::create(e.b, rest, e.index(l.timeStateLanes));
    segment = arith::DivUIOp::create(e.b, rest, e.index(l.timeStateLanes));
    Value d = e.add(e.mul(dBlock, e.index(l.blockD)), local);
    channel = e.min(d, e.index(p.channels - 1));
    bcGroup = e.div(channel, e.index(p.channelsPerGroup()));
    firstState = e.mul(group, e.index(l.statesPerThread));
    inChannels = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, d,
                                       e.index(p.channels));
    isLast = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, segment,
                                   e.index(l.timeSegments - 1));
    myWord = e.add(e.mul(group, e.index(l.segmentStride)), local);
    if (words) {
      bWords = wordView(e, buf.b, kWord);
      cWords = buf.c == buf.b ? bWords : wordView(e, buf.c, kWord);
    }

    int64_t states = l.statesPerThread;
    int64_t block = l.timeStateLanes * l.segmentStride;
    if (l.timeSegments > 1)
      phS = allocWorkgroup(e, 2 * 2 * (l.timeSegments - 1) * block);
    carryS = allocWorkgroup(e, 2 * block);
    for (int64_t k = 0; k < states; ++k) {
      Value log2e = e.constF32(1.4426950408889634f);
      a2.push_back(e.fmul(
          memref::LoadOp::create(e.b, buf.a, ValueRange{channel, stateOf(k)}),
          log2e));
    }
    if (buf.d)
      skip = memref::LoadOp::create(e.b, buf.d, channel);
    if (buf.deltaBias)
      bias = memref::LoadOp::create(e.b, buf.deltaBias, channel);
    // The last segment writes the first chunk's carry.
    emitIf(e, isLast, [&] {
      for (int64_t k = 0; k < states; ++k) {
        Value h =
            buf.initialState
                ? memref::LoadOp::create(e.b, buf.initialState,
                                         ValueRange{batch, channel, stateOf(k)})
                      .getResult()
                : e.constF32(0.0f);
        memref::StoreOp::create(e.b, h, carryS, wordOf(e.index(0), k));
      }
    });
    gpu::BarrierOp::create(e.b);

    // The loop carries the next chunk's loads, then the last segment's end
    // states (the final state after the loop).
    SmallVector<Value> inits = fetchChunk(e.index(0));
    int64_t fetched = inits.size();
    for (int64_t k = 0; k < states; ++k)
      inits.push_back(e.constF32(0.0f));
    Value step = e.index(l.chunkL);
    Value end = e.index(p.seq);
    Value begin = e.index(0);
    SmallVector<Value> results =
        e.forLoop(begin, end, step, inits, [&](Value c0, ValueRange args) {
          return chunk(c0, args.take_front(fetched));
        });
    if (!buf.finalState)
      return;
    ArrayRef<Value> hEnd = ArrayRef<Value>(results).drop_front(fetched);
    emitIf(e, arith::AndIOp::create(e.b, isLast, inChannels), [&] {
      for (int64_t k = 0; k < states; ++k)
        memref::StoreOp::create(e.b, hEnd[k], buf.finalState,
                                ValueRange{batch, channel, stateOf(k)});
    });
  }

private:
  /// The state this thread keeps in its k-th register.
  Value stateOf(int64_t k) { return e.add(firstState, e.index(k)); }
  /// This thread's word of state k in the P/H or carry block at `base`.
  Value wordOf(Value base, int64_t k) {
    return e.add(base, e.add(myWord, e.index(k * l.blockD)));
  }
  Value clampRow(Value row) { return e.min(row, e.index(p.seq - 1)); }
  Value inSequence(Value row) {
    return arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, row,
                                 e.index(p.seq));
  }
  /// Step i of this thread's segment of the chunk from c0.
  Value stepOf(Value c0, int64_t i) {
    Value item = e.index(i);
    Value offset = e.add(e.mul(segment, e.index(l.itemsPerThread)), item);
    return e.add(c0, offset);
  }

  /// This thread's global loads of the chunk from c0 (rows past the
  /// sequence read the last): delta, u, then z, K of each, then B of each
  /// step (`rawWidth()` values a step).
  SmallVector<Value> fetchChunk(Value c0) {
    SmallVector<Value> out;
    SmallVector<Value> sources = {buf.delta, buf.u};
    if (buf.z)
      sources.push_back(buf.z);
    for (Value source : sources)
      for (int64_t i = 0; i < l.itemsPerThread; ++i) {
        Value row = clampRow(stepOf(c0, i));
        out.push_back(memref::LoadOp::create(e.b, source,
                                             ValueRange{batch, row, channel}));
      }
    for (int64_t i = 0; i < l.itemsPerThread; ++i)
      out.append(loadRaw(clampRow(stepOf(c0, i)), /*isC=*/false));
    return out;
  }

  /// Values a step's B (or C) takes in registers: 16-byte words, or
  /// scalars of the input type.
  int64_t rawWidth() const {
    return words ? l.statesPerThread / kWord : l.statesPerThread;
  }

  /// B (or C, `isC`) of step `row` for this thread's states, as loaded.
  SmallVector<Value> loadRaw(Value row, bool isC) {
    SmallVector<Value> out;
    if (!words) {
      Value source = isC ? buf.c : buf.b;
      for (int64_t k = 0; k < l.statesPerThread; ++k)
        out.push_back(memref::LoadOp::create(
            e.b, source, ValueRange{batch, row, bcGroup, stateOf(k)}));
      return out;
    }
    Value view = isC ? cWords : bWords;
    Value wordsPerRow = e.index(p.state / kWord);
    Value groups = e.index(p.groups);
    Value token = e.add(e.mul(batch, e.index(p.seq)), row);
    Value tokenGroup = e.add(e.mul(token, groups), bcGroup);
    Value rowWords = e.mul(tokenGroup, wordsPerRow);
    Value first = e.add(rowWords, e.div(firstState, e.index(kWord)));
    for (int64_t j = 0; j < rawWidth(); ++j)
      out.push_back(
          memref::LoadOp::create(e.b, view, e.add(first, e.index(j))));
    return out;
  }

  /// The f32 values of a step's loaded B or C.
  SmallVector<Value> expand(ValueRange raw) {
    SmallVector<Value> out;
    for (Value v : raw) {
      if (!words) {
        out.push_back(e.toF32(v));
        continue;
      }
      for (int64_t k = 0; k < kWord; ++k) {
        Value bits = vector::ExtractOp::create(e.b, v, k);
        out.push_back(arith::BitcastOp::create(e.b, e.f32, bits));
      }
    }
    return out;
  }

  /// dt of this thread's steps from `raw` (delta widened, bias added):
  /// with SL state groups and a whole number of steps per group, group g
  /// computes the softplus of the steps g, g + SL, ... and the groups
  /// exchange them by shuffle idx (one softplus a step instead of SL).
  SmallVector<Value> stepSizes(ArrayRef<Value> raw) {
    int64_t items = l.itemsPerThread, groups = l.timeStateLanes;
    SmallVector<Value> dt;
    if (!p.softplus || groups == 1 || items % groups != 0) {
      for (Value v : raw)
        dt.push_back(p.softplus ? scanSoftplus(e, v) : v);
      return dt;
    }
    SmallVector<Value> soft;
    for (int64_t j = 0; j < items / groups; ++j) {
      Value v = raw[j * groups];
      for (int64_t g = 1; g < groups; ++g) {
        Value mine = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, group,
                                           e.index(g));
        v = e.select(mine, raw[j * groups + g], v);
      }
      soft.push_back(scanSoftplus(e, v));
    }
    // The subgroup lane of this channel's group 0.
    Value subLane =
        arith::RemUIOp::create(e.b, thread, e.index(l.subgroupSize));
    Value base = e.toI32(e.sub(subLane, e.mul(group, e.index(l.blockD))));
    for (int64_t i = 0; i < items; ++i) {
      Value src = e.add(base, e.constI32((i % groups) * l.blockD));
      dt.push_back(gpu::ShuffleOp::create(e.b, soft[i / groups], src,
                                          e.constI32(l.subgroupSize),
                                          gpu::ShuffleMode::IDX)
                       .getShuffleResult());
    }
    return dt;
  }

  /// One chunk from step c0 with its fetched loads; returns the next
  /// chunk's loads and this segment's end states.
  SmallVector<Value> chunk(Value c0, ValueRange fetched) {
    int64_t items = l.itemsPerThread, states = l.statesPerThread;
    Value zeroF = e.constF32(0.0f);
    Value two = e.index(2);
    Value chunkIndex = arith::DivUIOp::create(e.b, c0, e.index(l.chunkL));
    Value parity = arith::RemUIOp::create(e.b, chunkIndex, two);
    SmallVector<Value> rows, inside, raw, us, dtu;
    for (int64_t i = 0; i < items; ++i) {
      rows.push_back(stepOf(c0, i));
      inside.push_back(inSequence(rows.back()));
      Value v = e.toF32(fetched[i]);
      raw.push_back(bias ? e.fadd(v, bias) : v);
    }
    SmallVector<Value> dt = stepSizes(raw);
    for (int64_t i = 0; i < items; ++i) {
      dt[i] = e.select(inside[i], dt[i], zeroF);
      us.push_back(e.select(inside[i], e.toF32(fetched[items + i]), zeroF));
      dtu.push_back(e.fmul(dt[i], us[i]));
    }
    SmallVector<Value> next = fetchChunk(e.add(c0, e.index(l.chunkL)));

    // This segment's steps from h = 0: the state H_i and decay product P_i
    // after each (B fetched during the chunk before).
    int64_t bFirst = (buf.z ? 3 : 2) * items;
    SmallVector<SmallVector<Value>> prod(items), sum(items);
    for (int64_t i = 0; i < items; ++i) {
      SmallVector<Value> bs =
          expand(fetched.slice(bFirst + i * rawWidth(), rawWidth()));
      for (int64_t k = 0; k < states; ++k) {
        Value a = math::Exp2Op::create(e.b, e.fmul(dt[i], a2[k]));
        Value b = e.fmul(dtu[i], bs[k]);
        sum[i].push_back(
            i == 0 ? b
                   : math::FmaOp::create(e.b, a, sum[i - 1][k], b).getResult());
        prod[i].push_back(i == 0 ? a : e.fmul(prod[i - 1][k], a));
      }
    }
    int64_t block = l.timeStateLanes * l.segmentStride;
    // (P, H) of segment s in the chunk's parity: P at the returned base, H
    // one block further.
    auto segmentBase = [&](Value s) {
      Value index = e.add(e.mul(parity, e.index(l.timeSegments - 1)), s);
      return e.mul(index, e.index(2 * block));
    };
    if (l.timeSegments > 1) {
      Value notLast = arith::CmpIOp::create(
          e.b, arith::CmpIPredicate::ne, segment, e.index(l.timeSegments - 1));
      emitIf(e, notLast, [&] {
        Value base = segmentBase(segment);
        for (int64_t k = 0; k < states; ++k) {
          memref::StoreOp::create(e.b, prod[items - 1][k], phS,
                                  wordOf(base, k));
          memref::StoreOp::create(e.b, sum[items - 1][k], phS,
                                  wordOf(e.add(base, e.index(block)), k));
        }
      });
    }
    // C of this segment's steps, in flight during the barrier and the fold
    // (every global load of the chunk before its first store of y).
    SmallVector<SmallVector<Value>> cRaw;
    for (int64_t i = 0; i < items; ++i)
      cRaw.push_back(loadRaw(clampRow(rows[i]), /*isC=*/true));
    gpu::BarrierOp::create(e.b);

    // The state before this segment: the carry through the segments before.
    Value carryBase = e.mul(parity, e.index(block));
    SmallVector<Value> hIn;
    for (int64_t k = 0; k < states; ++k)
      hIn.push_back(memref::LoadOp::create(e.b, carryS, wordOf(carryBase, k)));
    if (l.timeSegments > 1) {
      Value segmentStep = e.index(1);
      Value firstSegment = e.index(0);
      hIn = e.forLoop(
          firstSegment, segment, segmentStep, hIn, [&](Value s, ValueRange h) {
            Value base = segmentBase(s);
            SmallVector<Value> out;
            for (int64_t k = 0; k < states; ++k) {
              Value pv = memref::LoadOp::create(e.b, phS, wordOf(base, k));
              Value hv = memref::LoadOp::create(
                  e.b, phS, wordOf(e.add(base, e.index(block)), k));
              out.push_back(math::FmaOp::create(e.b, pv, h[k], hv));
            }
            return out;
          });
    }
    SmallVector<Value> hEnd;
    for (int64_t k = 0; k < states; ++k)
      hEnd.push_back(math::FmaOp::create(e.b, prod[items - 1][k], hIn[k],
                                         sum[items - 1][k]));
    emitIf(e, isLast, [&] {
      Value blockSize = e.index(block);
      Value nextBase = e.mul(e.sub(e.index(1), parity), blockSize);
      for (int64_t k = 0; k < states; ++k)
        memref::StoreOp::create(e.b, hEnd[k], carryS, wordOf(nextBase, k));
    });

    // The outputs of this segment's steps: every y before any store.
    SmallVector<Value> ys;
    for (int64_t i = 0; i < items; ++i) {
      SmallVector<Value> cs = expand(cRaw[i]);
      Value y = zeroF;
      for (int64_t k = 0; k < states; ++k) {
        Value h = math::FmaOp::create(e.b, prod[i][k], hIn[k], sum[i][k]);
        y = math::FmaOp::create(e.b, cs[k], h, y);
      }
      ys.push_back(y);
    }
    Value group0 =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, group, e.index(0));
    Value owner = arith::AndIOp::create(e.b, group0, inChannels);
    Type outType = cast<MemRefType>(buf.y.getType()).getElementType();
    for (int64_t i = 0; i < items; ++i) {
      Value y = ys[i];
      for (int64_t off = l.blockD; off < l.blockD * l.timeStateLanes;
           off *= 2) {
        Value width = e.constI32(l.subgroupSize);
        Value offset = e.constI32(off);
        Value other =
            gpu::ShuffleOp::create(e.b, y, offset, width, gpu::ShuffleMode::XOR)
                .getShuffleResult();
        y = e.fadd(y, other);
      }
      if (skip)
        y = math::FmaOp::create(e.b, skip, us[i], y);
      if (buf.z)
        y = siluGate(e, y, fetched[2 * items + i]);
      emitIf(e, arith::AndIOp::create(e.b, owner, inside[i]), [&] {
        memref::StoreOp::create(e.b, e.fromF32(y, outType), buf.y,
                                ValueRange{batch, rows[i], channel});
      });
    }
    next.append(hEnd);
    return next;
  }

  Emitter e;
  const VulkanSelectiveScanPlan &p;
  const VulkanScanLayout &l;
  const SelectiveScanBuffers &buf;
  /// Whether B and C are read as 16-byte words (f32, whole words a thread).
  bool words = false;
  Value batch, thread, group, segment, channel, bcGroup, firstState, inChannels;
  Value isLast, myWord, skip, bias;
  Value bWords, cWords, phS, carryS;
  /// A[d, n] * log2(e) of this thread's channel, per state.
  SmallVector<Value> a2;
};

} // namespace

void mlir::ejk::buildVulkanSelectiveScanSegmentsBody(
    OpBuilder &builder, Location loc, const VulkanSelectiveScanPlan &plan,
    const SelectiveScanBuffers &buffers) {
  SegmentsScanBuilder(builder, loc, plan, buffers).build();
}
