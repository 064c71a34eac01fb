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
// Register softmax, dense: the first key block's loads are issued before
// Q's (their latencies overlap), and out = O / l goes through the stage:
// each subgroup stores its normalized tiles as f16 (bf16) accumulators, then
// the workgroup writes the block's rows in 16-byte words (stored from the
// lanes' elements, each store wrote 2 bytes and touched 8 rows: removing the
// output stores took 7 % off gfa-d128, the staged output takes 5.5 %).
//
// Pipelined (register softmax, VulkanAttentionLayout::pipelined; not for
// causal with one row tile a subgroup, nor bf16, where it was slower):
// block j's P V runs in iteration j + 1, before that iteration's
// softmax and independent of it, so the matrix units have work while the
// exponentials run (the profile: the softmax cost 22 % of gfa-d128 and
// 41 % of gfa-d64, serialized with the products). A buffer holds K of
// block j and V of block j - 1; the loop carries P of the previous block:
//     O_n = (O_n + sum_j P_{j-1} V_{j-1,n}) * alpha_j
// and the last block's P V follows the loop. With a causal mask and two
// row tiles a subgroup (causalSkip), a block past the diagonal of all the
// subgroup's rows skips its products and softmax (its state is unchanged).
//
// Row blocks in turn (VulkanAttentionLayout::rowBlocks > 1, register
// softmax, dense): CoopRowBlocks.cpp.
//
// Block-sparse attention (AttentionProblem::sparse) runs the same body over
// the live-block list of its query block (LiveBlocks.h): the key-block loop
// walks list positions [0, count), two an iteration and then the odd one
// (twoBlockLoop; H100: gsparse 25 % 192.5 -> 167.8 us unpipelined), each
// position's block is the list entry, and the prefetch of the next block
// loads the next entry's rows (zeros past the end of the list; pipelined,
// with the V rows of the current entry). The entries are read one iteration
// before the rows they address; Q's loads go out before the list is built,
// and the first block's rows (with two K/V buffers, the first two blocks')
// are loaded while Q is staged. Pipelined, the list's first position skips
// the previous block's (zero) P V in a uniform branch.
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
#include "Attention/Vulkan/CoopBuilder.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::detail;

void CoopAttentionBuilder::loadQTilesFromBuffer() {
  int64_t lead = p.numHeads * p.headDim;
  for (int64_t m = 0; m < l.rowTiles; ++m) {
    Value seqBase = e.mul(batch, e.index(p.seqQ));
    Value token = e.add(seqBase, tileFirstRows[m]);
    Value heads = e.index(p.numHeads);
    Value tokenRow = e.mul(token, heads);
    Value tokenHead = e.add(tokenRow, head);
    Value qBase = e.mul(tokenHead, e.index(p.headDim));
    qTiles.emplace_back();
    for (int64_t d = 0; d < p.headDim; d += kTile)
      qTiles.back().push_back(loadMatrix(e, aType, qView,
                                         e.add(qBase, e.index(d)), lead,
                                         /*transpose=*/false));
  }
}

void CoopAttentionBuilder::loadQTilesFromStage(Value firstTile) {
  for (int64_t m = 0; m < l.rowTiles; ++m) {
    Value tileElements = e.index(kTile * qS);
    Value tile = e.add(firstTile, e.index(m));
    Value qBase = e.mul(tile, tileElements);
    qTiles.emplace_back();
    for (int64_t d = 0; d < p.headDim; d += kTile)
      qTiles.back().push_back(loadMatrix(e, aType, kvStage,
                                         e.add(qBase, e.index(d)), qS,
                                         /*transpose=*/false));
  }
}

