//===- LiveBlocks.cpp - the live key blocks of block-sparse attention -----===//

#include "Attention/LiveBlocks.h"
#include "Common/CpuEmitter.h"
#include "Common/VulkanMatrices.h"

#include "ejk/Ops/DispatchRewriter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::ejk;

MemRefType LiveBlockGrid::listType(const AttentionProblem &p,
                                   MLIRContext *context) const {
  return MemRefType::get({p.liveBroadcastsBatch ? 1 : p.batch,
                          p.liveBroadcastsHeads ? 1 : p.numHeads,
                          numQueryBlocks(p), 1 + numKeyBlocks(p)},
                         IntegerType::get(context, 32));
}

MemRefType LiveBlockGrid::transposedListType(const AttentionProblem &p,
                                             MLIRContext *context) const {
  return MemRefType::get({p.liveBroadcastsBatch ? 1 : p.batch,
                          p.liveBroadcastsHeads ? 1 : p.numHeads,
                          numKeyBlocks(p), 1 + numQueryBlocks(p)},
                         IntegerType::get(context, 32));
}

LogicalResult mlir::ejk::checkLiveBlockAlignment(const AttentionProblem &p,
                                                 const LiveBlockGrid &grid,
                                                 llvm::raw_ostream &reason) {
  // One mask block covering the whole axis holds any kernel block.
  if (grid.maskBlockQ < p.seqQ && grid.maskBlockQ % grid.blockQ != 0) {
    reason << "'block_q' (" << grid.blockQ << ") must divide 'q_block_size' ("
           << grid.maskBlockQ << "): a query block reads one block-mask row";
    return failure();
  }
  if (grid.maskBlockK < p.seqK && grid.maskBlockK % grid.blockK != 0) {
    reason << "'block_k' (" << grid.blockK << ") must divide 'kv_block_size' ("
           << grid.maskBlockK << "): a key block is live or dead as a whole";
    return failure();
  }
  return success();
}

Value mlir::ejk::floorDivPositive(Emitter &e, Value x, int64_t divisor) {
  Value zero = e.index(0);
  Value negative =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, x, zero);
  // -((-x + divisor - 1) / divisor) for x < 0.
  Value down = e.sub(zero, e.div(e.add(e.sub(zero, x), e.index(divisor - 1)),
                                 e.index(divisor)));
  return e.select(negative, down, e.div(x, e.index(divisor)));
}

/// Mask blocks whose loads the Vulkan list dispatches issue together.
static constexpr int64_t kLiveChunk = 16;
/// Threads of the ordered list dispatch that count their buckets together.
static constexpr int64_t kOrderGroup = 32;
/// The most key blocks (so buckets) the ordered list dispatch handles.
static constexpr int64_t kMaxOrderedKeyBlocks = 64;

namespace {
/// One list's candidates: the key blocks [lo, hi) the positional masks
/// (causal, window, chunk) leave to some row of the query block, and the
/// query block's row of the block mask.
struct ListRange {
  Value lo, hi, maskRow;
};
} // namespace

static ListRange listRange(Emitter &e, const AttentionProblem &p,
                           const LiveBlockGrid &grid, Value qBlock) {
  Value zero = e.index(0), one = e.index(1);
  Value rowStart = e.mul(qBlock, e.index(grid.blockQ));
  Value lastRow =
      e.min(e.add(rowStart, e.index(grid.blockQ - 1)), e.index(p.seqQ - 1));

  // Keys [keyLo, keyHi) some row of the block may attend to by position.
  int64_t offset = p.maskOffset();
  Value firstDiag = e.add(rowStart, e.index(offset));
  Value lastDiag = e.add(lastRow, e.index(offset));
  Value keyLo = zero;
  Value keyHi = e.index(p.seqK);
  if (p.causal)
    keyHi = e.min(keyHi, e.add(lastDiag, one));
  if (p.slidingWindow) {
    auto [left, right] = *p.slidingWindow;
    keyLo = e.max(keyLo, e.sub(firstDiag, e.index(left)));
    keyHi = e.min(keyHi, e.add(lastDiag, e.index(right + 1)));
  }
  if (p.chunkSize) {
    int64_t c = *p.chunkSize;
    keyLo = e.max(keyLo, e.mul(floorDivPositive(e, firstDiag, c), e.index(c)));
    keyHi = e.min(
        keyHi, e.mul(e.add(floorDivPositive(e, lastDiag, c), one), e.index(c)));
  }
  ListRange r;
  r.lo = e.div(e.max(keyLo, zero), e.index(grid.blockK));
  Value ceil = e.div(e.add(e.max(keyHi, zero), e.index(grid.blockK - 1)),
                     e.index(grid.blockK));
  Value any =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::sgt, keyHi, keyLo);
  r.hi = e.select(any, ceil, r.lo);
  r.maskRow = e.div(rowStart, e.index(grid.maskBlockQ));
  return r;
}

