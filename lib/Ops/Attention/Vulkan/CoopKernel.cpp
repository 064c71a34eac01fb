//===- CoopKernel.cpp - flash attention on cooperative matrices -----------===//
//
// f16 inputs (bf16 on devices with bf16 matrices: the same kernel on the
// inputs' bits, DispatchRewriter::setBF16Matrices), f32 accumulation,
// 16x16x16 cooperative matrices
// (VK_KHR_cooperative_matrix through gpu.subgroup_mma_*). One workgroup =
// (query block, head, batch); subgroup g owns the rowTiles 16-row tiles
// [g * rowTiles, (g + 1) * rowTiles) of the block (rowTiles = 2, register
// softmax only: each K^T and V tile read from shared memory feeds two
// products); causal grids run their longest query blocks first:
//
//   Q tiles (D / 16 of them) stay in matrix registers for the whole kernel.
//   per key block of block_k keys (the workgroup stages K and V as f16, in
//   16-byte copies, the next block's loads in flight meanwhile; with two
//   K/V buffers, VulkanAttentionLayout::kvStages, block j + 1 is stored
//   into one while block j's matrices read the other, one barrier a block):
//     S_j = sum_d Q_d K_{j,d}^T           (block_k / 16 tiles, f32)
//     online softmax (logits from Attention/Vulkan/Scores.h), P (f16) and the
//       row factors alpha
//     O_n = O_n * alpha + sum_j P_j V_{j,n}   (D_v / 16 accumulator tiles)
//   out = O / l, lse = m + log(l).
//
// Pipelined (register softmax, VulkanAttentionLayout::pipelined; not for
// block-sparse lists, nor causal with one row tile a subgroup, where it was
// slower): block j's P V runs in iteration j + 1, before that iteration's
// softmax and independent of it, so the matrix units have work while the
// exponentials run (the profile: the softmax cost 22 % of gfa-d128 and
// 41 % of gfa-d64, serialized with the products). A buffer holds K of
// block j and V of block j - 1; the loop carries P of the previous block:
//     O_n = (O_n + sum_j P_{j-1} V_{j-1,n}) * alpha_j
// and the last block's P V follows the loop. With a causal mask and two
// row tiles a subgroup (causalSkip), a block past the diagonal of all the
// subgroup's rows skips its products and softmax (its state is unchanged).
//
// Block-sparse attention (AttentionProblem::sparse) runs the same body over
// the live-block list of its query block (LiveBlocks.h): the key-block loop
// walks list positions [0, count), each position's block is the list entry,
// and the prefetch of the next block loads the next entry's rows (zeros past
// the end of the list). The entries are read one iteration before the rows
// they address, and the first block's rows (with two K/V buffers, the
// first two blocks') are loaded while Q is staged.
// The score rules mask inside a block as for any key block.
//
// The softmax has two forms (VulkanAttentionLayout::registerSoftmax):
//  - registers, on devices whose matrices are laid out as NVIDIA's mma.sync
//    fragments: each lane reads its own elements of S, reduces its two rows
//    with the three lanes that share them, and builds P directly as an
//    A matrix; only K and V go through shared memory. A probe at the start
//    checks the layout and a device that lays matrices out otherwise gets
//    NaN, never a plausible wrong answer.
//  - shared memory, anywhere: S goes to a per-subgroup stage where
//    subgroup_size / 16 lanes handle each row; P and a 16x16 matrix of row
//    factors come back through the stage.
//
//===----------------------------------------------------------------------===//

#include "Attention/LiveBlocks.h"
#include "Attention/Options.h"
#include "Attention/Vulkan/Kernel.h"
#include "Attention/Vulkan/Scores.h"
#include "Common/VulkanMatrices.h"
#include "Common/VulkanShares.h"

using namespace mlir;
using namespace mlir::ejk;

