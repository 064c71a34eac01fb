//===- InOrderScan.h - the recurrent Vulkan kernels' common walk -*- C++
//-*-===//
//
// What gla's recurrent kernel (Kernel.cpp: gla, lightning, recurrent) and
// the delta rule's (DeltaKernel.cpp) share: workgroup = (head_dim_v block,
// head, sequence) on gla's thread layout (Kernel.h: thread t owns column
// t / TK of the block and the keys t % TK, t % TK + TK, ... of it, its
// entries S[k, v] of the f32 state in registers), the packed sequences
// (the filler workgroup zeroes the output steps outside every sequence),
// the shared stages every kernel has (q, k, the key decays, v, o), the
// initial state, the walk over the chunks in order (stage, barrier, the
// recurrence, barrier, output) and the final state. The kernel class
// (`Derived`) supplies what differs:
//
//   bool keyDecayStaged()            whether the stage holds a decay per key
//   void allocExtraStages(keys, values)
//                                    its own stages (after o), loaded
//                                    constants
//   void stage(c0)                   the chunk's operands to the stages
//   SmallVector<Value> recur(len, state)
//                                    the chunk's steps; o to its stage
//
// Builder calls stand one a statement (docs/determinism.md).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_INORDERSCAN_H
#define EJK_OPS_LINEAR_VULKAN_INORDERSCAN_H

#include "Attention/Vulkan/Scores.h"
#include "Linear/Sequences.h"
#include "Linear/Vulkan/Kernel.h"
#include "Linear/Vulkan/SlotKernel.h"
#include "StateSpace/Vulkan/Kernels.h"

namespace mlir::ejk {

template <typename Derived, typename Plan, typename Buffers>
class InOrderScanBuilder {
public:
  InOrderScanBuilder(OpBuilder &builder, Location loc, const Plan &plan,
                     const Buffers &buffers)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers) {}