/// 1 where key block `kb`'s mask block is live in row `maskRow` of the mask
/// of (`batch`, `head`) (a byte of the mask); 1 without a mask.
static Value liveStep(Emitter &e, const LiveBlockGrid &grid, Value blockMask,
                      Value batch, Value head, Value maskRow, Value kb) {
  if (!blockMask)
    return e.index(1);
  Value maskCol =
      e.div(e.mul(kb, e.index(grid.blockK)), e.index(grid.maskBlockK));
  Value live = memref::LoadOp::create(
      e.b, blockMask, ValueRange{batch, head, maskRow, maskCol});
  return arith::IndexCastOp::create(
      e.b, e.b.getIndexType(),
      arith::ExtUIOp::create(e.b, e.b.getI32Type(), live));
}

/// The number of live blocks in [r.lo, r.hi), on one thread of a Vulkan
/// dispatch: a loop with one mask load an iteration waits for each load in
/// turn (H100: 8 us for gsparse's 32 blocks a list), so the loads of
/// kLiveChunk blocks are issued together, then the chunk is compacted;
/// blocks outside [lo, hi) count as dead and write nothing. A static
/// remainder chunk ends the loop. `store` (when given) writes each block in
/// range at the list position it reaches (1-based), live or not, as the
/// loop form does.
static Value countInChunks(Emitter &e, const AttentionProblem &p,
                           const LiveBlockGrid &grid, const ListRange &r,
                           function_ref<Value(Value kb)> step,
                           function_ref<void(Value position, Value kb)> store) {
  Value zero = e.index(0), one = e.index(1);
  int64_t keyBlocks = grid.numKeyBlocks(p);
  int64_t whole = keyBlocks / kLiveChunk * kLiveChunk;
  auto chunk = [&](Value first, int64_t size, Value countIn) {
    SmallVector<Value> kbs, steps;
    for (int64_t i = 0; i < size; ++i) {
      kbs.push_back(e.add(first, e.index(i)));
      steps.push_back(step(kbs.back()));
    }
    Value c = countIn;
    for (int64_t i = 0; i < size; ++i) {
      Value above =
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::sge, kbs[i], r.lo);
      Value below =
          arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, kbs[i], r.hi);
      Value inRange = arith::AndIOp::create(e.b, above, below);
      if (store) {
        auto ifIn = scf::IfOp::create(e.b, inRange, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(e.b);
        e.b.setInsertionPointToStart(ifIn.thenBlock());
        store(e.add(c, one), kbs[i]);
      }
      c = e.add(c, e.select(inRange, steps[i], zero));
    }
    return c;
  };
  Value count = zero;
  if (whole > 0)
    count = e.forLoop(zero, e.index(whole), e.index(kLiveChunk), {zero},
                      [&](Value first, ValueRange iter) {
                        return SmallVector<Value>{
                            chunk(first, kLiveChunk, iter[0])};
                      })[0];
  if (whole < keyBlocks)
    count = chunk(e.index(whole), keyBlocks - whole, count);
  return count;
}