namespace {

constexpr int64_t kTile = VulkanAttentionLayout::kTile;
/// f16 elements per 16-byte vector<4xi32> of a staged row.
constexpr int64_t kPerVector = 8;
/// Elements of a 16x16 matrix one lane of 32 holds.
constexpr int64_t kLaneElements = kTile * kTile / 32;
/// log2(e) and ln(2): the register softmax runs on exp2.
constexpr double kLog2E = 1.4426950408889634;
constexpr double kLn2 = 0.6931471805599453;

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
    // Not for block-sparse lists (the window of list entries is one block
    // ahead of the loads), and not with a causal mask on one row tile a
    // subgroup: gfa-d128-causal 0.386 ms pipelined against 0.368,
    // gfa-long-causal 1.088 against 1.061 (H200, same call; with two row
    // tiles it gains: gfa-d64-causal at 128 x 64 x 4 0.372 against 0.397;
    // docs/performance-vulkan.md).
    pipelined = l.pipelined && !p.sparse && !(p.causal && l.rowTiles == 1);
  }

  void build() {
    qBlock = WorkgroupIdOp::create(e.b, 0);
    head = WorkgroupIdOp::create(e.b, 1);
    batch = WorkgroupIdOp::create(e.b, 2);
    if (p.causal)
      orderLongestFirst();
    threadId = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
    subgroup = arith::DivUIOp::create(e.b, threadId, e.index(l.subgroupSize));
    lane = arith::RemUIOp::create(e.b, threadId, e.index(l.subgroupSize));
    rowStart = e.mul(qBlock, e.index(l.blockQ));
    numRows = e.min(e.index(l.blockQ), e.sub(e.index(p.seqQ), rowStart));
    kvHead = e.div(head, e.index(p.numHeads / p.numKvHeads));
    // Subgroup g owns the row tiles [g * rowTiles, (g + 1) * rowTiles).
    Value firstTile = e.mul(subgroup, e.index(l.rowTiles));
    if (l.registerSoftmax) {
      // mma.sync fragments: lane (g, t) = (lane / 4, lane % 4) holds rows g
      // and g + 8, columns 2t, 2t + 1, 2t + 8, 2t + 9 (rowHalfOf, columnOf).
      myRow = arith::DivUIOp::create(e.b, lane, e.index(4));
      myPart = arith::RemUIOp::create(e.b, lane, e.index(4));
    } else {
      myRow = arith::DivUIOp::create(e.b, lane, e.index(lanesPerRow));
      myPart = arith::RemUIOp::create(e.b, lane, e.index(lanesPerRow));
    }
    for (int64_t m = 0; m < l.rowTiles; ++m) {
      Value tileRow0 =
          e.add(rowStart, e.mul(e.add(firstTile, e.index(m)), e.index(kTile)));
      tileFirstRows.push_back(tileRow0);
      if (l.registerSoftmax)
        tileRows.push_back({e.add(tileRow0, myRow),
                            e.add(tileRow0, e.add(myRow, e.index(kTile / 2)))});
      else
        tileRows.push_back({e.add(tileRow0, myRow)});
    }
    rows = tileRows.front();

    qView = wordView(e, buf.query, kPerVector);
    kView = wordView(e, buf.key, kPerVector);
    vView = wordView(e, buf.value, kPerVector);
    // Q is staged once, into the memory that then holds K and V.
    kvStage = allocWorkgroup(
        e, l.kvStageElements(p.headDim, p.headDimV) / kPerVector, vecType);
    if (l.registerSoftmax) {
      probeC = allocWorkgroup(e, kTile * kTile);
      probeA = allocWorkgroup(e, kTile * kTile, f16);
    } else {
      sStage = allocWorkgroup(e, l.numSubgroups * kTile * l.sStride());
      pStage = allocWorkgroup(e, l.numSubgroups * kTile * l.pStride(), f16);
      alphaStage = allocWorkgroup(e, l.numSubgroups * kTile * l.alphaStride());
      sBase = e.mul(subgroup, e.index(kTile * l.sStride()));
      pBase = e.mul(subgroup, e.index(kTile * l.pStride()));
      alphaBase = e.mul(subgroup, e.index(kTile * l.alphaStride()));
    }
    qS = l.rowStride(p.headDim);
    kS = l.rowStride(p.headDim);
    vS = l.rowStride(p.headDimV);
    vOffset = l.blockK * kS;
    kvBuffer = l.kvBufferElements(p.headDim, p.headDimV);

    // Block-sparse: the list's first blocks, and the first block's rows
    // loaded while Q is staged (their latency hides behind Q's).
    Value lo, hi;
    SmallVector<Value> ahead, second;
    if (p.sparse) {
      list = workgroupLiveBlockList(e, p, buf, l.blockQ, l.blockK, l.threads,
                                    threadId, batch, head, qBlock);
      lo = e.index(0);
      hi = list->count(e);
      listCount = hi;
      for (int64_t j = 0; j <= l.kvStages; ++j)
        window.push_back(aheadBlock(e.index(j)));
      ahead = loadKeyBlock(window[0]);
      // With two K/V buffers the second block's rows are on their way too:
      // loaded after the prologue, the first iteration waited for them.
      if (l.kvStages == 2)
        second = loadKeyBlock(window[1]);
    }

    // Q tiles, kept in registers.
    storeVectorRows(loadVectorRows(qView, p.seqQ, p.numHeads, head, rowStart,
                                   l.blockQ, p.headDim),
                    l.blockQ, p.headDim, qS, Value(), 0);
    if (l.registerSoftmax)
      writeLayoutProbe();
    gpu::BarrierOp::create(e.b);
    for (int64_t m = 0; m < l.rowTiles; ++m) {
      Value qBase = e.mul(e.add(firstTile, e.index(m)), e.index(kTile * qS));
      qTiles.emplace_back();
      for (int64_t d = 0; d < p.headDim; d += kTile)
        qTiles.back().push_back(loadMatrix(e, aType, kvStage,
                                           e.add(qBase, e.index(d)), qS,
                                           /*transpose=*/false));
    }
    if (l.registerSoftmax)
      layoutHolds = readLayoutProbe();
    // K and V overwrite the staged Q.
    gpu::BarrierOp::create(e.b);

    VulkanScoreRules rules(e, p, buf, batch, head);
    // Dense: the key blocks the positional masks leave, [lo, hi); sparse:
    // positions [0, count) of this query block's live-block list.
    if (!p.sparse)
      rules.keyBlockRange(rowStart, numRows, l.blockK, lo, hi);
    int64_t outTiles = p.headDimV / kTile;
    SmallVector<Value> inits;
    Value zeroTile =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
    // Sinks start every row of the head: m = max(sinks), l = sum
    // exp(sink - m) — in the register softmax, where a lane's l is its share
    // of the row's sum, on the first of the row's four lanes only.
    Value m0 = e.negInf(), l0 = e.constF32(0.0f);
    if (p.hasSinks()) {
      SinkStats sinks = sinkStats(e, p, buf.softmaxAux, head);
      m0 = sinks.max;
      l0 = sinks.sum;
      // The register softmax keeps m in log2 units (exp2, scale folded).
      if (l.registerSoftmax)
        m0 = e.fmul(m0, e.constF32(kLog2E));
      if (l.registerSoftmax)
        l0 = e.select(arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq,
                                            myPart, e.index(0)),
                      l0, e.constF32(0.0f));
    }
    // Per row tile: its O tiles, then m and l of this lane's rows.
    for (int64_t m = 0; m < l.rowTiles; ++m) {
      for (int64_t n = 0; n < outTiles; ++n)
        inits.push_back(zeroTile);
      for (size_t r = 0; r < rows.size(); ++r)
        inits.push_back(m0); // m of this lane's rows
      for (size_t r = 0; r < rows.size(); ++r)
        inits.push_back(l0); // l of this lane's rows
      // Pipelined: P of the previous block (none before the first).
      if (pipelined)
        inits.append(l.blockK / kTile, zeroOperand());
    }
    // This thread's share of the first key block, loaded ahead (the loop
    // then prefetches each next block while the current one computes;
    // pipelined, with the V rows of the block before it: zeros here).
    if (!p.sparse)
      ahead = loadKeyBlock(lo, /*firstBlock=*/true);
    if (l.kvStages == 2) {
      // The first block goes to buffer 0 now; the loop stores block kb + 1
      // into the other buffer while block kb computes.
      storeKeyBlock(ahead, e.index(0));
      ahead = p.sparse ? second : loadKeyBlock(e.add(lo, e.index(1)));
      gpu::BarrierOp::create(e.b);
    }
    inits.append(ahead);
    inits.append(window);
    SmallVector<Value> state =
        e.forLoop(lo, hi, e.index(1), inits, [&](Value kb, ValueRange s) {
          return keyBlock(rules, kb, lo, s);
        });
    int64_t perTile = tileStateSize();
    if (pipelined)
      lastProducts(state, lo, hi);
    for (int64_t m = 0; m < l.rowTiles; ++m) {
      rows = tileRows[m];
      ArrayRef<Value> tileState =
          ArrayRef<Value>(state).slice(m * perTile, perTile);
      if (l.registerSoftmax)
        finalizeInRegisters(tileState);
      else
        finalizeThroughStage(tileState);
    }
  }

