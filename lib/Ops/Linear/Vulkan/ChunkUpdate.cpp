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
    Value blockV = e.index(l.blockV);
    v0 = e.mul(WorkgroupIdOp::create(e.b, 2), blockV);
    Value kTile = allocWorkgroup(e, tile * kPad);
    Value vTile = allocWorkgroup(e, tile * l.blockV);
    // B_last per key: from a first pass over the gates, the whole chunk's
    // loads at once up to 64 steps, else 16 at a time (per-step gates;
    // chunks are multiples of 16; the first V block also writes B for the
    // outputs), or gamma * len.
    int64_t gateBatch = l.chunk <= 64 ? l.chunk : tile;
    Value lastGate = updateLastGate(gateBatch);

    // dS over tiles of 16 steps: the gated keys k exp(B_last - B_s) (with
    // per-step gates each column thread stages its key, B_s running from
    // tile to tile), the values by every thread. Both stages issue their
    // loads before their stores (batched): as loops of load-then-store
    // rounds they waited on memory once per round.
    SmallVector<Value> inits(l.kPer * l.vPer, e.constF32(0.0f));
    inits.push_back(e.constF32(0.0f)); // the column's running B
    Value tileSize = e.index(tile);
    Value roundUp = e.add(len, e.index(tile - 1));
    Value numTiles = e.div(roundUp, tileSize);
    SmallVector<Value> acc =
        e.forLoop(zero, numTiles, one, inits,
                  [&](Value ti, ValueRange accIn) -> SmallVector<Value> {
                    Value s0 = e.mul(ti, e.index(tile));
                    Value running = stageUpdateKeys(kTile, s0, tile, kPad,
                                                    lastGate, accIn.back(),
                                                    /*batched=*/true);
                    stageValues(vTile, s0, tile, /*batched=*/true);
                    gpu::BarrierOp::create(e.b);
                    SmallVector<Value> next(accIn.drop_back().begin(),
                                            accIn.drop_back().end());
                    for (int64_t s = 0; s < tile; ++s) {
                      SmallVector<Value> ks, vs;
                      for (int64_t i = 0; i < l.kPer; ++i) {
                        Value row = stateRow(i);
                        Value at = e.add(e.index(s * kPad), row);
                        ks.push_back(memref::LoadOp::create(e.b, kTile, at));
                      }
                      for (int64_t j = 0; j < l.vPer; ++j) {
                        Value col = stateCol(j);
                        Value at = e.add(e.index(s * l.blockV), col);
                        vs.push_back(memref::LoadOp::create(e.b, vTile, at));
                      }
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
        Value inColumns = cmp(arith::CmpIPredicate::slt, v, e.index(p.dimV));
        Value inKeys = cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK));
        Value inside = arith::AndIOp::create(e.b, inKeys, inColumns);
        emitIf(e, inside, [&] {
          storeAs(acc[i * l.vPer + j], tmp.states, {slot(), head, k, v});
        });
      }
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