  void build() {
    Value vBlock = WorkgroupIdOp::create(e.b, 0);
    head = WorkgroupIdOp::create(e.b, 1);
    seqId = WorkgroupIdOp::create(e.b, 2);
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    zero = e.index(0);
    one = e.index(1);
    v0 = e.mul(vBlock, e.index(l.blockV));
    kvHead = e.div(head, e.index(p.headsPerKv()));
    if (!p.packed) {
      batchIdx = seqId;
      start = zero;
      end = e.index(p.seq);
      scan();
      return;
    }
    batchIdx = zero;
    Value filler = cmp(arith::CmpIPredicate::eq, seqId, e.index(p.numSeqs));
    emitIf(e, filler, [&] {
      emitZeroUncovered(e, p, buf, zero, thread, l.threads, batchIdx, head, v0,
                        l.blockV);
    });
    emitIf(
        e,
        arith::XOrIOp::create(
            e.b, filler, arith::ConstantOp::create(e.b, e.b.getBoolAttr(true))),
        [&] {
          start = cuEntry(seqId);
          end = e.max(cuEntry(e.add(seqId, one)), start);
          scan();
        });
  }

protected:
  Derived &self() { return static_cast<Derived &>(*this); }

  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(e.b, pred, x, y);
  }
  Value load(Value memref, ValueRange indices) {
    return memref::LoadOp::create(e.b, memref, indices);
  }
  void store(Value value, Value memref, ValueRange indices) {
    memref::StoreOp::create(e.b, value, memref, indices);
  }

  /// clamp(cu_seqlens[i], 0, seq).
  Value cuEntry(Value i) {
    return emitSequenceEdge(e, buf.cuSeqlens, i, p.seq);
  }

  Type outputType() {
    return cast<MemRefType>(buf.output.getType()).getElementType();
  }

  /// The step of index `i` (in scan order) of the sequence.
  Value rowOf(Value i) {
    return p.reverse ? e.sub(e.sub(end, one), i) : e.add(start, i);
  }

  void scan() {
    seqLen = e.sub(end, start);
    Value tk = e.index(l.threadsPerColumn);
    Value lane = arith::RemUIOp::create(e.b, thread, tk);
    myLocal = arith::DivUIOp::create(e.b, thread, tk);
    myColumn = e.add(v0, myLocal);
    isLane0 = cmp(arith::CmpIPredicate::eq, lane, zero);

    int64_t keyElems = l.chunk * l.kPad();
    int64_t valueElems = l.chunk * l.blockV;
    qS = allocWorkgroup(e, keyElems);
    kS = allocWorkgroup(e, keyElems);
    if (self().keyDecayStaged())
      decayS = allocWorkgroup(e, keyElems);
    vS = allocWorkgroup(e, valueElems);
    oS = allocWorkgroup(e, valueElems);
    self().allocExtraStages(keyElems, valueElems);

    // This thread's keys (clamped), whether each is a real key (null when
    // always), and its entries of the initial state.
    SmallVector<Value> s;
    Value column = e.min(myColumn, e.index(p.dimV - 1));
    for (int64_t j = 0; j < l.keysPerThread; ++j) {
      Value k = e.add(lane, e.index(j * l.threadsPerColumn));
      myKeys.push_back(k);
      keyValid.push_back(
          (j + 1) * l.threadsPerColumn <= p.dimK
              ? Value()
              : cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK)));
      Value s0 = e.constF32(0.0f);
      if (buf.initialState) {
        s0 = load(buf.initialState,
                  {seqId, head, e.min(k, e.index(p.dimK - 1)), column});
        if (keyValid[j])
          s0 = e.select(keyValid[j], s0, e.constF32(0.0f));
      }
      s.push_back(s0);
    }

    Value chunk = e.index(l.chunk);
    Value numChunks = e.div(e.add(seqLen, e.index(l.chunk - 1)), chunk);
    s = e.forLoop(zero, numChunks, one, s, [&](Value ci, ValueRange state) {
      Value c0 = e.mul(ci, chunk);
      Value len = e.min(chunk, e.sub(seqLen, c0));
      self().stage(c0);
      gpu::BarrierOp::create(e.b);
      SmallVector<Value> next = self().recur(len, state);
      gpu::BarrierOp::create(e.b);
      output(c0, len);
      return next;
    });
    if (buf.finalState)
      storeFinalState(s);
  }

  /// The chunk's outputs for its steps and the block's columns inside the
  /// problem.
  void output(Value c0, Value len) {
    forEachShared(e, l.threads, thread, l.chunk * l.blockV, [&](Value i) {
      BlockElement x = blockElement(e, i, l.blockV, v0, len, p.dimV);
      emitIf(e, x.inside, [&] {
        Value o = load(oS, {i});
        Value row = rowOf(e.add(c0, x.t));
        Value out = e.fromF32(o, outputType());
        store(out, buf.output, {batchIdx, row, head, x.col});
      });
    });
  }

  void storeFinalState(ArrayRef<Value> s) {
    Value owned = cmp(arith::CmpIPredicate::slt, myColumn, e.index(p.dimV));
    emitIf(e, owned, [&] {
      for (int64_t j = 0; j < l.keysPerThread; ++j) {
        auto storeEntry = [&] {
          store(s[j], buf.finalState, {seqId, head, myKeys[j], myColumn});
        };
        if (keyValid[j])
          emitIf(e, keyValid[j], storeEntry);
        else
          storeEntry();
      }
    });
  }

  Emitter e;
  const Plan &p;
  const VulkanGlaLayout &l;
  const Buffers &buf;
  Value head, seqId, thread, zero, one, v0, kvHead, batchIdx, start, end,
      seqLen;
  Value myLocal, myColumn, isLane0;
  Value qS, kS, decayS, vS, oS;
  /// Per state entry of this thread: its key index (unclamped), whether it
  /// is a real key (null when always).
  SmallVector<Value> myKeys, keyValid;
};

} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_INORDERSCAN_H