private:
  /// Causal: the last query block sees the most keys. Workgroups are
  /// renumbered so that, in the order of their linear id (the order the
  /// device starts them in practice), every head's last query block comes
  /// first and every first one last: the long blocks no longer finish alone
  /// in a half-empty last wave. A bijection of the grid, so any order is
  /// still correct.
  void orderLongestFirst() {
    int64_t qBlocks = p.grid()[0];
    int64_t heads = p.numHeads, batches = p.batch;
    // One op per statement: the order of argument evaluation differs between
    // compilers, and the IR must not.
    Value headCount = e.index(heads);
    Value headBatchIndex = e.add(head, e.mul(headCount, batch));
    Value blockCount = e.index(qBlocks);
    Value linear = e.add(qBlock, e.mul(blockCount, headBatchIndex));
    Value rank = e.div(linear, e.index(heads * batches));
    Value headBatch =
        arith::RemUIOp::create(e.b, linear, e.index(heads * batches));
    qBlock = e.sub(e.index(qBlocks - 1), rank);
    head = arith::RemUIOp::create(e.b, headBatch, e.index(heads));
    batch = e.div(headBatch, e.index(heads));
  }

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
                       int64_t stride, Value base, int64_t offset) {
    Value start = e.index(offset / kPerVector);
    if (base)
      start =
          e.add(arith::DivUIOp::create(e.b, base, e.index(kPerVector)), start);
    int64_t width = dim / kPerVector, total = count * width;
    forGuardedShare(
        e, l.threads, threadId, total, width, [&](int64_t k, Value r, Value c) {
          Value at =
              e.add(start, e.add(e.mul(r, e.index(stride / kPerVector)), c));
          memref::StoreOp::create(e.b, values[k], kvStage, ValueRange{at});
        });
  }

  /// This thread's share of key block `kb`'s K rows then V rows; past seq_k
  /// (also for the block after the last) they are zeros. Pipelined, the V
  /// rows are those of block kb - 1 (zeros for the loop's first block).
  SmallVector<Value> loadKeyBlock(Value kb, bool firstBlock = false) {
    Value keyStart = e.mul(kb, e.index(l.blockK));
    SmallVector<Value> values = loadVectorRows(
        kView, p.seqK, p.numKvHeads, kvHead, keyStart, l.blockK, p.headDim);
    numKeyValues = values.size();
    if (!pipelined) {
      values.append(loadVectorRows(vView, p.seqK, p.numKvHeads, kvHead,
                                   keyStart, l.blockK, p.headDimV));
      return values;
    }
    if (firstBlock) {
      int64_t words = l.blockK * p.headDimV / kPerVector;
      Value zero = arith::ConstantOp::create(
          e.b, DenseElementsAttr::get(vecType, e.b.getI32IntegerAttr(0)));
      values.append((words + l.threads - 1) / l.threads, zero);
      return values;
    }
    Value valueStart = e.sub(keyStart, e.index(l.blockK));
    values.append(loadVectorRows(vView, p.seqK, p.numKvHeads, kvHead,
                                 valueStart, l.blockK, p.headDimV));
    return values;
  }

  /// Pipelined: adds the last block's P V to the O tiles of `state` (the
  /// loop's results). That V was loaded by the last iteration: with two
  /// buffers it is in buffer (hi - lo) % 2, with one it is staged here.
  void lastProducts(SmallVector<Value> &state, Value lo, Value hi) {
    int64_t outTiles = p.headDimV / kTile;
    int64_t perTile = tileStateSize();
    Value buffer = e.index(0);
    if (l.kvStages == 2) {
      Value parity = arith::RemUIOp::create(e.b, e.sub(hi, lo), e.index(2));
      buffer = e.mul(parity, e.index(kvBuffer));
    } else {
      ArrayRef<Value> loaded =
          ArrayRef<Value>(state).slice(l.rowTiles * perTile);
      storeVectorRows(loaded.slice(numKeyValues, loaded.size() - numKeyValues),
                      l.blockK, p.headDimV, vS, Value(), vOffset);
      gpu::BarrierOp::create(e.b);
    }
    SmallVector<SmallVector<Value>> sums = previousProducts(state, buffer);
    for (int64_t m = 0; m < l.rowTiles; ++m)
      for (int64_t n = 0; n < outTiles; ++n)
        state[m * perTile + n] = sums[m][n];
  }

  /// Stores the values of loadKeyBlock into the K/V buffer that starts at
  /// f16 element `buffer` of the stage (a multiple of 8).
  void storeKeyBlock(ArrayRef<Value> values, Value buffer) {
    storeVectorRows(values.take_front(numKeyValues), l.blockK, p.headDim, kS,
                    buffer, 0);
    storeVectorRows(values.drop_front(numKeyValues), l.blockK, p.headDimV, vS,
                    buffer, vOffset);
  }

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

  SmallVector<Value> keyBlock(VulkanScoreRules &rules, Value kb, Value lo,
                              ValueRange state) {
    int64_t outTiles = p.headDimV / kTile;
    int64_t keyTiles = l.blockK / kTile;
    int64_t perTile = tileStateSize();
    int64_t rowTiles = l.rowTiles;

    // Block-sparse: the blocks of positions kb .. kb + kvStages, read from
    // the list one iteration ahead of their loads (a load whose address
    // waits on a list entry would stall the subgroup).
    size_t windowSize = window.size();
    SmallVector<Value> blocks(state.take_back(windowSize));
    SmallVector<Value> loaded(
        state.drop_front(rowTiles * perTile).drop_back(windowSize));
    SmallVector<Value> prefetched;
    // The K/V buffer this block's matrices read (f16 element offset).
    Value cur = e.index(0);
    if (l.kvStages == 2) {
      // Block kb sits in buffer (kb - lo) % 2 (stored during the previous
      // iteration, before its barrier); block kb + 1 goes into the other,
      // whose readers (block kb - 1) are past that barrier too. Then the
      // loads of block kb + 2 start and hide behind this block's work.
      Value parity = arith::RemUIOp::create(e.b, e.sub(kb, lo), e.index(2));
      cur = e.mul(parity, e.index(kvBuffer));
      storeKeyBlock(loaded, e.sub(e.index(kvBuffer), cur));
      prefetched = loadKeyBlock(list ? blocks[2] : e.add(kb, e.index(2)));
    } else {
      // Stage the prefetched K and V (the previous block's readers are past
      // the last barrier of the previous iteration), then start loading the
      // next block: its latency hides behind this block's work.
      storeKeyBlock(loaded, Value());
      gpu::BarrierOp::create(e.b);
      prefetched = loadKeyBlock(list ? blocks[1] : e.add(kb, e.index(1)));
    }
    // The next iteration's window: the list entry one past this one's.
    SmallVector<Value> nextBlocks;
    if (list) {
      nextBlocks.assign(blocks.begin() + 1, blocks.end());
      nextBlocks.push_back(aheadBlock(e.add(kb, e.index(windowSize))));
    }

    auto compute = [&]() -> SmallVector<Value> {
      // S = Q K^T; each K^T tile feeds every row tile.
      SmallVector<SmallVector<Value>> scores(rowTiles);
      for (int64_t j = 0; j < keyTiles; ++j) {
        SmallVector<Value> acc(rowTiles,
                               gpu::SubgroupMmaConstantMatrixOp::create(
                                   e.b, cType, e.constF32(0.0f)));
        for (int64_t d = 0; d < p.headDim / kTile; ++d) {
          // K^T tile: column-major view of K rows j*16.., columns d*16...
          Value kt =
              loadMatrix(e, bType, kvStage,
                         e.add(cur, e.index(j * kTile * kS + d * kTile)), kS,
                         /*transpose=*/true);
          for (int64_t m = 0; m < rowTiles; ++m)
            acc[m] = gpu::SubgroupMmaComputeOp::create(
                e.b, qTiles[m][d], kt, acc[m], UnitAttr(), UnitAttr());
        }
        for (int64_t m = 0; m < rowTiles; ++m)
          scores[m].push_back(acc[m]);
      }
      // Pipelined: the previous block's P V (its V is in this buffer), which
      // does not wait for this block's softmax: the matrix units have it
      // while the softmax runs.
      SmallVector<SmallVector<Value>> outTilesOf(rowTiles);
      if (pipelined)
        outTilesOf = previousProducts(state, cur);

      Value keyStart = e.mul(list ? blocks[0] : kb, e.index(l.blockK));
      SmallVector<SmallVector<Value>> pTiles(rowTiles), next(rowTiles);
      SmallVector<Value> alphaTiles(rowTiles);
      for (int64_t m = 0; m < rowTiles; ++m) {
        rows = tileRows[m];
        tileFirstRow = tileFirstRows[m];
        SmallVector<Value> oldState(state.begin() + m * perTile,
                                    state.begin() + (m + 1) * perTile);
        if (l.registerSoftmax)
          softmaxInRegisters(rules, keyStart, scores[m], oldState, pTiles[m],
                             alphaTiles[m], next[m]);
        else
          softmaxThroughStage(rules, keyStart, scores[m], oldState, pTiles[m],
                              alphaTiles[m], next[m]);
      }

      SmallVector<Value> out;
      if (pipelined) {
        // O (with the previous block) rescaled to this block's row max; P
        // waits for the next iteration.
        for (int64_t m = 0; m < rowTiles; ++m) {
          for (int64_t n = 0; n < outTiles; ++n)
            out.push_back(gpu::SubgroupMmaElementwiseOp::create(
                e.b, cType, ValueRange{outTilesOf[m][n], alphaTiles[m]},
                gpu::MMAElementwiseOp::MULF));
          out.append(next[m]);
          out.append(pTiles[m]);
        }
        return out;
      }
      // O = O * alpha + P V; each V tile feeds every row tile.
      for (int64_t n = 0; n < outTiles; ++n) {
        SmallVector<Value> acc;
        for (int64_t m = 0; m < rowTiles; ++m)
          acc.push_back(gpu::SubgroupMmaElementwiseOp::create(
              e.b, cType, ValueRange{state[m * perTile + n], alphaTiles[m]},
              gpu::MMAElementwiseOp::MULF));
        for (int64_t j = 0; j < keyTiles; ++j) {
          Value v = loadMatrix(
              e, bType, kvStage,
              e.add(cur, e.index(vOffset + j * kTile * vS + n * kTile)), vS,
              /*transpose=*/false);
          for (int64_t m = 0; m < rowTiles; ++m)
            acc[m] = gpu::SubgroupMmaComputeOp::create(
                e.b, pTiles[m][j], v, acc[m], UnitAttr(), UnitAttr());
        }
        for (int64_t m = 0; m < rowTiles; ++m)
          outTilesOf[m].push_back(acc[m]);
      }
      for (int64_t m = 0; m < rowTiles; ++m) {
        out.append(outTilesOf[m]);
        out.append(next[m]);
      }
      return out;
    };

    // Causal, register softmax: a block past the diagonal of every row of
    // this subgroup's tiles changes none of their state, so the subgroup
    // skips its matrix work (pipelined: all but the previous block's P V).
    // Not with the shared-memory softmax, whose barriers every subgroup
    // must meet.
    Value hidden;
    if (l.causalSkip && !list)
      hidden =
          rules.hiddenBlock(e.mul(kb, e.index(l.blockK)),
                            e.add(tileFirstRows.back(), e.index(kTile - 1)));
    SmallVector<Value> out;
    if (hidden) {
      ValueRange old = state.take_front(rowTiles * perTile);
      auto ifHidden = scf::IfOp::create(e.b, TypeRange(old), hidden,
                                        /*withElse=*/true);
      {
        OpBuilder::InsertionGuard guard(e.b);
        e.b.setInsertionPointToStart(ifHidden.thenBlock());
        if (pipelined) {
          SmallVector<SmallVector<Value>> outTilesOf =
              previousProducts(state, cur);
          SmallVector<Value> kept;
          Value zeroP = zeroOperand();
          for (int64_t m = 0; m < rowTiles; ++m) {
            kept.append(outTilesOf[m]);
            kept.append(state.begin() + m * perTile + outTiles,
                        state.begin() + m * perTile + outTiles + 4);
            kept.append(keyTiles, zeroP);
          }
          scf::YieldOp::create(e.b, kept);
        } else {
          scf::YieldOp::create(e.b, old);
        }
        e.b.setInsertionPointToStart(ifHidden.elseBlock());
        scf::YieldOp::create(e.b, compute());
      }
      out.assign(ifHidden.getResults().begin(), ifHidden.getResults().end());
    } else {
      out = compute();
    }
    // The next block is staged (two buffers), or its iteration rewrites
    // this block's buffer (one).
    gpu::BarrierOp::create(e.b);
    out.append(prefetched);
    out.append(nextBlocks);
    return out;
  }

  /// A zero A matrix (P of no keys).
  Value zeroOperand() {
    return gpu::SubgroupMmaConstantMatrixOp::create(
        e.b, aType, arith::ConstantOp::create(e.b, e.b.getF16FloatAttr(0.0f)));
  }

  /// Pipelined: each row tile's O plus the previous block's P V, with that
  /// block's V at f16 element `buffer` of the stage and its P in `state`
  /// (after each tile's O, m and l).
  SmallVector<SmallVector<Value>> previousProducts(ValueRange state,
                                                   Value buffer) {
    int64_t outTiles = p.headDimV / kTile;
    int64_t keyTiles = l.blockK / kTile;
    int64_t perTile = tileStateSize();
    SmallVector<SmallVector<Value>> acc(l.rowTiles);
    for (int64_t n = 0; n < outTiles; ++n) {
      for (int64_t m = 0; m < l.rowTiles; ++m)
        acc[m].push_back(state[m * perTile + n]);
      for (int64_t j = 0; j < keyTiles; ++j) {
        Value v = loadMatrix(
            e, bType, kvStage,
            e.add(buffer, e.index(vOffset + j * kTile * vS + n * kTile)), vS,
            /*transpose=*/false);
        for (int64_t m = 0; m < l.rowTiles; ++m)
          acc[m][n] = gpu::SubgroupMmaComputeOp::create(
              e.b, state[m * perTile + outTiles + 4 + j], v, acc[m][n],
              UnitAttr(), UnitAttr());
      }
    }
    return acc;
  }

  /// The new row max, the shift it gives (0 for a row with nothing yet) and
  /// the factor alpha that rescales what the row had.
  /// (`log2`: maxima in log2 units, alpha = exp2(old - shift).)
  void rowUpdate(Value oldMax, Value blockMax, Value &mNew, Value &shift,
                 Value &alpha, bool log2 = false) {
    mNew = e.fmaxNoNaN(oldMax, blockMax);
    Value isEmpty =
        arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ, mNew, e.negInf());
    shift = e.select(isEmpty, e.constF32(0.0f), mNew);
    Value diff = e.fsub(oldMax, shift);
    alpha = log2 ? math::Exp2Op::create(e.b, diff).getResult() : e.exp(diff);
  }

  // --- Register softmax (cooperative_matrix_nv_layout) ---------------------

  /// Row (0: g, 1: g + 8) and column of element `i` of a lane's share: as
  /// NVIDIA's driver orders them (measured on an H200: elements 0-3 in row
  /// g, columns 2t, 2t + 1, 2t + 8, 2t + 9; elements 4-7 the same in row
  /// g + 8; the same for f32 accumulators and f16 A matrices).
  static int64_t rowHalfOf(int64_t i) { return i / 4; }
  Value columnOf(int64_t i) {
    return e.add(e.mul(myPart, e.index(2)), e.index(i % 2 + 8 * ((i / 2) % 2)));
  }

  /// Every workgroup writes two 16x16 tiles whose element (r, c) holds
  /// 16 r + c, as f32 and as f16.
  void writeLayoutProbe() {
    for (int64_t base = 0; base < kTile * kTile; base += l.threads) {
      Value idx = e.add(threadId, e.index(base));
      Value inRange = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, idx,
                                            e.index(kTile * kTile));
      auto ifOp = scf::IfOp::create(e.b, inRange, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(ifOp.thenBlock());
      Value value = arith::UIToFPOp::create(
          e.b, e.f32, arith::IndexCastUIOp::create(e.b, e.b.getI32Type(), idx));
      memref::StoreOp::create(e.b, value, probeC, ValueRange{idx});
      memref::StoreOp::create(e.b, operandBits(e, value, inputType), probeA,
                              ValueRange{idx});
    }
  }

  /// Whether every lane of the subgroup finds its elements where the
  /// register softmax assumes them, in accumulators and in A matrices.
  Value readLayoutProbe() {
    Value c =
        loadMatrix(e, cType, probeC, e.index(0), kTile, /*transpose=*/false);
    Value a =
        loadMatrix(e, aType, probeA, e.index(0), kTile, /*transpose=*/false);
    Value holds = e.constF32(1.0f);
    for (int64_t i = 0; i < kLaneElements; ++i) {
      Value row = e.add(myRow, e.index(kTile / 2 * rowHalfOf(i)));
      Value expected = arith::UIToFPOp::create(
          e.b, e.f32,
          arith::IndexCastUIOp::create(
              e.b, e.b.getI32Type(),
              e.add(e.mul(row, e.index(kTile)), columnOf(i))));
      for (Value element :
           {Value(gpu::SubgroupMmaExtractThreadLocalOp::create(e.b, e.f32, c,
                                                               e.index(i))),
            e.toF32(gpu::SubgroupMmaExtractThreadLocalOp::create(
                e.b, f16, a, e.index(i)))}) {
        Value same = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ,
                                           element, expected);
        holds = e.select(same, holds, e.constF32(0.0f));
      }
    }
    // min over the subgroup (max of the negation).
    Value negated = reduceRow(e.fsub(e.constF32(0.0f), holds), /*isMax=*/true,
                              l.subgroupSize);
    return arith::CmpFOp::create(e.b, arith::CmpFPredicate::OEQ, negated,
                                 e.constF32(-1.0f));
  }

  void softmaxInRegisters(VulkanScoreRules &rules, Value keyStart,
                          ArrayRef<Value> scores, ArrayRef<Value> state,
                          SmallVector<Value> &pTiles, Value &alphaTile,
                          SmallVector<Value> &next) {
    int64_t outTiles = p.headDimV / kTile;
    int64_t keyTiles = scores.size();
    // u[j][i]: the logits, or with plain logits the raw scores (masked), of
    // which exp2(u * c - m) gives the probabilities, m in log2 units: the
    // scale (and log2 e) folded into one multiply-add, as FlashAttention-2.
    bool plain = rules.plainLogits();
    double factor = plain ? p.softmaxScale * kLog2E : kLog2E;
    Value c = e.constF32(static_cast<float>(factor));
    SmallVector<Value> raw;
    for (int64_t j = 0; j < keyTiles; ++j)
      for (int64_t i = 0; i < kLaneElements; ++i)
        raw.push_back(gpu::SubgroupMmaExtractThreadLocalOp::create(
            e.b, e.f32, scores[j], e.index(i)));
    // The key of element k, emitted where it is used: computed ahead for
    // all elements, the keys stayed live across the block test (gfa-d64
    // causal at 128 x 128 x 8 took 1.6x as long; H200).
    auto keyOf = [&](int64_t k) {
      return e.add(keyStart, e.add(e.index(k / kLaneElements * kTile),
                                   columnOf(k % kLaneElements)));
    };
    auto emitMasked = [&](bool masks) {
      SmallVector<Value> u;
      for (auto [k, s] : llvm::enumerate(raw)) {
        Value row = rows[rowHalfOf(k % kLaneElements)];
        u.push_back(!plain  ? rules.logit(s, row, keyOf(k))
                    : masks ? rules.maskScore(s, row, keyOf(k))
                            : s);
      }
      return u;
    };
    // Plain logits: blocks that every row of this tile may see whole (all
    // but the diagonal ones when causal) skip the per-element masks; for
    // block-sparse attention the listed blocks too, as its block mask is
    // whole blocks and the list already applied it.
    Value whole;
    if (plain)
      whole = rules.wholeBlock(keyStart, l.blockK, tileFirstRow);
    SmallVector<Value> u;
    if (whole && matchPattern(whole, m_One())) {
      u = emitMasked(false);
    } else if (whole) {
      auto ifWhole = scf::IfOp::create(
          e.b, SmallVector<Type>(raw.size(), e.f32), whole, /*withElse=*/true);
      {
        OpBuilder::InsertionGuard guard(e.b);
        e.b.setInsertionPointToStart(ifWhole.thenBlock());
        scf::YieldOp::create(e.b, raw);
        e.b.setInsertionPointToStart(ifWhole.elseBlock());
        scf::YieldOp::create(e.b, emitMasked(true));
      }
      u.assign(ifWhole.getResults().begin(), ifWhole.getResults().end());
    } else {
      u = emitMasked(true);
    }
    // Each row's block max over this lane's elements.
    Value blockMax[2] = {e.negInf(), e.negInf()};
    for (auto [k, value] : llvm::enumerate(u)) {
      int64_t r = rowHalfOf(k % kLaneElements);
      blockMax[r] = e.fmaxNoNaN(blockMax[r], value);
    }
    Value shift[2], alpha[2], sum[2], rowHash[2], negShift[2];
    SmallVector<Value> mNew(2);
    for (int r = 0; r < 2; ++r) {
      // The four lanes of a row are neighbours (lane % 4).
      Value rowMax = e.fmul(reduceRow(blockMax[r], /*isMax=*/true, 4), c);
      rowUpdate(state[outTiles + r], rowMax, mNew[r], shift[r], alpha[r],
                /*log2=*/true);
      negShift[r] = e.fsub(e.constF32(0.0f), shift[r]);
      sum[r] = e.constF32(0.0f);
      rowHash[r] = rules.dropoutRowHash(rows[r]);
    }
    Value zeroA = gpu::SubgroupMmaConstantMatrixOp::create(
        e.b, aType, arith::ConstantOp::create(e.b, e.b.getF16FloatAttr(0.0f)));
    for (int64_t j = 0; j < keyTiles; ++j) {
      Value tile = zeroA;
      for (int64_t i = 0; i < kLaneElements; ++i) {
        int64_t r = rowHalfOf(i);
        Value prob =
            math::FmaOp::create(e.b, u[j * kLaneElements + i], c, negShift[r]);
        prob = math::Exp2Op::create(e.b, prob);
        sum[r] = e.fadd(sum[r], prob);
        if (p.dropoutProb)
          prob = rules.dropout(prob, rowHash[r], keyOf(j * kLaneElements + i));
        tile = gpu::SubgroupMmaInsertThreadLocalOp::create(
            e.b, aType, e.fromF32(prob, f16), tile, e.index(i));
      }
      pTiles.push_back(tile);
    }
    alphaTile =
        gpu::SubgroupMmaConstantMatrixOp::create(e.b, cType, e.constF32(0.0f));
    for (int64_t i = 0; i < kLaneElements; ++i)
      alphaTile = gpu::SubgroupMmaInsertThreadLocalOp::create(
          e.b, cType, alpha[rowHalfOf(i)], alphaTile, e.index(i));
    // l stays this lane's share of its rows' sums until the end.
    next = {mNew[0], mNew[1],
            e.fadd(e.fmul(state[outTiles + 2], alpha[0]), sum[0]),
            e.fadd(e.fmul(state[outTiles + 3], alpha[1]), sum[1])};
  }

  /// out = O / l from the lanes' own elements; lse = m + log(l). NaN when
  /// the layout probe failed.
  void finalizeInRegisters(ArrayRef<Value> state) {
    int64_t outTiles = p.headDimV / kTile;
    Type outType = cast<MemRefType>(buf.output.getType()).getElementType();
    Value nan = e.constF32(std::numeric_limits<float>::quiet_NaN());
    for (int r = 0; r < 2; ++r) {
      Value sum = reduceRow(state[outTiles + 2 + r], /*isMax=*/false, 4);
      Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT,
                                             sum, e.constF32(0.0f));
      // normalize_output = false: O as it is, relative to the row max.
      Value inv = p.normalizeOutput
                      ? e.select(positive, e.fdiv(e.constF32(1.0f), sum),
                                 e.constF32(0.0f))
                      : e.constF32(1.0f);
      inv = e.select(layoutHolds, inv, nan);
      Value rowValid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                             rows[r], e.index(p.seqQ));
      auto ifRow = scf::IfOp::create(e.b, rowValid, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(e.b);
      e.b.setInsertionPointToStart(ifRow.thenBlock());
      for (int64_t n = 0; n < outTiles; ++n)
        for (int64_t i = 0; i < kLaneElements; ++i) {
          if (rowHalfOf(i) != r)
            continue;
          Value o = gpu::SubgroupMmaExtractThreadLocalOp::create(
              e.b, e.f32, state[n], e.index(i));
          memref::StoreOp::create(
              e.b, e.fromF32(e.fmul(o, inv), outType), buf.output,
              ValueRange{batch, rows[r], head,
                         e.add(columnOf(i), e.index(n * kTile))});
        }
      if (!buf.lse)
        continue;
      Value first = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, myPart,
                                          e.index(0));
      auto ifFirst = scf::IfOp::create(e.b, first, /*withElse=*/false);
      e.b.setInsertionPointToStart(ifFirst.thenBlock());
      // m is in log2 units.
      Value lse = e.fadd(e.fmul(state[outTiles + r], e.constF32(kLn2)),
                         math::LogOp::create(e.b, sum));
      lse = e.select(positive, lse, e.negInf());
      memref::StoreOp::create(e.b, e.select(layoutHolds, lse, nan), buf.lse,
                              ValueRange{batch, head, rows[r]});
    }
  }

  // --- Softmax through shared memory (any cooperative-matrix device) -------

  void softmaxThroughStage(VulkanScoreRules &rules, Value keyStart,
                           ArrayRef<Value> scores, ArrayRef<Value> state,
                           SmallVector<Value> &pTiles, Value &alphaTile,
                           SmallVector<Value> &next) {
    int64_t outTiles = p.headDimV / kTile;
    int64_t keyTiles = scores.size();
    Value row = rows[0];
    for (int64_t j = 0; j < keyTiles; ++j)
      store(scores[j], sStage, e.add(sBase, e.index(j * kTile)), l.sStride());
    gpu::BarrierOp::create(e.b);

    // Online softmax of this lane's row share.
    int64_t keysPerLane = l.blockK / lanesPerRow;
    SmallVector<Value> logits;
    Value blockMax = e.negInf();
    for (int64_t j = 0; j < keysPerLane; ++j) {
      Value col = e.add(myPart, e.index(j * lanesPerRow));
      Value s = memref::LoadOp::create(
          e.b, sStage,
          ValueRange{
              e.add(sBase, e.add(e.mul(myRow, e.index(l.sStride())), col))});
      logits.push_back(rules.logit(s, row, e.add(keyStart, col)));
      blockMax = e.fmaxNoNaN(blockMax, logits.back());
    }
    blockMax = reduceRow(blockMax, /*isMax=*/true, lanesPerRow);
    Value mNew, shift, alpha;
    rowUpdate(state[outTiles], blockMax, mNew, shift, alpha);
    Value rowHash = rules.dropoutRowHash(row);
    Value sum = e.constF32(0.0f);
    for (int64_t j = 0; j < keysPerLane; ++j) {
      Value col = e.add(myPart, e.index(j * lanesPerRow));
      Value prob = e.exp(e.fsub(logits[j], shift));
      sum = e.fadd(sum, prob);
      prob = rules.dropout(prob, rowHash, e.add(keyStart, col));
      memref::StoreOp::create(
          e.b, operandBits(e, prob, inputType), pStage,
          ValueRange{
              e.add(pBase, e.add(e.mul(myRow, e.index(l.pStride())), col))});
    }
    sum = reduceRow(sum, /*isMax=*/false, lanesPerRow);
    Value lNew = e.fadd(e.fmul(state[outTiles + 1], alpha), sum);
    for (int64_t c = 0; c < kTile / lanesPerRow; ++c) {
      Value col = e.add(myPart, e.index(c * lanesPerRow));
      memref::StoreOp::create(
          e.b, alpha, alphaStage,
          ValueRange{e.add(
              alphaBase, e.add(e.mul(myRow, e.index(l.alphaStride())), col))});
    }
    gpu::BarrierOp::create(e.b);
    alphaTile = loadMatrix(e, cType, alphaStage, alphaBase, l.alphaStride(),
                           /*transpose=*/false);
    for (int64_t j = 0; j < keyTiles; ++j)
      pTiles.push_back(loadMatrix(e, aType, pStage,
                                  e.add(pBase, e.index(j * kTile)), l.pStride(),
                                  /*transpose=*/false));
    next = {mNew, lNew};
  }

  /// out = O / l tile by tile through this subgroup's score stage; lse.
  void finalizeThroughStage(ArrayRef<Value> state) {
    int64_t outTiles = p.headDimV / kTile;
    Value row = rows[0];
    Value sum = state[outTiles + 1];
    Value positive = arith::CmpFOp::create(e.b, arith::CmpFPredicate::OGT, sum,
                                           e.constF32(0.0f));
    Value inv = p.normalizeOutput
                    ? e.select(positive, e.fdiv(e.constF32(1.0f), sum),
                               e.constF32(0.0f))
                    : e.constF32(1.0f);
    Value rowValid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, row,
                                           e.index(p.seqQ));
    Type outType = cast<MemRefType>(buf.output.getType()).getElementType();
    for (int64_t n = 0; n < outTiles; ++n) {
      store(state[n], sStage, sBase, l.sStride());
      gpu::BarrierOp::create(e.b);
      {
        auto ifRow = scf::IfOp::create(e.b, rowValid, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(e.b);
        e.b.setInsertionPointToStart(ifRow.thenBlock());
        for (int64_t c = 0; c < kTile / lanesPerRow; ++c) {
          Value col = e.add(myPart, e.index(c * lanesPerRow));
          Value o = memref::LoadOp::create(
              e.b, sStage,
              ValueRange{e.add(
                  sBase, e.add(e.mul(myRow, e.index(l.sStride())), col))});
          memref::StoreOp::create(
              e.b, e.fromF32(e.fmul(o, inv), outType), buf.output,
              ValueRange{batch, row, head, e.add(col, e.index(n * kTile))});
        }
      }
      gpu::BarrierOp::create(e.b);
    }
    if (!buf.lse)
      return;
    Value first = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, myPart,
                                        e.index(0));
    auto ifFirst = scf::IfOp::create(
        e.b, arith::AndIOp::create(e.b, first, rowValid), /*withElse=*/false);
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(ifFirst.thenBlock());
    Value lse = e.fadd(state[outTiles], math::LogOp::create(e.b, sum));
    memref::StoreOp::create(e.b, e.select(positive, lse, e.negInf()), buf.lse,
                            ValueRange{batch, head, row});
  }

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
  Value qView, kView, vView, kvStage;
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
  /// Block-sparse: this query block's live-block list.
  std::optional<LiveBlockList> list;
  Value listCount;
  /// Block-sparse: the blocks of list positions 0 .. kvStages, then carried
  /// by the key-block loop as those of kb .. kb + kvStages.
  SmallVector<Value> window;
};

} // namespace

void mlir::ejk::buildVulkanCoopAttentionBody(OpBuilder &b, Location loc,
                                             const VulkanAttentionPlan &plan,
                                             const AttentionBuffers &buffers) {
  CoopAttentionBuilder(b, loc, plan, buffers).build();
}
