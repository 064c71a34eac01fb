//===- ChunkUpdate.cpp - the chunk-parallel update (per-chunk states) ===//
//
// Workgroup = (chunk slot, head, V block): the chunk's own state
// contribution dS = sum_s (k_s exp(B_last - B_s))^T v_s and its decay
// exp(B_last); with per-step gates the column threads also write B for the
// outputs (ChunkParallel.h).
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/ChunkKernel.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::chunk_parallel;

namespace {

class UpdateKernel : public ChunkKernel {
public:
  using ChunkKernel::ChunkKernel;

  void build() {
    begin();
    withChunkOfSlot(WorkgroupIdOp::create(e.b, 0), [&] { update(); });
  }

private:
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
};

} // namespace

void mlir::ejk::chunk_parallel::buildChunkUpdate(OpBuilder &builder,
                                                 Location loc,
                                                 const GlaProblem &p,
                                                 const VulkanGlaChunkLayout &l,
                                                 const GlaBuffers &buf,
                                                 const Temporaries &tmp) {
  UpdateKernel(builder, loc, p, l, buf, tmp).build();
}