void CoopAttentionBuilder::build() {
  if (l.rowBlocks > 1) {
    buildRowBlocks();
    return;
  }
  qBlock = WorkgroupIdOp::create(e.b, 0);
  head = WorkgroupIdOp::create(e.b, 1);
  batch = WorkgroupIdOp::create(e.b, 2);
  if (p.causal)
    orderLongestFirst();
  else if (p.sparse) // The last jobs' longest lists first (LiveBlocks.h).
    orderLiveBlockJobs(e, p, buf, l.blockQ, l.blockK, l.threads, qBlock, head,
                       batch);
  threadId = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  subgroup = arith::DivUIOp::create(e.b, threadId, e.index(l.subgroupSize));
  lane = arith::RemUIOp::create(e.b, threadId, e.index(l.subgroupSize));
  rowStart = e.mul(qBlock, e.index(l.blockQ));
  // One op per statement (here and below): the order of argument
  // evaluation differs between compilers, and the IR must not.
  Value rowsLeft = e.sub(e.index(p.seqQ), rowStart);
  numRows = e.min(e.index(l.blockQ), rowsLeft);
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
    Value tileSize = e.index(kTile);
    Value tile = e.add(firstTile, e.index(m));
    Value tileRow0 = e.add(rowStart, e.mul(tile, tileSize));
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
  if (stagedOutput)
    oView = wordView(e, buf.output, kPerVector);
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

  // Block-sparse: Q's loads go out first (their latency hides behind the
  // mask reads and the list build), then the list's first blocks and the
  // first block's rows, loaded while Q is staged.
  Value lo, hi;
  SmallVector<Value> ahead, second, qValues;
  if (p.sparse)
    qValues = loadVectorRows(qView, p.seqQ, p.numHeads, head, rowStart,
                             l.blockQ, p.headDim);
  if (p.sparse) {
    list = workgroupLiveBlockList(e, p, buf, l.blockQ, l.blockK, l.threads,
                                  threadId, batch, head, qBlock);
    lo = e.index(0);
    hi = list->count(e);
    listCount = hi;
    for (int64_t j = 0; j <= l.kvStages; ++j)
      window.push_back(aheadBlock(e.index(j)));
    ahead = loadKeyBlock(window[0], /*firstBlock=*/true);
    // With two K/V buffers the second block's rows are on their way too:
    // loaded after the prologue, the first iteration waited for them.
    if (l.kvStages == 2)
      second = loadKeyBlock(window[1], /*firstBlock=*/false, window[0]);
  }

  // Register softmax, dense: the first key block's loads go out before Q's,
  // so that the two latencies overlap (H200: gfa-d128 0.621 -> 0.617 ms,
  // gfa-d128-causal 0.342 -> 0.339; with the staged output, 0.587 -> 0.584
  // and 0.308 -> 0.307; docs/performance-vulkan-attention.md).
  std::optional<VulkanScoreRules> rulesOf;
  if (earlyKeyLoads) {
    rulesOf.emplace(e, p, buf, batch, head);
    rulesOf->keyBlockRange(rowStart, numRows, l.blockK, lo, hi);
    ahead = loadKeyBlock(lo, /*firstBlock=*/true);
  }
  // Q tiles, kept in registers: loaded from the buffer, or staged.
  if (qFromBuffer) {
    loadQTilesFromBuffer();
    writeLayoutProbe();
    gpu::BarrierOp::create(e.b);
    layoutHolds = readLayoutProbe();
  } else {
    if (qValues.empty())
      qValues = loadVectorRows(qView, p.seqQ, p.numHeads, head, rowStart,
                               l.blockQ, p.headDim);
    storeVectorRows(qValues, l.blockQ, p.headDim, qS, Value(), 0);
    if (l.registerSoftmax)
      writeLayoutProbe();
    gpu::BarrierOp::create(e.b);
    loadQTilesFromStage(firstTile);
    if (l.registerSoftmax)
      layoutHolds = readLayoutProbe();
    // K and V overwrite the staged Q.
    gpu::BarrierOp::create(e.b);
  }

  if (!rulesOf)
    rulesOf.emplace(e, p, buf, batch, head);
  VulkanScoreRules &rules = *rulesOf;
  // Dense: the key blocks the positional masks leave, [lo, hi); sparse:
  // positions [0, count) of this query block's live-block list.
  if (!p.sparse && !earlyKeyLoads)
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
    if (l.registerSoftmax) {
      Value zeroF = e.constF32(0.0f);
      Value firstLane = arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq,
                                              myPart, e.index(0));
      l0 = e.select(firstLane, l0, zeroF);
    }
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
  if (!p.sparse && !earlyKeyLoads)
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
  // Two key blocks an iteration (then the odd one) for block-sparse lists,
  // and for dense kernels whose subgroups own one row tile (H100, same
  // call: gfa-d128-causal 0.312 -> 0.297 ms, gfa-d128 0.529 -> 0.527,
  // gfa-long 1.94 -> 1.93; with two row tiles gfa-d64-causal lost, 0.283
  // -> 0.291; docs/performance-vulkan-attention.md).
  bool twoBlocks = list || (l.registerSoftmax && l.rowTiles == 1);
  SmallVector<Value> state =
      twoBlocks
          ? twoBlockLoop(rules, lo, hi, inits)
          : e.forLoop(lo, hi, e.index(1), inits, [&](Value kb, ValueRange s) {
              return keyBlock(rules, kb, lo, s);
            });
  int64_t perTile = tileStateSize();
  if (pipelined)
    lastProducts(state, lo, hi);
  if (stagedOutput) {
    finalizeThroughOutputStage(state);
    return;
  }
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