/// The list dispatch's body: one list, as the header describes.
static void buildLiveBlocksBody(OpBuilder &builder, Location loc,
                                const AttentionProblem &p,
                                const LiveBlockGrid &grid, bool vulkan,
                                Value blockMask, Value list) {
  Emitter e(builder, loc, 1);
  Value qBlock = WorkgroupIdOp::create(e.b, 0);
  Value head = WorkgroupIdOp::create(e.b, 1);
  Value batch = WorkgroupIdOp::create(e.b, 2);
  Value zero = e.index(0), one = e.index(1);
  ListRange r = listRange(e, p, grid, qBlock);
  auto step = [&](Value kb) {
    return liveStep(e, grid, blockMask, batch, head, r.maskRow, kb);
  };
  auto store = [&](Value position, Value kb) {
    memref::StoreOp::create(e.b, e.toI32(kb), list,
                            ValueRange{batch, head, qBlock, position});
  };
  Value count;
  if (vulkan && blockMask)
    count = countInChunks(e, p, grid, r, step, store);
  else
    count = e.forLoop(r.lo, r.hi, one, {zero}, [&](Value kb, ValueRange iter) {
      store(e.add(iter[0], one), kb);
      return SmallVector<Value>{e.add(iter[0], step(kb))};
    })[0];
  memref::StoreOp::create(e.b, e.toI32(count), list,
                          ValueRange{batch, head, qBlock, zero});
}

