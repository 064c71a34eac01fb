//===- DeltaChunk.h - the chunk-parallel delta rule on Vulkan ---*- C++ -*-===//
//
// `chunk_parallel = 1` for `ejk.delta_attention`: the chunks of a sequence
// run in parallel except for one sequential pass of the state, in up to
// four dispatches (DeltaChunk.cpp). With B_t the cumulative log decay of
// chunk step t from the chunk's start (inclusive; per head or per key dim),
// k and q l2-normalized when the op asks, per chunk:
//
//   gates    workgroup = (chunk slot, head), decayed ops only: B per step
//            (and key dim), into a temporary
//   prepare  workgroup = (chunk slot, head): the strictly lower
//              A[t, s] = beta_t sum_k k_t k_s exp(B_t - B_s)     (s < t)
//            over key tiles, then per column of [K~ | V] (one a thread)
//            the forward substitution of (I + A) [W | U] =
//            diag(beta) [K exp(B) | V] (the UT transform of the WY form),
//            and the keys decayed to the chunk's end Kd = k exp(B_last - B)
//   state    workgroup = (block_v columns, head, sequence), the chunks in
//            order: S_c (before the chunk) written out, the new values
//            U - W S_c over U, S_{c+1} = exp(B_last) S_c + Kd^T (U - W S_c)
//   outputs  workgroup = (chunk slot [+ filler], head, V block of up to
//            128 columns, fewer where shared memory is short): P[t, s] = scale
//            sum_k q_t k_s exp(B_t - B_s) (s <= t) and (scale q exp(B)) S_c in
//            one pass over key tiles, then O = that + P (U - W S_c)
//
// With `cooperative = 1` (f16 and bf16 inputs, per-head or no decay) the
// outputs' products run on 16x16x16 f16 cooperative matrices with f32
// accumulators (DeltaCoopOutputs.cpp); with `cooperative = 2` the state
// pass's (DeltaCoopState.cpp; the prepare then also writes W and Kd in
// f16) and, where their stages fit, the outputs' in fla's chunk_fwd_o
// layout, reading the f16 states and new values the state pass wrote
// (DeltaCoopOutputs.cpp; in 16-byte words where the device has 16-bit
// integers and shuffles, DeltaWordOutputs.cpp). The gates and the prepare
// stay SIMT.
//
// Chunk slots as gla's chunk-parallel kernel (ChunkParallel.h): batch row
// n's chunk c is slot n ceil(T / C) + c; with cu_seqlens, sequence n's
// chunks are at floor(s_n / C) + n + c.
//
// Every exponent is <= 0 for decays <= 0 (B_t, B_t - B_s for s <= t,
// B_last - B_t), so nothing overflows however strong the decay: a per-head
// ratio is one exp per pair, a per-key one an exp per key and pair (the
// exact form; no factoring). All arithmetic is f32 SIMT, except the
// cooperative outputs' products (f16 operands, f32 accumulators).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_LINEAR_VULKAN_DELTACHUNK_H
#define EJK_OPS_LINEAR_VULKAN_DELTACHUNK_H

#include "Attention/Vulkan/Scores.h"
#include "Common/Arithmetic.h"
#include "Linear/Vulkan/SlotKernel.h"

#include "ejk/Ops/DispatchRewriter.h"
#include "ejk/Ops/Linear/DeltaProblem.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <tuple>

namespace mlir::ejk {

struct VulkanDeltaChunkLayout {
  /// Steps per chunk; head_dim_v columns per workgroup of the state pass
  /// and of the outputs.
  int64_t chunk = 0, blockV = 0, outBlockV = 0;
  static constexpr int64_t kThreads = 256, kGrid = 16;
  /// Keys per tile of the scores (and steps per tile of the products).
  static constexpr int64_t kTile = 16;
  /// Floats per chunk row of a staged key tile: one more than kTile, so that
  /// the 16 threads of a row reading column kk of 16 different rows hit 16
  /// banks (a pitch of 16 put them on 2 banks: 8-way conflicts on every
  /// load of K^T in the scores).
  static constexpr int64_t kTilePitch = kTile + 1;
  /// Register blocks: state rows, state columns, chunk rows, output
  /// columns per thread.
  int64_t kPer = 0, vPer = 0, cPer = 0, outVPer = 0;
  /// Steps per tile of the state update's decayed keys: 16, or 8 where 16
  /// does not fit shared memory.
  int64_t updateTile = 0;
  int64_t prepareSharedBytes = 0, stateSharedBytes = 0, outputSharedBytes = 0;