SmallVector<Value> CoopAttentionBuilder::twoBlockLoop(VulkanScoreRules &rules,
                                                      Value lo, Value hi,
                                                      ValueRange inits) {
  // One op per statement: the order of argument evaluation differs between
  // compilers, and the IR must not.
  Value two = e.index(2);
  Value span = e.sub(hi, lo);
  Value pairs = arith::DivUIOp::create(e.b, span, two);
  Value pairSpan = e.mul(pairs, two);
  Value pairsEnd = e.add(lo, pairSpan);
  SmallVector<Value> state =
      e.forLoop(lo, pairsEnd, two, inits, [&](Value kb, ValueRange s) {
        SmallVector<Value> half = keyBlock(rules, kb, lo, s);
        Value one = e.index(1);
        Value next = e.add(kb, one);
        return keyBlock(rules, next, lo, half, /*mayBeFirst=*/false);
      });
  Value odd =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::ult, pairsEnd, hi);
  SmallVector<Type> types;
  for (Value value : state)
    types.push_back(value.getType());
  // The odd position: a zero P V where it is the list's first.
  return e.ifElse(
      odd, types,
      [&]() -> SmallVector<Value> {
        return keyBlock(rules, pairsEnd, lo, state, /*mayBeFirst=*/false);
      },
      [&]() -> SmallVector<Value> { return state; });
}