/// The ordered list dispatch's body: one workgroup of `threads` threads,
/// thread t the job (attention workgroup) t = query block + query blocks *
/// (head + heads * batch). Each thread counts its list's live blocks; a
/// stable counting sort by decreasing count (bucket = key blocks - count)
/// gives its rank: the buckets before its own, the same bucket in earlier
/// groups of kOrderGroup threads, then in earlier threads of its group.
/// Row `rank` of the lists gets the count, the job and the live blocks.
/// Integer counts in shared memory, no atomics: the same order every run.
static void buildOrderedLiveBlocksBody(OpBuilder &builder, Location loc,
                                       const AttentionProblem &p,
                                       const LiveBlockGrid &grid,
                                       int64_t threads, Value blockMask,
                                       Value list) {
  Emitter e(builder, loc, 1);
  Type i32 = e.b.getI32Type();
  int64_t qBlocks = grid.numQueryBlocks(p), keyBlocks = grid.numKeyBlocks(p);
  int64_t jobs = qBlocks * p.numHeads * p.batch;
  int64_t buckets = keyBlocks + 1, groups = threads / kOrderGroup;
  Value zero = e.index(0), one = e.index(1);
  Value t = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  Value active =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, t, e.index(jobs));
  Value job = e.min(t, e.index(jobs - 1));
  Value qBlock = arith::RemUIOp::create(e.b, job, e.index(qBlocks));
  Value headBatch = e.div(job, e.index(qBlocks));
  Value head = arith::RemUIOp::create(e.b, headBatch, e.index(p.numHeads));
  Value batch = e.div(headBatch, e.index(p.numHeads));
  Value maskBatch = p.liveBroadcastsBatch ? zero : batch;
  Value maskHead = p.liveBroadcastsHeads ? zero : head;
  ListRange r = listRange(e, p, grid, qBlock);
  auto step = [&](Value kb) {
    return liveStep(e, grid, blockMask, maskBatch, maskHead, r.maskRow, kb);
  };
  Value count = countInChunks(e, p, grid, r, step, nullptr);
  // Threads past the jobs take bucket `buckets`, which no job has.
  Value bucket =
      e.select(active, e.sub(e.index(keyBlocks), count), e.index(buckets));
  Value sBucket = allocWorkgroupOf(e, threads, i32);
  Value sGroupHist = allocWorkgroupOf(e, groups * buckets, i32);
  Value sHist = allocWorkgroupOf(e, buckets, i32);
  memref::StoreOp::create(e.b, e.toI32(bucket), sBucket, ValueRange{t});
  gpu::BarrierOp::create(e.b);

  // Within the group: the earlier threads in this thread's bucket, and the
  // group's count of buckets lane, lane + kOrderGroup, ...
  Value group = e.div(t, e.index(kOrderGroup));
  Value lane = arith::RemUIOp::create(e.b, t, e.index(kOrderGroup));
  Value groupStart = e.mul(group, e.index(kOrderGroup));
  int64_t perLane = (buckets + kOrderGroup - 1) / kOrderGroup;
  SmallVector<Value> laneBuckets, laneCounts;
  for (int64_t k = 0; k < perLane; ++k) {
    laneBuckets.push_back(e.add(lane, e.index(k * kOrderGroup)));
    laneCounts.push_back(zero);
  }
  auto toIndex = [&](Value v) {
    return arith::IndexCastOp::create(e.b, e.b.getIndexType(), v);
  };
  auto countIf = [&](Value sum, Value condition) {
    return e.add(sum, e.select(condition, one, zero));
  };
  Value local = zero;
  for (int64_t i = 0; i < kOrderGroup; ++i) {
    Value other = toIndex(memref::LoadOp::create(
        e.b, sBucket, ValueRange{e.add(groupStart, e.index(i))}));
    Value same =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq, other, bucket);
    Value earlier =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::sgt, lane, e.index(i));
    local = countIf(local, arith::AndIOp::create(e.b, same, earlier));
    for (int64_t k = 0; k < perLane; ++k)
      laneCounts[k] = countIf(
          laneCounts[k], arith::CmpIOp::create(e.b, arith::CmpIPredicate::eq,
                                               other, laneBuckets[k]));
  }
  Value groupRow = e.mul(group, e.index(buckets));
  for (int64_t k = 0; k < perLane; ++k) {
    Value inRange = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt,
                                          laneBuckets[k], e.index(buckets));
    auto ifIn = scf::IfOp::create(e.b, inRange, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(ifIn.thenBlock());
    memref::StoreOp::create(e.b, e.toI32(laneCounts[k]), sGroupHist,
                            ValueRange{e.add(groupRow, laneBuckets[k])});
  }
  gpu::BarrierOp::create(e.b);

  // Thread b < buckets totals bucket b; every thread counts its bucket in
  // the earlier groups.
  Value myBucket = e.min(bucket, e.index(buckets - 1));
  Value histBucket = e.min(t, e.index(buckets - 1));
  Value earlierGroups = zero, total = zero;
  for (int64_t g = 0; g < groups; ++g) {
    Value row = e.index(g * buckets);
    Value mine = toIndex(memref::LoadOp::create(
        e.b, sGroupHist, ValueRange{e.add(row, myBucket)}));
    Value before = arith::CmpIOp::create(e.b, arith::CmpIPredicate::sgt, group,
                                         e.index(g));
    earlierGroups = e.add(earlierGroups, e.select(before, mine, zero));
    total =
        e.add(total, toIndex(memref::LoadOp::create(
                         e.b, sGroupHist, ValueRange{e.add(row, histBucket)})));
  }
  {
    Value isBucket = arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, t,
                                           e.index(buckets));
    auto ifBucket = scf::IfOp::create(e.b, isBucket, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(e.b);
    e.b.setInsertionPointToStart(ifBucket.thenBlock());
    memref::StoreOp::create(e.b, e.toI32(total), sHist, ValueRange{t});
  }
  gpu::BarrierOp::create(e.b);

  Value rank = e.add(earlierGroups, local);
  for (int64_t b = 0; b < buckets; ++b) {
    Value before = arith::CmpIOp::create(e.b, arith::CmpIPredicate::sgt,
                                         myBucket, e.index(b));
    Value h =
        toIndex(memref::LoadOp::create(e.b, sHist, ValueRange{e.index(b)}));
    rank = e.add(rank, e.select(before, h, zero));
  }

  auto ifActive = scf::IfOp::create(e.b, active, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPointToStart(ifActive.thenBlock());
  countInChunks(e, p, grid, r, step, [&](Value position, Value kb) {
    memref::StoreOp::create(e.b, e.toI32(kb), list,
                            ValueRange{zero, zero, rank, e.add(position, one)});
  });
  memref::StoreOp::create(e.b, e.toI32(count), list,
                          ValueRange{zero, zero, rank, zero});
  memref::StoreOp::create(e.b, e.toI32(job), list,
                          ValueRange{zero, zero, rank, one});
}