  /// `cooperative` = 1: the outputs on cooperative matrices of
  /// `kThreads / subgroupSize` subgroups, `outputSlots` O tiles and
  /// `scoreSlots` score tiles per subgroup, keys staged `coopKeyTile` at a
  /// time (DeltaCoopOutputs.cpp). `cooperative` = 2: the state pass on
  /// them (`coopState`, DeltaCoopState.cpp) and, with `directOutputs`, the
  /// outputs too, reading the f16 states and new values the state pass
  /// wrote (DeltaCoopOutputs.cpp).
  bool cooperative = false, coopState = false, directOutputs = false;
  /// With `directOutputs`: the outputs in 16-byte words
  /// (DeltaWordOutputs.cpp), the states temporary transposed ([V, K] a
  /// chunk and head).
  bool wordOutputs = false;
  int64_t subgroupSize = 0, outputSlots = 0, scoreSlots = 0, coopKeyTile = 0;
  static constexpr int64_t kMatrix = 16, kMaxMatrices = 12;
  int64_t subgroups() const { return kThreads / subgroupSize; }
  /// The cooperative outputs' f16 stage: the normalized q, q scaled for
  /// q S, k (key tiles), then S rows; later the chunk's new values.
  int64_t coopStageHalves() const {
    return std::max(3 * chunk * coopKeyTile + coopKeyTile * outBlockV,
                    chunk * outBlockV);
  }
  /// Halves per row of the cooperative state pass's f16 stages of S and N
  /// (block_v columns and one 16-byte word more: rows of 64 bytes put the
  /// rows of a matrix load on the same banks every other row).
  static int64_t coopStatePitch(int64_t blockV) { return blockV + 8; }
  /// The f32 scores of the chunk, also each subgroup's 16x16 output stage.
  int64_t coopScoreFloats() const {
    return std::max(chunk * chunk, subgroups() * kMatrix * kMatrix);
  }

  /// Entries per thread the kernels keep in registers, at most.
  static constexpr int64_t kMaxRegisters = 64;
  /// The largest chunk: the prepare and the outputs keep a chunk x chunk
  /// matrix in shared memory.
  static constexpr int64_t kMaxChunk = 64;

  int64_t kPad() const { return kPer * kGrid; }