void CoopAttentionBuilder::orderLongestFirst() {
  int64_t qBlocks = p.queryBlocks();
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

void CoopAttentionBuilder::storeVectorRows(ArrayRef<Value> values,
                                           int64_t count, int64_t dim,
                                           int64_t stride, Value base,
                                           int64_t offset) {
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

SmallVector<Value> CoopAttentionBuilder::loadKeyBlock(Value kb, bool firstBlock,
                                                      Value previous) {
  if (wholeKeyBlocks) {
    SmallVector<Value> values = loadWholeBlock(kView, kb, p.headDim);
    numKeyValues = values.size();
    if (!pipelined) {
      values.append(loadWholeBlock(vView, kb, p.headDimV));
      return values;
    }
    if (firstBlock) {
      values.append(zeroValues());
      return values;
    }
    // One op per statement: the order of argument evaluation differs
    // between compilers, and the IR must not.
    if (!previous) {
      Value one = e.index(1);
      previous = e.sub(kb, one);
    }
    values.append(loadWholeBlock(vView, previous, p.headDimV));
    return values;
  }
  Value keyStart = e.mul(kb, e.index(l.blockK));
  SmallVector<Value> values = loadVectorRows(
      kView, p.seqK, p.numKvHeads, kvHead, keyStart, l.blockK, p.headDim);
  numKeyValues = values.size();
  if (!pipelined) {
    values.append(loadVectorRows(vView, p.seqK, p.numKvHeads, kvHead, keyStart,
                                 l.blockK, p.headDimV));
    return values;
  }
  if (firstBlock) {
    values.append(zeroValues());
    return values;
  }
  Value valueStart = previous ? e.mul(previous, e.index(l.blockK))
                              : e.sub(keyStart, e.index(l.blockK));
  values.append(loadVectorRows(vView, p.seqK, p.numKvHeads, kvHead, valueStart,
                               l.blockK, p.headDimV));
  return values;
}

SmallVector<Value> CoopAttentionBuilder::zeroValues() {
  int64_t words = l.blockK * p.headDimV / kPerVector;
  Value zero = arith::ConstantOp::create(
      e.b, DenseElementsAttr::get(vecType, e.b.getI32IntegerAttr(0)));
  return SmallVector<Value>((words + l.threads - 1) / l.threads, zero);
}

SmallVector<Value> CoopAttentionBuilder::loadWholeBlock(Value view, Value block,
                                                        int64_t dim) {
  // Blocks [0, seq_k / block_k) lie inside seq_k; a block past the last
  // (a prefetch that the loop never stores) reads the last one instead.
  Value lastBlock = e.index(p.seqK / l.blockK - 1);
  Value clamped = e.min(block, lastBlock);
  Value start = e.mul(clamped, e.index(l.blockK));
  Value batchStart = e.mul(batch, e.index(p.seqK));
  Value blockRow = e.add(batchStart, start);
  int64_t width = dim / kPerVector, total = l.blockK * width;
  SmallVector<Value> values;
  if (total % l.threads != 0 || l.threads % width != 0) {
    forClampedShare(
        e, l.threads, threadId, total, width, [&](Value r, Value c) {
          Value seq = e.add(blockRow, r);
          Value heads = e.index(p.numKvHeads);
          Value row = e.add(e.mul(seq, heads), kvHead);
          Value words = e.index(width);
          Value at = e.add(e.mul(row, words), c);
          values.push_back(memref::LoadOp::create(e.b, view, ValueRange{at}));
        });
    return values;
  }
  // Every round of the share reads the same column c of rows r, r +
  // threads / width, ...: one address, then constant steps (H200: gfa-d128
  // 0.620 ms against 0.626 with an address a round, gfa-d128-causal 0.342
  // against 0.353, gfa-long 2.040 against 2.065; gfa-d64 0.589 against
  // 0.586).
  Value r = arith::DivUIOp::create(e.b, threadId, e.index(width));
  Value c = arith::RemUIOp::create(e.b, threadId, e.index(width));
  Value seq = e.add(blockRow, r);
  Value heads = e.index(p.numKvHeads);
  Value row = e.add(e.mul(seq, heads), kvHead);
  Value words = e.index(width);
  Value first = e.add(e.mul(row, words), c);
  int64_t step = l.threads / width * p.numKvHeads * width;
  for (int64_t k = 0; k < total / l.threads; ++k) {
    Value at = k ? e.add(first, e.index(k * step)) : first;
    values.push_back(memref::LoadOp::create(e.b, view, ValueRange{at}));
  }
  return values;
}

void CoopAttentionBuilder::lastProducts(SmallVector<Value> &state, Value lo,
                                        Value hi) {
  int64_t outTiles = p.headDimV / kTile;
  int64_t perTile = tileStateSize();
  Value buffer = e.index(0);
  if (l.kvStages == 2) {
    // One op per statement: the order of argument evaluation differs
    // between compilers, and the IR must not.
    Value two = e.index(2);
    Value span = e.sub(hi, lo);
    Value parity = arith::RemUIOp::create(e.b, span, two);
    buffer = e.mul(parity, e.index(kvBuffer));
  } else {
    ArrayRef<Value> loaded = ArrayRef<Value>(state).slice(l.rowTiles * perTile);
    storeVectorRows(loaded.slice(numKeyValues, loaded.size() - numKeyValues),
                    l.blockK, p.headDimV, vS, Value(), vOffset);
    gpu::BarrierOp::create(e.b);
  }
  SmallVector<SmallVector<Value>> sums = previousProducts(state, buffer);
  for (int64_t m = 0; m < l.rowTiles; ++m)
    for (int64_t n = 0; n < outTiles; ++n)
      state[m * perTile + n] = sums[m][n];
}

void CoopAttentionBuilder::storeKeyBlock(ArrayRef<Value> values, Value buffer) {
  storeVectorRows(values.take_front(numKeyValues), l.blockK, p.headDim, kS,
                  buffer, 0);
  storeVectorRows(values.drop_front(numKeyValues), l.blockK, p.headDimV, vS,
                  buffer, vOffset);
}

SmallVector<Value> CoopAttentionBuilder::keyBlock(VulkanScoreRules &rules,
                                                  Value kb, Value lo,
                                                  ValueRange state,
                                                  bool mayBeFirst) {
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
    Value two = e.index(2);
    Value span = e.sub(kb, lo);
    Value parity = arith::RemUIOp::create(e.b, span, two);
    cur = e.mul(parity, e.index(kvBuffer));
    storeKeyBlock(loaded, e.sub(e.index(kvBuffer), cur));
    prefetched = list ? loadKeyBlock(blocks[2], /*firstBlock=*/false, blocks[1])
                      : loadKeyBlock(e.add(kb, e.index(2)));
  } else {
    // Stage the prefetched K and V (the previous block's readers are past
    // the last barrier of the previous iteration), then start loading the
    // next block: its latency hides behind this block's work.
    storeKeyBlock(loaded, Value());
    gpu::BarrierOp::create(e.b);
    if (list) {
      prefetched = loadKeyBlock(blocks[1], /*firstBlock=*/false, blocks[0]);
    } else if (wrapTo) {
      // Row blocks in turn: the last block's prefetch is the next turn's
      // first block (its V rows, pipelined, this block's as always).
      Value one = e.index(1);
      Value next = e.add(kb, one);
      Value inRange =
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::ult, next, loopHi);
      Value target = e.select(inRange, next, wrapTo);
      prefetched = loadKeyBlock(target, /*firstBlock=*/false, kb);
    } else {
      prefetched = loadKeyBlock(e.add(kb, e.index(1)));
    }
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
      SmallVector<Value> acc(rowTiles, gpu::SubgroupMmaConstantMatrixOp::create(
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
    if (pipelined && list && mayBeFirst) {
      // The list's first position has no previous block (its P is zero):
      // its P V is skipped (a subgroup-uniform branch).
      SmallVector<Value> oldTiles;
      for (int64_t m = 0; m < rowTiles; ++m)
        for (int64_t n = 0; n < outTiles; ++n)
          oldTiles.push_back(state[m * perTile + n]);
      Value notFirst =
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::ne, kb, lo);
      SmallVector<Value> sums = e.ifElse(
          notFirst, TypeRange(ValueRange(oldTiles)),
          [&]() -> SmallVector<Value> {
            SmallVector<Value> flat;
            for (ArrayRef<Value> tiles : previousProducts(state, cur))
              flat.append(tiles.begin(), tiles.end());
            return flat;
          },
          [&]() -> SmallVector<Value> { return oldTiles; });
      for (int64_t m = 0; m < rowTiles; ++m)
        outTilesOf[m].assign(sums.begin() + m * outTiles,
                             sums.begin() + (m + 1) * outTiles);
    } else if (pipelined) {
      outTilesOf = previousProducts(state, cur);
    }

    Value keyStart = e.mul(list ? blocks[0] : kb, e.index(l.blockK));
    SmallVector<SmallVector<Value>> pTiles(rowTiles), next(rowTiles);
    SmallVector<Value> alphaTiles(rowTiles), rescales(rowTiles);
    for (int64_t m = 0; m < rowTiles; ++m) {
      rows = tileRows[m];
      tileFirstRow = tileFirstRows[m];
      SmallVector<Value> oldState(state.begin() + m * perTile,
                                  state.begin() + (m + 1) * perTile);
      if (l.registerSoftmax) {
        softmaxInRegisters(rules, keyStart, scores[m], oldState, pTiles[m],
                           alphaTiles[m], next[m]);
        rescales[m] = rescale;
      } else
        softmaxThroughStage(rules, keyStart, scores[m], oldState, pTiles[m],
                            alphaTiles[m], next[m]);
    }

    SmallVector<Value> out;
    if (pipelined) {
      // O (with the previous block) rescaled to this block's row max; P
      // waits for the next iteration. lazyRescale: only where a row of the
      // tile took a new max (a subgroup-uniform branch).
      for (int64_t m = 0; m < rowTiles; ++m) {
        auto scale = [&] {
          SmallVector<Value> scaled;
          for (int64_t n = 0; n < outTiles; ++n)
            scaled.push_back(gpu::SubgroupMmaElementwiseOp::create(
                e.b, cType, ValueRange{outTilesOf[m][n], alphaTiles[m]},
                gpu::MMAElementwiseOp::MULF));
          return scaled;
        };
        if (rescales[m]) {
          auto ifRescale =
              scf::IfOp::create(e.b, TypeRange(ValueRange(outTilesOf[m])),
                                rescales[m], /*withElse=*/true);
          OpBuilder::InsertionGuard guard(e.b);
          e.b.setInsertionPointToStart(ifRescale.thenBlock());
          scf::YieldOp::create(e.b, scale());
          e.b.setInsertionPointToStart(ifRescale.elseBlock());
          scf::YieldOp::create(e.b, outTilesOf[m]);
          out.append(ifRescale.getResults().begin(),
                     ifRescale.getResults().end());
        } else {
          out.append(scale());
        }
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
  if (l.causalSkip && !list) {
    // One op per statement (FileCheck pins the order).
    Value tileRow0 = tileFirstRows.back();
    Value lastRow = e.add(tileRow0, e.index(kTile - 1));
    Value firstKey = e.mul(kb, e.index(l.blockK));
    hidden = rules.hiddenBlock(firstKey, lastRow);
  }
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

SmallVector<SmallVector<Value>>
CoopAttentionBuilder::previousProducts(ValueRange state, Value buffer) {
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

void mlir::ejk::buildVulkanCoopAttentionBody(OpBuilder &b, Location loc,
                                             const VulkanAttentionPlan &plan,
                                             const AttentionBuffers &buffers) {
  CoopAttentionBuilder(b, loc, plan, buffers).build();
}