/// The transposed list dispatch's body: per kernel key block, the query
/// blocks that see it, by the same running count (the backward's dK/dV
/// pass reads them).
static void buildLiveQueryBlocksBody(OpBuilder &builder, Location loc,
                                     const AttentionProblem &p,
                                     const LiveBlockGrid &grid, Value blockMask,
                                     Value list) {
  Emitter e(builder, loc, 1);
  Value kBlock = WorkgroupIdOp::create(e.b, 0);
  Value head = WorkgroupIdOp::create(e.b, 1);
  Value batch = WorkgroupIdOp::create(e.b, 2);
  Value zero = e.index(0), one = e.index(1);
  Value keyStart = e.mul(kBlock, e.index(grid.blockK));
  Value lastKey =
      e.min(e.add(keyStart, e.index(grid.blockK - 1)), e.index(p.seqK - 1));

  // Queries [rowLo, rowHi) that may see a key of the block by position:
  // query i's diagonal key is i + offset.
  int64_t offset = p.maskOffset();
  Value rowLo = zero;
  Value rowHi = e.index(p.seqQ);
  if (p.causal)
    rowLo = e.max(rowLo, e.sub(keyStart, e.index(offset)));
  if (p.slidingWindow) {
    auto [left, right] = *p.slidingWindow;
    rowLo = e.max(rowLo, e.sub(keyStart, e.index(offset + right)));
    rowHi = e.min(rowHi, e.add(lastKey, e.index(left - offset + 1)));
  }
  if (p.chunkSize) {
    // Diagonals in the chunks of the block's keys.
    int64_t c = *p.chunkSize;
    Value first = e.mul(e.div(keyStart, e.index(c)), e.index(c));
    Value end = e.mul(e.add(e.div(lastKey, e.index(c)), one), e.index(c));
    rowLo = e.max(rowLo, e.sub(first, e.index(offset)));
    rowHi = e.min(rowHi, e.sub(end, e.index(offset)));
  }
  Value lo = e.div(e.max(rowLo, zero), e.index(grid.blockQ));
  Value ceil = e.div(e.add(e.max(rowHi, zero), e.index(grid.blockQ - 1)),
                     e.index(grid.blockQ));
  Value any =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::sgt, rowHi, rowLo);
  Value hi = e.select(any, ceil, lo);

  Value maskCol = e.div(keyStart, e.index(grid.maskBlockK));
  Value count = e.forLoop(lo, hi, one, {zero}, [&](Value qb, ValueRange iter) {
    Value position = e.add(iter[0], one);
    memref::StoreOp::create(e.b, e.toI32(qb), list,
                            ValueRange{batch, head, kBlock, position});
    if (!blockMask)
      return SmallVector<Value>{position};
    Value maskRow =
        e.div(e.mul(qb, e.index(grid.blockQ)), e.index(grid.maskBlockQ));
    Value live = memref::LoadOp::create(
        e.b, blockMask, ValueRange{batch, head, maskRow, maskCol});
    Value step = arith::IndexCastOp::create(
        e.b, e.b.getIndexType(),
        arith::ExtUIOp::create(e.b, e.b.getI32Type(), live));
    return SmallVector<Value>{e.add(iter[0], step)};
  })[0];
  memref::StoreOp::create(e.b, e.toI32(count), list,
                          ValueRange{batch, head, kBlock, zero});
}