  /// The layout of `p` with chunks of `chunk` and `blockV` state columns on
  /// `target`, or nullopt with the reason on `reason`.
  static std::optional<VulkanDeltaChunkLayout>
  compute(const DeltaProblem &p, int64_t chunk, int64_t blockV,
          int64_t cooperative, const TargetInfo &target,
          llvm::raw_ostream &reason);

private:
  /// The cooperative outputs' V block and stages (`form` 1) or the
  /// cooperative state pass's rules and stages (2); false with the reason.
  bool computeCooperative(const DeltaProblem &p, const TargetInfo &target,
                          llvm::raw_ostream &reason, int64_t form);
  /// `cooperative` = 2's outputs on matrices: V block, tiles, stages;
  /// false (the outputs SIMT) where the stages do not fit.
  bool computeDirectOutputs(const DeltaProblem &p, const TargetInfo &target);
  /// The direct outputs in 16-byte words (`wordOutputs`) where their rules
  /// hold and their stages fit.
  void computeWordOutputs(const DeltaProblem &p, const TargetInfo &target);
};

/// Emits the dispatches of the chunk-parallel delta rule for `op` (its
/// buffers `buf`).
LogicalResult tileVulkanDeltaChunkParallel(Operation *op, const DeltaProblem &p,
                                           const VulkanDeltaChunkLayout &layout,
                                           const DeltaBuffers &buf,
                                           DispatchRewriter &rewriter);

namespace delta_chunk {

/// The temporaries, per chunk slot and head: the cumulative log decays B
/// ([C] or [C, K]; decayed ops only), W and Kd ([C, K]), U, then the new
/// values ([C, V]), and the state before the chunk ([K, V]). With the
/// cooperative state pass Kd is f16 and W has an f16 copy `w16` (the
/// matrices' operands; the prepare's solve reads W back in f32); with its
/// outputs on matrices too (`directOutputs`) the states are f16 and the new
/// values go to `n16` ([C, V] f16) instead of over U.
struct Temporaries {
  Value gates, w, kd, u, states, w16, n16;
};

inline int64_t maxChunks(const DeltaProblem &p,
                         const VulkanDeltaChunkLayout &l) {
  return ceilDiv(std::max<int64_t>(1, p.seq), l.chunk);
}

/// Chunk slots (the outputs add a filler slot with cu_seqlens).
inline int64_t numSlots(const DeltaProblem &p,
                        const VulkanDeltaChunkLayout &l) {
  return p.packed ? maxChunks(p, l) + p.numSeqs : p.batch * maxChunks(p, l);
}

/// What the kernels share: the workgroup's sequence and chunk
/// (SlotKernel.h), the steps in scan order, the thread grid.
class Kernel : public SlotKernel<DeltaProblem, VulkanDeltaChunkLayout,
                                 DeltaBuffers, Temporaries> {
public:
  using SlotKernel::SlotKernel;

protected:
  static constexpr int64_t G = VulkanDeltaChunkLayout::kGrid;

  Value lt(Value x, Value y) { return cmp(arith::CmpIPredicate::slt, x, y); }
  Value andI(Value x, Value y) { return arith::AndIOp::create(e.b, x, y); }
  void store(Value value, Value memref, ValueRange indices) {
    memref::StoreOp::create(e.b, value, memref, indices);
  }
  Value zeroF() { return e.constF32(0.0f); }
  Value orZero(Value valid, Value x) { return e.select(valid, x, zeroF()); }
  Value udiv(Value x, int64_t d) {
    return arith::DivUIOp::create(e.b, x, e.index(d));
  }
  Value urem(Value x, int64_t d) {
    return arith::RemUIOp::create(e.b, x, e.index(d));
  }
  Value clampK(Value k) { return e.min(k, e.index(p.dimK - 1)); }
  Value clampV(Value v) { return e.min(v, e.index(p.dimV - 1)); }
  /// exp(min(x, 0)): a decay ratio that is <= 1 also where it is masked.
  Value expNonPositive(Value x) {
    return e.exp(arith::MinNumFOp::create(e.b, x, zeroF()));
  }
  /// 1 / sqrt(sum + eps) (ejKernel's l2-norm epsilon).
  Value inverseNorm(Value sumSquares) {
    // One op per statement, in the order GCC built them.
    Value epsilon = e.constF32(1e-6f);
    Value sum = e.fadd(sumSquares, epsilon);
    Value root = math::SqrtOp::create(e.b, sum);
    Value unit = e.constF32(1.0f);
    return e.fdiv(unit, root);
  }

  void begin() {
    thread = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    head = WorkgroupIdOp::create(e.b, 1);
    kvHead = e.div(head, e.index(p.headsPerKv()));
    rowThread = udiv(thread, G);
    colThread = urem(thread, G);
  }

  /// The thread's rows and columns of the chunk (16 a + rowThread, 16 b +
  /// colThread).
  Value row(int64_t a) { return e.add(rowThread, e.index(a * G)); }
  Value col(int64_t b) { return e.add(colThread, e.index(b * G)); }

  /// Where element i (step i / kTile, key i % kTile) of a staged key tile
  /// lies: rows kTilePitch floats apart.
  Value keyTileSlot(Value i) {
    return e.add(i, udiv(i, VulkanDeltaChunkLayout::kTile));
  }

  /// Column kk of the thread's rows (`byColumn`: its columns) of `tile`, a
  /// [chunk, width] stage in shared memory, into `values`, and of
  /// `gateTile` (when given) into `gates`.
  void loadTileColumn(Value tile, Value gateTile, bool byColumn, int64_t width,
                      int64_t kk, SmallVectorImpl<Value> &values,
                      SmallVectorImpl<Value> &gates) {
    for (int64_t a = 0; a < l.cPer; ++a) {
      // One op per statement, in the order GCC built them.
      Value key = e.index(kk);
      Value pitch = e.index(width);
      Value line = byColumn ? col(a) : row(a);
      Value lineAt = e.mul(line, pitch);
      Value idx = e.add(lineAt, key);
      values.push_back(memref::LoadOp::create(e.b, tile, idx));
      if (gateTile)
        gates.push_back(memref::LoadOp::create(e.b, gateTile, idx));
    }
  }

  /// The loop over tiles of `kt` keys: `body` with the tile's first key k0
  /// and the accumulators, from `inits`.
  SmallVector<Value>
  forKeyTiles(int64_t kt, ValueRange inits,
              function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    return e.forLoop(zero, e.index(ceilDiv(p.dimK, kt)), one, inits,
                     [&](Value kb, ValueRange accIn) -> SmallVector<Value> {
                       Value k0 = e.mul(kb, e.index(kt));
                       return body(k0, accIn);
                     });
  }

  /// Element i of a [chunk, kt] stage of keys from k0: its chunk step t,
  /// key k and whether both lie inside the chunk and head_dim_k.
  std::tuple<Value, Value, Value> keyTileElement(Value i, Value k0,
                                                 int64_t kt) {
    Value t = udiv(i, kt);
    Value k = e.add(k0, urem(i, kt));
    Value inKeys = lt(k, e.index(p.dimK));
    Value inChunk = lt(t, len);
    Value valid = andI(inChunk, inKeys);
    return {t, k, valid};
  }

  /// Sets chunk (its index in the sequence), c0, len and slot.
  void setChunk(Value index) {
    chunkIndex = index;
    c0 = e.mul(chunkIndex, e.index(l.chunk));
    Value rest = e.sub(seqLen, c0);
    Value steps = e.index(l.chunk);
    len = e.min(steps, rest);
    slot = e.add(baseSlot(seqId), chunkIndex);
  }

  /// Runs `body` with the sequence and chunk of `slotId` when the slot
  /// holds a chunk.
  void withChunkOfSlot(Value slotId, function_ref<void()> body) {
    Value index = locateSlot(slotId);
    Value inside = p.packed ? slotInSequence(index) : lt(index, chunkCount());
    emitIf(e, inside, [&] {
      setChunk(index);
      body();
    });
  }

  /// The outputs' workgroup (DeltaChunkOutputs.cpp, DeltaCoopOutputs.cpp):
  /// v0 from workgroup z; the filler slot (with cu_seqlens) zeroes the
  /// steps outside every sequence; `body` with the chunk of the slot.
  void withOutputChunk(function_ref<void()> body) {
    Value slotId = WorkgroupIdOp::create(e.b, 0);
    Value width = e.index(l.outBlockV);
    Value block = WorkgroupIdOp::create(e.b, 2);
    v0 = e.mul(block, width);
    if (p.packed)
      emitIf(e, cmp(arith::CmpIPredicate::eq, slotId, e.index(numSlots(p, l))),
             [&] { zeroUncovered(v0, l.outBlockV); });
    withChunkOfSlot(slotId, body);
  }

  /// B of chunk step `t` (clamped into the chunk) at key `k` (ignored per
  /// head), from the gates temporary.
  Value cumGate(Value t, Value k) {
    Value tc = e.min(t, e.sub(len, one));
    if (p.decay == DeltaDecay::PerKey)
      return memref::LoadOp::create(e.b, tmp.gates,
                                    ValueRange{slot, head, tc, k});
    return memref::LoadOp::create(e.b, tmp.gates, ValueRange{slot, head, tc});
  }

  /// A stage's loads: the element index and the values of each round.
  struct Staged {
    int64_t total;
    SmallVector<Value> index;
    SmallVector<SmallVector<Value>> values;
  };

  /// The loads of a stage of `total` elements spread over the workgroup
  /// (element i = thread + 256 r): every round's loads at once, so that a
  /// stage waits on memory once, not once a round (a loop of load-then-store
  /// rounds is latency-bound: docs/performance-vulkan-linear.md). A last
  /// partial round loads a clamped element that `storeStaged` never stores.
  Staged loadStaged(int64_t total,
                    function_ref<SmallVector<Value>(Value)> load) {
    Staged staged{total, {}, {}};
    for (int64_t r = 0; r * l.kThreads < total; ++r) {
      Value i = e.add(thread, e.index(r * l.kThreads));
      staged.index.push_back(i);
      staged.values.push_back(load(
          (r + 1) * l.kThreads > total ? e.min(i, e.index(total - 1)) : i));
    }
    return staged;
  }

  /// The values of `staged` (every round's, in order) appended to `out`:
  /// loads carried through a loop.
  static void appendStaged(const Staged &staged, SmallVectorImpl<Value> &out) {
    for (const SmallVector<Value> &round : staged.values)
      out.append(round.begin(), round.end());
  }
  static int64_t stagedCount(const Staged &staged) {
    int64_t n = 0;
    for (const SmallVector<Value> &round : staged.values)
      n += round.size();
    return n;
  }
  /// `shape` (its element indices) with the values `values` (as
  /// appendStaged lays them out).
  static Staged restaged(const Staged &shape, ValueRange values) {
    Staged staged{shape.total, shape.index, {}};
    for (const SmallVector<Value> &round : shape.values) {
      staged.values.emplace_back(values.take_front(round.size()));
      values = values.drop_front(round.size());
    }
    return staged;
  }

  void storeStaged(const Staged &staged,
                   function_ref<void(Value, ArrayRef<Value>)> store) {
    for (auto item : llvm::enumerate(staged.index)) {
      size_t r = item.index();
      Value i = item.value();
      if ((int64_t(r) + 1) * l.kThreads > staged.total)
        emitIf(e, lt(i, e.index(staged.total)),
               [&] { store(i, staged.values[r]); });
      else
        store(i, staged.values[r]);
    }
  }

  Value slot;
  /// The outputs' first column.
  Value v0;
};

/// The dispatch bodies, each at `builder`'s insertion point.
void buildDeltaChunkGates(OpBuilder &builder, Location loc,
                          const DeltaProblem &p,
                          const VulkanDeltaChunkLayout &l,
                          const DeltaBuffers &buf, const Temporaries &tmp);
void buildDeltaChunkPrepare(OpBuilder &builder, Location loc,
                            const DeltaProblem &p,
                            const VulkanDeltaChunkLayout &l,
                            const DeltaBuffers &buf, const Temporaries &tmp);
void buildDeltaChunkState(OpBuilder &builder, Location loc,
                          const DeltaProblem &p,
                          const VulkanDeltaChunkLayout &l,
                          const DeltaBuffers &buf, const Temporaries &tmp);
void buildDeltaChunkOutputs(OpBuilder &builder, Location loc,
                            const DeltaProblem &p,
                            const VulkanDeltaChunkLayout &l,
                            const DeltaBuffers &buf, const Temporaries &tmp);
void buildDeltaCoopState(OpBuilder &builder, Location loc,
                         const DeltaProblem &p, const VulkanDeltaChunkLayout &l,
                         const DeltaBuffers &buf, const Temporaries &tmp);
void buildDeltaCoopOutputs(OpBuilder &builder, Location loc,
                           const DeltaProblem &p,
                           const VulkanDeltaChunkLayout &l,
                           const DeltaBuffers &buf, const Temporaries &tmp);
void buildDeltaDirectOutputs(OpBuilder &builder, Location loc,
                             const DeltaProblem &p,
                             const VulkanDeltaChunkLayout &l,
                             const DeltaBuffers &buf, const Temporaries &tmp);
void buildDeltaWordOutputs(OpBuilder &builder, Location loc,
                           const DeltaProblem &p,
                           const VulkanDeltaChunkLayout &l,
                           const DeltaBuffers &buf, const Temporaries &tmp);

} // namespace delta_chunk
} // namespace mlir::ejk

#endif // EJK_OPS_LINEAR_VULKAN_DELTACHUNK_H
