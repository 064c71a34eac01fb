//===- CoopUpdate.cpp - the chunk-parallel update on cooperative matrices -===//
//
// Workgroup = (chunk slot, head, V block), as the SIMT update
// (ChunkUpdate.cpp): dS = (k exp(B_last - B))^T v, here as 16x16x16
// products of f16 operands with f32 accumulators. Per stage of 32 (or 16)
// steps the gated keys [steps, K padded to 16] and the values [steps,
// block_v] go to workgroup memory as f16 (the gate applied in f32 first;
// every factor is <= 1); the subgroups then take the dS tiles (key tile x
// value tile, CoopKernel.h's round-robin), the keys read transposed
// (column-major) as the A operand. dS goes to the f16 states temporary
// through each subgroup's 16x16 f32 stage.
//
//===----------------------------------------------------------------------===//

#include "Linear/Vulkan/CoopKernel.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::chunk_parallel;

namespace {

class CoopUpdateKernel : public CoopKernel {
public:
  using CoopKernel::CoopKernel;

  void build() {
    beginCoop();
    withChunkOfSlot(WorkgroupIdOp::create(e.b, 0), [&] { update(); });
  }

private:
  void update() {
    int64_t kTiles = ceilDiv(p.dimK, kT), kPad = kTiles * kT;
    int64_t colTiles = l.blockV / kT, total = kTiles * colTiles;
    int64_t steps = l.coopSteps;
    Value blockV = e.index(l.blockV);
    v0 = e.mul(WorkgroupIdOp::create(e.b, 2), blockV);
    Value kStage = allocWorkgroupOf(e, steps * kPad, f16);
    Value vStage = allocWorkgroupOf(e, steps * l.blockV, f16);
    Value outStage = allocWorkgroupOf(e, l.subgroups() * kT * kT, e.f32);
    Value lastGate = updateLastGate();

    SmallVector<Value> inits;
    for (int64_t m = 0; m < l.updateSlots; ++m)
      inits.push_back(zeroMatrix());
    inits.push_back(e.constF32(0.0f)); // the column's running B
    Value tileSteps = e.index(steps);
    Value numTiles = e.div(e.add(len, e.index(steps - 1)), tileSteps);
    SmallVector<Value> acc = e.forLoop(
        zero, numTiles, one, inits,
        [&](Value ti, ValueRange accIn) -> SmallVector<Value> {
          Value s0 = e.mul(ti, e.index(steps));
          Value running = stageUpdateKeys(kStage, s0, steps, kPad, lastGate,
                                          accIn.back(), /*batched=*/true);
          stageValues(vStage, s0, steps, /*batched=*/true);
          gpu::BarrierOp::create(e.b);
          SmallVector<Value> next(accIn.drop_back().begin(),
                                  accIn.drop_back().end());
          for (int64_t m = 0; m < l.updateSlots; ++m) {
            Value tile = tileOf(m, total);
            Value kt = arith::DivUIOp::create(e.b, tile, e.index(colTiles));
            Value vt = arith::RemUIOp::create(e.b, tile, e.index(colTiles));
            for (int64_t s = 0; s < steps; s += kT) {
              // Rows kt of (gated keys)^T: the stage read column-major.
              Value keyAt = e.mul(kt, e.index(kT));
              Value kAt = e.add(e.index(s * kPad), keyAt);
              Value keys = loadMatrix(e, aType, kStage, kAt, kPad,
                                      /*transpose=*/true);
              Value colAt = e.mul(vt, e.index(kT));
              Value vAt = e.add(e.index(s * l.blockV), colAt);
              Value values = loadMatrix(e, bType, vStage, vAt, l.blockV,
                                        /*transpose=*/false);
              next[m] = mma(keys, values, next[m]);
            }
          }
          gpu::BarrierOp::create(e.b);
          next.push_back(running);
          return next;
        });

    for (int64_t m = 0; m < l.updateSlots; ++m) {
      Value tile = tileOf(m, total);
      Value owns = ownsTile(m, total);
      Value kt = arith::DivUIOp::create(e.b, tile, e.index(colTiles));
      Value vt = arith::RemUIOp::create(e.b, tile, e.index(colTiles));
      writeMatrix(acc[m], outStage, [&](Value r, Value c, Value value) {
        Value k = e.add(e.mul(kt, e.index(kT)), r);
        Value v = e.add(v0, e.add(e.mul(vt, e.index(kT)), c));
        Value inColumns = cmp(arith::CmpIPredicate::slt, v, e.index(p.dimV));
        Value inKeys = cmp(arith::CmpIPredicate::slt, k, e.index(p.dimK));
        Value inBlock = arith::AndIOp::create(e.b, inKeys, inColumns);
        Value inside = arith::AndIOp::create(e.b, owns, inBlock);
        emitIf(e, inside, [&] {
          storeAs(value, tmp.states, {slot(), head, k, v});
        });
      });
    }
  }
};

} // namespace

void mlir::ejk::chunk_parallel::buildCoopUpdate(OpBuilder &builder,
                                                Location loc,
                                                const GlaProblem &p,
                                                const VulkanGlaChunkLayout &l,
                                                const GlaBuffers &buf,
                                                const Temporaries &tmp) {
  CoopUpdateKernel(builder, loc, p, l, buf, tmp).build();
}
