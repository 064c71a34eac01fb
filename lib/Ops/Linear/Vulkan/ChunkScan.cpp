//===- ChunkScan.cpp - the chunk-parallel scan of states over chunks ===//
//
// Workgroup = (256 state entries, head, sequence): per entry S_c =
// exp(B_last,c) S_{c-1} + dS_c over the sequence's chunks, the state before
// each chunk written over dS_c, then the final state (ChunkParallel.h).
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/ChunkKernel.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::chunk_parallel;

namespace {

class ScanKernel : public ChunkKernel {
public:
  using ChunkKernel::ChunkKernel;

  void build() {
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

private:
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
    Value unroll = e.index(kUnroll);
    Value rounds = e.div(e.add(count, e.index(kUnroll - 1)), unroll);
    Value last = e.max(e.sub(count, one), zero);
    Value state = e.forLoop(
        zero, rounds, one, {s0},
        [&](Value r, ValueRange s) -> SmallVector<Value> {
          SmallVector<Value> valid, at, delta, decay;
          for (int64_t i = 0; i < kUnroll; ++i) {
            Value offset = e.index(i);
            Value c = e.add(e.mul(r, e.index(kUnroll)), offset);
            valid.push_back(cmp(arith::CmpIPredicate::slt, c, count));
            at.push_back(e.add(base, e.min(c, last)));
            delta.push_back(load(tmp.states, {at[i], head, k, v}));
            if (mode == GateMode::PerStep) {
              decay.push_back(memref::LoadOp::create(
                  e.b, tmp.decays, ValueRange{at[i], head, k}));
            } else if (mode == GateMode::Constant) {
              Value rest = e.sub(seqLen, e.mul(c, e.index(l.chunk)));
              Value steps = e.min(e.index(l.chunk), rest);
              decay.push_back(e.exp(e.fmul(
                  gamma, arith::SIToFPOp::create(e.b, e.f32, e.toI32(steps)))));
            }
          }
          Value cur = s[0];
          for (int64_t i = 0; i < kUnroll; ++i) {
            Value before = cur;
            emitIf(e, valid[i], [&] {
              storeAs(before, tmp.states, {at[i], head, k, v});
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
};

} // namespace

void mlir::ejk::chunk_parallel::buildChunkScan(OpBuilder &builder, Location loc,
                                               const GlaProblem &p,
                                               const VulkanGlaChunkLayout &l,
                                               const GlaBuffers &buf,
                                               const Temporaries &tmp) {
  ScanKernel(builder, loc, p, l, buf, tmp).build();
}