LiveBlocksDispatch mlir::ejk::addLiveBlocksListDispatch(
    DispatchRewriter &rewriter, const AttentionProblem &p,
    const LiveBlockGrid &grid, bool vulkan, Value blockMask, bool transposed,
    StringRef name) {
  MLIRContext *context = rewriter.dispatch().getContext();
  MemRefType listType = transposed ? grid.transposedListType(p, context)
                                   : grid.listType(p, context);
  SmallVector<Type> argTypes;
  if (blockMask)
    argTypes.push_back(blockMask.getType());
  argTypes.push_back(listType);
  Grid listGrid = {listType.getDimSize(2), listType.getDimSize(1),
                   listType.getDimSize(0)};
  func::FuncOp build = rewriter.addDispatch(
      name, argTypes, listGrid,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value mask = blockMask ? args[0] : Value();
        if (transposed)
          buildLiveQueryBlocksBody(b, loc, p, grid, mask, args.back());
        else
          buildLiveBlocksBody(b, loc, p, grid, vulkan, mask, args.back());
      });
  if (vulkan)
    DispatchRewriter::setVulkanLaunch(build, 1, 0);
  DispatchRewriter::setWork(build, 0,
                            DispatchRewriter::bytesOf(blockMask) +
                                listType.getNumElements() * 4);
  return {build, listType};
}

/// The threads of the ordered list dispatch of `grid` (its jobs rounded up
/// to whole groups), or 0 where it does not apply: more jobs than
/// `maxThreads` or more than kMaxOrderedKeyBlocks key blocks (its unrolled
/// bucket loops grow with them).
static int64_t orderedThreads(const AttentionProblem &p,
                              const LiveBlockGrid &grid, int64_t maxThreads) {
  int64_t jobs = grid.numQueryBlocks(p) * p.numHeads * p.batch;
  int64_t threads = (jobs + kOrderGroup - 1) / kOrderGroup * kOrderGroup;
  if (threads > maxThreads || grid.numKeyBlocks(p) > kMaxOrderedKeyBlocks)
    return 0;
  return threads;
}

/// The ordered list dispatch (one workgroup; buildOrderedLiveBlocksBody).
static LiveBlocksDispatch addOrderedListDispatch(DispatchRewriter &rewriter,
                                                 const AttentionProblem &p,
                                                 const LiveBlockGrid &grid,
                                                 int64_t threads,
                                                 Value blockMask) {
  MLIRContext *context = rewriter.dispatch().getContext();
  int64_t jobs = grid.numQueryBlocks(p) * p.numHeads * p.batch;
  int64_t buckets = grid.numKeyBlocks(p) + 1;
  auto listType = MemRefType::get({1, 1, jobs, 2 + grid.numKeyBlocks(p)},
                                  IntegerType::get(context, 32));
  SmallVector<Type> argTypes;
  if (blockMask)
    argTypes.push_back(blockMask.getType());
  argTypes.push_back(listType);
  func::FuncOp build = rewriter.addDispatch(
      "live_blocks", argTypes, Grid{1, 1, 1},
      [&](OpBuilder &b, Location loc, ValueRange args) {
        buildOrderedLiveBlocksBody(b, loc, p, grid, threads,
                                   blockMask ? args[0] : Value(), args.back());
      });
  DispatchRewriter::setVulkanLaunch(
      build, threads,
      4 * (threads + threads / kOrderGroup * buckets + buckets));
  DispatchRewriter::setWork(build, 0,
                            DispatchRewriter::bytesOf(blockMask) +
                                listType.getNumElements() * 4);
  return {build, listType};
}

