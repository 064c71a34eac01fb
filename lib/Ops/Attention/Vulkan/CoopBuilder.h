//===- CoopBuilder.h - the cooperative flash attention kernel -*- C++ -*-===//
//
// The builder of the cooperative-matrix flash attention kernel
// (CoopKernel.cpp: the workgroup's setup, K/V staging and the key-block
// loop; CoopRowBlocks.cpp: query blocks in turn; CoopSoftmax.cpp: both
// softmax forms, the layout probe and the epilogues). Private to those
// three files.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ATTENTION_VULKAN_COOPBUILDER_H
#define EJK_OPS_ATTENTION_VULKAN_COOPBUILDER_H

#include "Attention/LiveBlocks.h"
#include "Attention/Options.h"
#include "Attention/Vulkan/Kernel.h"
#include "Attention/Vulkan/Scores.h"
#include "Common/VulkanMatrices.h"
#include "Common/VulkanShares.h"

namespace mlir::ejk::detail {

constexpr int64_t kTile = VulkanAttentionLayout::kTile;
/// f16 elements per 16-byte vector<4xi32> of a staged row.
constexpr int64_t kPerVector = 8;
/// Elements of a 16x16 matrix one lane of 32 holds.
constexpr int64_t kLaneElements = kTile * kTile / 32;
/// log2(e) and ln(2): the register softmax runs on exp2.
constexpr double kLog2E = 1.4426950408889634;
constexpr double kLn2 = 0.6931471805599453;
/// lazyRescale: how far (log2 units) a row's max may lie above the one its
/// probabilities are taken against (they stay below 2^8: exact in f16 P
/// and the f32 sums; FlashAttention-4 keeps the same bound).
constexpr float kLazyThreshold = 8.0f;

/// Emits the body of one flash attention dispatch on cooperative matrices
/// (CoopKernel.cpp's header describes the kernel).
class CoopAttentionBuilder {
public:
  CoopAttentionBuilder(OpBuilder &builder, Location loc,
                       const VulkanAttentionPlan &plan,
                       const AttentionBuffers &buffers)
      : e(builder, loc, 1), p(plan), l(plan.layout), buf(buffers) {
    MLIRContext *context = builder.getContext();
    f16 = Float16Type::get(context);
    vecType = VectorType::get({4}, e.b.getI32Type());
    aType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "AOp");
    bType = gpu::MMAMatrixType::get({kTile, kTile}, f16, "BOp");
    cType = gpu::MMAMatrixType::get({kTile, kTile}, e.f32, "COp");
    lanesPerRow = l.subgroupSize / kTile;
    inputType = cast<MemRefType>(buf.query.getType()).getElementType();
    // Block-sparse lists too (the V rows a load fetches are those of the
    // previous list entry, already in the window; with the list loop two
    // positions an iteration and Q's loads first, H100, same process:
    // gsparse 10 / 25 / 50 / 100 % 109.5 / 179.8 / 297.1 / 577.8 us against
    // 111.1 / 192.5 / 319.9 / 630.6 unpipelined one position an iteration;
    // docs/performance-vulkan-sparse.md). Not with a causal mask on one row
    // tile a
    // subgroup: gfa-d128-causal 0.386 ms pipelined against 0.368,
    // gfa-long-causal 1.088 against 1.061 (H200, same call; with two row
    // tiles it gains: gfa-d64-causal at 128 x 64 x 4 0.372 against 0.397),
    // and not in bf16: gfa-d128 bf16 0.711 ms pipelined against 0.662 (H200,
    // same call, session 16; docs/performance-vulkan-sparse.md).
    pipelined =
        l.pipelined && !(p.causal && l.rowTiles == 1) && !inputType.isBF16();
    // Seq_k a whole number of blocks: the K/V loads drop their test per row
    // (H200, same call: gfa-d64-causal 0.371 -> 0.313 ms, gfa-d128-causal
    // 0.366 -> 0.342, gfa-d128 0.630 -> 0.620;
    // docs/performance-vulkan-attention.md). Block-sparse lists too: a list
    // position past the end reads the last block, which no iteration
    // computes (with the output stage below and the last group of 256 jobs
    // sorted, gsparse 25 % 231.4 -> 188.8 us on the H200, same call;
    // docs/performance-vulkan-sparse.md).
    wholeKeyBlocks = p.seqK % l.blockK == 0;
    // Register softmax: the output goes through the stage in 16-byte words
    // (finalizeThroughOutputStage), block-sparse too (an empty list writes
    // zeros: its sum is 0). Dense only: the first key block's loads are
    // issued before Q's (block-sparse keeps its own order).
    earlyKeyLoads = l.registerSoftmax && !p.sparse;
    // Pipelined, without a causal mask: O is rescaled only in blocks where
    // a row's max grew by more than 2^8 (H200, same call: gfa-d128 0.583
    // -> 0.531 ms, gfa-long 2.01 -> 1.95, gfa-d64 0.561 -> 0.537; causal
    // one-tile blocks, unpipelined, lost: gfa-d128-causal 0.307 -> 0.342;
    // docs/performance-vulkan-attention.md). Not with normalize_output =
    // false, whose output is O relative to the exact row max.
    lazyRescale = pipelined && !p.causal && p.normalizeOutput;
    // Not pipelined (a causal mask on one row tile, bf16), whole query
    // blocks: Q's A matrices are loaded from the buffer, without the Q
    // stage, its stores and a barrier (H100, same call: gfa-d128-causal
    // 0.312 -> 0.304 ms alone; the pipelined kernels lost with it, gfa-d128
    // 0.529 -> 0.585; docs/performance-vulkan-attention.md).
    qFromBuffer =
        l.registerSoftmax && !p.sparse && !pipelined && p.seqQ % l.blockQ == 0;
    Type outType = cast<MemRefType>(buf.output.getType()).getElementType();
    stagedOutput = l.registerSoftmax && outType == inputType &&
                   p.headDimV % kPerVector == 0 &&
                   l.blockQ * l.rowStride(p.headDimV) <=
                       l.kvStageElements(p.headDim, p.headDimV);
  }