LogicalResult mlir::ejk::addLiveBlocksDispatch(DispatchRewriter &rewriter,
                                               const AttentionProblem &p,
                                               const LiveBlockGrid &grid,
                                               bool vulkan,
                                               AttentionBuffers &buffers,
                                               int64_t orderThreads) {
  int64_t threads = vulkan ? orderedThreads(p, grid, orderThreads) : 0;
  LiveBlocksDispatch list =
      threads ? addOrderedListDispatch(rewriter, p, grid, threads,
                                       buffers.blockMask)
              : addLiveBlocksListDispatch(rewriter, p, grid, vulkan,
                                          buffers.blockMask,
                                          /*transposed=*/false, "live_blocks");
  MemRefType listType = list.type;
  func::FuncOp build = list.fn;

  FailureOr<SmallVector<Value>> lists = rewriter.appendArguments({listType});
  if (failed(lists))
    return failure();
  buffers.liveBlocks = (*lists)[0];
  std::optional<unsigned> maskIndex;
  if (buffers.blockMask)
    maskIndex = DispatchRewriter::argumentIndex(buffers.blockMask);
  rewriter.rewriteCallers({listType}, [&](OpBuilder &b, Location loc,
                                          DispatchOp call, ValueRange temps) {
    SmallVector<Value> listBindings;
    if (maskIndex)
      listBindings.push_back(call.getBuffers()[*maskIndex]);
    listBindings.push_back(temps[0]);
    DispatchOp::create(b, loc, build.getSymName(), listBindings);
    SmallVector<Value> bindings(call.getBuffers());
    bindings.append(temps.begin(), temps.end());
    DispatchOp::create(b, loc, call.getCallee(), bindings);
  });
  return success();
}

LiveBlockList mlir::ejk::liveBlockList(Emitter &e, const AttentionProblem &p,
                                       const AttentionBuffers &buffers,
                                       Value batch, Value head, Value qBlock) {
  return liveBlockList(e, p, buffers.liveBlocks, batch, head, qBlock);
}

LiveBlockList mlir::ejk::liveBlockList(Emitter &e, const AttentionProblem &p,
                                       Value lists, Value batch, Value head,
                                       Value block) {
  return {lists, p.liveBroadcastsBatch ? e.index(0) : batch,
          p.liveBroadcastsHeads ? e.index(0) : head, block};
}

Value LiveBlockList::count(Emitter &e) const {
  Value n = memref::LoadOp::create(e.b, list,
                                   ValueRange{batch, head, qBlock, e.index(0)});
  return arith::IndexCastOp::create(e.b, e.b.getIndexType(), n);
}

Value LiveBlockList::at(Emitter &e, Value i) const {
  Value kb = memref::LoadOp::create(
      e.b, list, ValueRange{batch, head, qBlock, e.add(i, e.index(first))});
  return arith::IndexCastOp::create(e.b, e.b.getIndexType(), kb);
}

bool mlir::ejk::isOrderedLiveList(const AttentionProblem &p, Value lists,
                                  int64_t blockK) {
  auto type = cast<MemRefType>(lists.getType());
  return type.getDimSize(3) == 2 + (p.seqK + blockK - 1) / blockK;
}

LiveBlockList mlir::ejk::workgroupLiveList(Emitter &e,
                                           const AttentionProblem &p,
                                           Value lists, int64_t blockQ,
                                           int64_t blockK, Value &qBlock,
                                           Value &head, Value &batch) {
  if (!isOrderedLiveList(p, lists, blockK))
    return liveBlockList(e, p, lists, batch, head, qBlock);
  // One op per statement: the IR must not depend on the compiler's order of
  // argument evaluation.
  int64_t qBlocks = (p.seqQ + blockQ - 1) / blockQ;
  Value headCount = e.index(p.numHeads);
  Value headBatch = e.add(head, e.mul(batch, headCount));
  Value blockCount = e.index(qBlocks);
  Value linear = e.add(qBlock, e.mul(headBatch, blockCount));
  Value zero = e.index(0);
  LiveBlockList list{lists, zero, zero, linear, /*first=*/2};
  Value job = arith::IndexCastOp::create(
      e.b, e.b.getIndexType(),
      memref::LoadOp::create(e.b, lists,
                             ValueRange{zero, zero, linear, e.index(1)}));
  qBlock = arith::RemUIOp::create(e.b, job, e.index(qBlocks));
  Value jobHeadBatch = e.div(job, e.index(qBlocks));
  head = arith::RemUIOp::create(e.b, jobHeadBatch, e.index(p.numHeads));
  batch = e.div(jobHeadBatch, e.index(p.numHeads));
  return list;
}