  void build();

private:
  /// layout.rowBlocks > 1: the workgroup runs its query blocks in turn,
  /// the K/V pipeline running on into the next one's first block.
  void buildRowBlocks();

  /// Sets qBlock, rowStart, numRows and the row tiles' rows for `block`.
  void setRowBlock(Value block);

  /// Appends Q's A matrices of the subgroup's row tiles (at tileFirstRows)
  /// to qTiles, read straight from the buffer.
  void loadQTilesFromBuffer();

  /// The same from Q staged in the K/V stage (rows of qS), the subgroup's
  /// row tiles from `firstTile` on.
  void loadQTilesFromStage(Value firstTile);

  /// Causal: the last query block sees the most keys. Workgroups are
  /// renumbered so that, in the order of their linear id (the order the
  /// device starts them in practice), every head's last query block comes
  /// first and every first one last: the long blocks no longer finish alone
  /// in a half-empty last wave. A bijection of the grid, so any order is
  /// still correct.
  void orderLongestFirst();

  // --- Key blocks ----------------------------------------------------------

  /// Block-sparse: the key block of list position `i`, which may lie past
  /// the loop's end: entry `i` while i < count, else the block after the
  /// last one (its rows are zeros); the entry read stays inside the list
  /// either way.
  Value aheadBlock(Value i) {
    int64_t keyBlocks = (p.seqK + l.blockK - 1) / l.blockK;
    Value inList =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, i, listCount);
    Value entry = list->at(e, e.min(i, e.index(keyBlocks - 1)));
    return e.select(inList, entry, e.index(keyBlocks));
  }

  // --- Matrices and staging -------------------------------------------------

  void store(Value tile, Value memref, Value offset, int64_t lead) {
    gpu::SubgroupMmaStoreMatrixOp::create(e.b, tile, memref, ValueRange{offset},
                                          e.b.getIndexAttr(lead), UnitAttr());
  }

  /// This thread's share of `count` rows of a [B, S, H, D] view from
  /// sequence position `seqStart` of head `h`: 16-byte vectors, zero past
  /// `seqLen`.
  SmallVector<Value> loadVectorRows(Value view, int64_t seqLen,
                                    int64_t numHeads, Value h, Value seqStart,
                                    int64_t count, int64_t dim) {
    return loadSequenceRows(e, l.threads, threadId, view, batch, seqLen,
                            numHeads, h, seqStart, count, dim);
  }

  /// Stores the values of loadVectorRows (same `count`, `dim`) into the
  /// stage, rows `stride` f16 apart from f16 element `base + offset` (`base`
  /// a multiple of 8, or null for 0).
  void storeVectorRows(ArrayRef<Value> values, int64_t count, int64_t dim,
                       int64_t stride, Value base, int64_t offset);

  /// This thread's share of key block `kb`'s K rows then V rows; past seq_k
  /// (also for the block after the last) they are zeros. Pipelined, the V
  /// rows are those of block `previous` (block-sparse: the previous list
  /// entry), by default kb - 1 (zeros for the loop's first block).
  SmallVector<Value> loadKeyBlock(Value kb, bool firstBlock = false,
                                  Value previous = Value());

  /// Zeros in place of a block's V rows (pipelined: the first block's P V
  /// multiplies a zero P).
  SmallVector<Value> zeroValues();

  /// wholeKeyBlocks: this thread's share of the `dim` columns of key block
  /// `block`'s rows of `view`, with no test per row: the block index is
  /// clamped to the last block once, and where every round of the share
  /// reads the same column the rounds' addresses are one address plus
  /// constants.
  SmallVector<Value> loadWholeBlock(Value view, Value block, int64_t dim);

  /// Pipelined: adds the last block's P V to the O tiles of `state` (the
  /// loop's results). That V was loaded by the last iteration: with two
  /// buffers it is in buffer (hi - lo) % 2, with one it is staged here.
  void lastProducts(SmallVector<Value> &state, Value lo, Value hi);

  /// Stores the values of loadKeyBlock into the K/V buffer that starts at
  /// f16 element `buffer` of the stage (a multiple of 8).
  void storeKeyBlock(ArrayRef<Value> values, Value buffer);

  /// Combines `value` over the `lanes` neighbouring lanes that share a row.
  Value reduceRow(Value value, bool isMax, int64_t lanes) {
    return reduceAcrossLanes(e, value, isMax, lanes, l.subgroupSize);
  }

  /// Loop-carried values of one row tile: its O tiles, then m and l of this
  /// lane's rows, then (pipelined) the previous block's P tiles.
  int64_t tileStateSize() const {
    return p.headDimV / kTile + 2 * static_cast<int64_t>(rows.size()) +
           (pipelined ? l.blockK / kTile : 0);
  }

  /// One key block's iteration: `state` is the loop's (tile states, the
  /// prefetched values, the list window). Pipelined block-sparse lists:
  /// where `mayBeFirst`, the previous block's P V (zero at the list's first
  /// position) runs only past position `lo`.
  SmallVector<Value> keyBlock(VulkanScoreRules &rules, Value kb, Value lo,
                              ValueRange state, bool mayBeFirst = true);

  /// The key-block loop over [lo, hi) (block-sparse lists: list
  /// positions), two blocks an iteration (the second is never a list's
  /// first position), then the odd one in a uniform branch.
  SmallVector<Value> twoBlockLoop(VulkanScoreRules &rules, Value lo, Value hi,
                                  ValueRange inits);

  /// A zero A matrix (P of no keys).
  Value zeroOperand() {
    return gpu::SubgroupMmaConstantMatrixOp::create(
        e.b, aType, arith::ConstantOp::create(e.b, e.b.getF16FloatAttr(0.0f)));
  }

  /// Pipelined: each row tile's O plus the previous block's P V, with that
  /// block's V at f16 element `buffer` of the stage and its P in `state`
  /// (after each tile's O, m and l).
  SmallVector<SmallVector<Value>> previousProducts(ValueRange state,
                                                   Value buffer);

  /// The new row max, the shift it gives (0 for a row with nothing yet) and
  /// the factor alpha that rescales what the row had.
  /// (`log2`: maxima in log2 units, alpha = exp2(old - shift).)
  void rowUpdate(Value oldMax, Value blockMax, Value &mNew, Value &shift,
                 Value &alpha, bool log2 = false);

  // --- Register softmax (cooperative_matrix_nv_layout) ---------------------

  /// Row (0: g, 1: g + 8) and column of element `i` of a lane's share: as
  /// NVIDIA's driver orders them (measured on an H200: elements 0-3 in row
  /// g, columns 2t, 2t + 1, 2t + 8, 2t + 9; elements 4-7 the same in row
  /// g + 8; the same for f32 accumulators and f16 A matrices).
  static int64_t rowHalfOf(int64_t i) { return i / 4; }
  Value columnOf(int64_t i) {
    // One op per statement: the order of argument evaluation differs
    // between compilers, and the IR must not.
    Value offset = e.index(i % 2 + 8 * ((i / 2) % 2));
    Value pair = e.mul(myPart, e.index(2));
    return e.add(pair, offset);
  }

  /// Every workgroup writes two 16x16 tiles whose element (r, c) holds
  /// 16 r + c, as f32 and as f16.
  void writeLayoutProbe();

  /// Whether every lane of the subgroup finds its elements where the
  /// register softmax assumes them, in accumulators and in A matrices.
  Value readLayoutProbe();

  void softmaxInRegisters(VulkanScoreRules &rules, Value keyStart,
                          ArrayRef<Value> scores, ArrayRef<Value> state,
                          SmallVector<Value> &pTiles, Value &alphaTile,
                          SmallVector<Value> &next);

  /// out = O / l from the lanes' own elements; lse = m + log(l). NaN when
  /// the layout probe failed.
  void finalizeInRegisters(ArrayRef<Value> state);

  /// stagedOutput: out = O / l of every row tile of the subgroup (`state`,
  /// the loop's results), converted to the output type in the lanes' own
  /// elements and stored as 16x16 accumulators into the stage; after a
  /// barrier the workgroup writes the block's rows in 16-byte words (the
  /// stores from registers wrote 2 bytes each, 8 rows a subgroup store).
  /// lse as finalizeInRegisters.
  void finalizeThroughOutputStage(ArrayRef<Value> state);

  // --- Softmax through shared memory (any cooperative-matrix device) -------

  void softmaxThroughStage(VulkanScoreRules &rules, Value keyStart,
                           ArrayRef<Value> scores, ArrayRef<Value> state,
                           SmallVector<Value> &pTiles, Value &alphaTile,
                           SmallVector<Value> &next);

  /// out = O / l tile by tile through this subgroup's score stage; lse.
  void finalizeThroughStage(ArrayRef<Value> state);

  Emitter e;
  const VulkanAttentionPlan &p;
  const VulkanAttentionLayout &l;
  const AttentionBuffers &buf;
  Type f16;
  VectorType vecType;
  gpu::MMAMatrixType aType, bType, cType;
  int64_t lanesPerRow;
  Value qBlock, head, batch, threadId, subgroup, lane, myRow, myPart;
  Value rowStart, numRows, kvHead;
  /// The query rows of this lane's softmax in the row tile being emitted:
  /// one through the stage, two (g and g + 8 of the tile) in registers.
  SmallVector<Value, 2> rows;
  /// `rows` of each of the subgroup's row tiles.
  SmallVector<SmallVector<Value, 2>> tileRows;
  /// The first query row of each of the subgroup's row tiles, and of the
  /// tile being emitted.
  SmallVector<Value> tileFirstRows;
  Value tileFirstRow;
  Value qView, kView, vView, oView, kvStage;
  Value sStage, pStage, alphaStage, sBase, pBase, alphaBase;
  Value probeC, probeA, layoutHolds;
  /// The inputs' type: f16, or bf16 staged as bits for bf16 matrices (the
  /// elements the register softmax inserts, f16 conversions here, become
  /// bf16 ones in the SPIR-V conversion: BF16Matrices.cpp).
  Type inputType;
  int64_t qS, kS, vS, vOffset, kvBuffer;
  /// Q's A matrices, per row tile, per 16 columns of head_dim.
  SmallVector<SmallVector<Value>> qTiles;
  /// How many of the prefetched values are K's.
  size_t numKeyValues = 0;
  /// Each block's P V runs in the next iteration, beside that block's
  /// softmax (VulkanAttentionLayout::pipelined; not for block-sparse
  /// lists).
  bool pipelined = false;
  /// Seq_k a whole number of key blocks: K/V rows are loaded without a
  /// bound test per row (loadWholeBlock).
  bool wholeKeyBlocks = false;
  /// Register softmax: the output goes through the stage
  /// (finalizeThroughOutputStage); dense: the first key block's loads go
  /// out before Q's.
  bool earlyKeyLoads = false, stagedOutput = false;
  /// Pipelined, dense, no causal mask: a row keeps its max until a row of
  /// the subgroup's tile grows past it by more than kLazyThreshold (log2
  /// units); `rescale` (subgroup-uniform, set by softmaxInRegisters, null
  /// without lazyRescale) then says whether O's tiles are rescaled this
  /// block.
  bool lazyRescale = false;
  Value rescale;
  /// Q's A matrices come straight from the buffer (no Q stage).
  bool qFromBuffer = false;
  /// Row blocks in turn: the block the last key block's prefetch loads
  /// (the next turn's first) and the key loop's end.
  Value wrapTo, loopHi;
  /// Block-sparse: this query block's live-block list.
  std::optional<LiveBlockList> list;
  Value listCount;
  /// Block-sparse: the blocks of list positions 0 .. kvStages, then carried
  /// by the key-block loop as those of kb .. kb + kvStages.
  SmallVector<Value> window;
};

} // namespace mlir::ejk::detail

#endif // EJK_OPS_ATTENTION_VULKAN_COOPBUILDER_H
