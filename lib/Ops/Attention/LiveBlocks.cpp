//===- LiveBlocks.cpp - the live key blocks of block-sparse attention -----===//

#include "Attention/LiveBlocks.h"
#include "Common/Arithmetic.h"
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
  Value divisorValue = e.index(divisor);
  Value roundUp = e.index(divisor - 1);
  Value down = e.sub(zero, e.div(e.add(e.sub(zero, x), roundUp), divisorValue));
  return e.select(negative, down, e.div(x, e.index(divisor)));
}

/// The kernel key blocks [lo, hi) the positional masks (causal, window,
/// chunk) leave to some row of the query block that starts at `rowStart`.
static std::pair<Value, Value> positionalKeyBlocks(Emitter &e,
                                                   const AttentionProblem &p,
                                                   const LiveBlockGrid &grid,
                                                   Value rowStart) {
  Value zero = e.index(0), one = e.index(1);
  Value lastQuery = e.index(p.seqQ - 1);
  Value lastRow = e.min(e.add(rowStart, e.index(grid.blockQ - 1)), lastQuery);

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
    Value chunkSize = e.index(c);
    keyLo = e.max(keyLo, e.mul(floorDivPositive(e, firstDiag, c), chunkSize));
    Value endChunkSize = e.index(c);
    keyHi = e.min(keyHi, e.mul(e.add(floorDivPositive(e, lastDiag, c), one),
                               endChunkSize));
  }
  Value blockK = e.index(grid.blockK);
  Value lo = e.div(e.max(keyLo, zero), blockK);
  Value ceilBlockK = e.index(grid.blockK);
  Value roundUp = e.index(grid.blockK - 1);
  Value ceil = e.div(e.add(e.max(keyHi, zero), roundUp), ceilBlockK);
  Value any =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::sgt, keyHi, keyLo);
  return {lo, e.select(any, ceil, lo)};
}

/// Whether mask block (`maskRow`, `maskCol`) of `blockMask` (indexed at
/// `batch`, `head` as given) is live, as an index 0/1.
static Value maskFlag(Emitter &e, Value blockMask, Value batch, Value head,
                      Value maskRow, Value maskCol) {
  Value live = memref::LoadOp::create(
      e.b, blockMask, ValueRange{batch, head, maskRow, maskCol});
  return arith::IndexCastOp::create(
      e.b, e.b.getIndexType(),
      arith::ExtUIOp::create(e.b, e.b.getI32Type(), live));
}

/// Whether kernel key block `kb` of query block `maskRow`'s mask row is
/// live (`blockMask` indexed at `batch`, `head` as given), as an index 0/1.
static Value liveFlag(Emitter &e, const LiveBlockGrid &grid, Value blockMask,
                      Value batch, Value head, Value maskRow, Value kb) {
  Value maskBlockK = e.index(grid.maskBlockK);
  Value maskCol = e.div(e.mul(kb, e.index(grid.blockK)), maskBlockK);
  return maskFlag(e, blockMask, batch, head, maskRow, maskCol);
}

namespace {
/// A list dispatch's workgroup: the block whose list it writes, its head
/// and batch, and the index constants both list bodies use.
struct ListWorkgroup {
  Value block, head, batch, zero, one;
};
} // namespace

static ListWorkgroup listWorkgroup(Emitter &e) {
  ListWorkgroup w;
  w.block = WorkgroupIdOp::create(e.b, 0);
  w.head = WorkgroupIdOp::create(e.b, 1);
  w.batch = WorkgroupIdOp::create(e.b, 2);
  w.zero = e.index(0);
  w.one = e.index(1);
  return w;
}

/// The running count of both list bodies: every block of [lo, hi) written
/// at 1 + the count so far, the count advanced by `flagOf(block)` (by 1
/// where `flagOf` is null: no block mask), the count at entry 0.
static void writeRunningList(Emitter &e, const ListWorkgroup &w, Value list,
                             Value lo, Value hi,
                             function_ref<Value(Value)> flagOf) {
  Value count =
      e.forLoop(lo, hi, w.one, {w.zero}, [&](Value block, ValueRange iter) {
        Value position = e.add(iter[0], w.one);
        memref::StoreOp::create(e.b, e.toI32(block), list,
                                ValueRange{w.batch, w.head, w.block, position});
        if (!flagOf)
          return SmallVector<Value>{position};
        Value step = flagOf(block);
        return SmallVector<Value>{e.add(iter[0], step)};
      })[0];
  memref::StoreOp::create(e.b, e.toI32(count), list,
                          ValueRange{w.batch, w.head, w.block, w.zero});
}

/// The list dispatch's body: one list, as the header describes.
static void buildLiveBlocksBody(OpBuilder &builder, Location loc,
                                const AttentionProblem &p,
                                const LiveBlockGrid &grid, Value blockMask,
                                Value list) {
  Emitter e(builder, loc, 1);
  ListWorkgroup w = listWorkgroup(e);
  Value rowStart = e.mul(w.block, e.index(grid.blockQ));
  auto [lo, hi] = positionalKeyBlocks(e, p, grid, rowStart);

  Value maskRow = e.div(rowStart, e.index(grid.maskBlockQ));
  auto flag = [&](Value kb) {
    return liveFlag(e, grid, blockMask, w.batch, w.head, maskRow, kb);
  };
  writeRunningList(e, w, list, lo, hi,
                   blockMask ? function_ref<Value(Value)>(flag) : nullptr);
}

/// The transposed list dispatch's body: per kernel key block, the query
/// blocks that see it, by the same running count (the backward's dK/dV
/// pass reads them).
static void buildLiveQueryBlocksBody(OpBuilder &builder, Location loc,
                                     const AttentionProblem &p,
                                     const LiveBlockGrid &grid, Value blockMask,
                                     Value list) {
  Emitter e(builder, loc, 1);
  ListWorkgroup w = listWorkgroup(e);
  Value zero = w.zero, one = w.one;
  Value keyStart = e.mul(w.block, e.index(grid.blockK));
  Value lastSeqKey = e.index(p.seqK - 1);
  Value lastKey = e.min(e.add(keyStart, e.index(grid.blockK - 1)), lastSeqKey);

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
    Value chunkSize = e.index(c);
    Value first = e.mul(e.div(keyStart, e.index(c)), chunkSize);
    Value endChunkSize = e.index(c);
    Value end = e.mul(e.add(e.div(lastKey, e.index(c)), one), endChunkSize);
    rowLo = e.max(rowLo, e.sub(first, e.index(offset)));
    rowHi = e.min(rowHi, e.sub(end, e.index(offset)));
  }
  Value blockQ = e.index(grid.blockQ);
  Value lo = e.div(e.max(rowLo, zero), blockQ);
  Value ceilBlockQ = e.index(grid.blockQ);
  Value roundUp = e.index(grid.blockQ - 1);
  Value ceil = e.div(e.add(e.max(rowHi, zero), roundUp), ceilBlockQ);
  Value any =
      arith::CmpIOp::create(e.b, arith::CmpIPredicate::sgt, rowHi, rowLo);
  Value hi = e.select(any, ceil, lo);

  Value maskCol = e.div(keyStart, e.index(grid.maskBlockK));
  auto flag = [&](Value qb) {
    Value maskBlockQ = e.index(grid.maskBlockQ);
    Value maskRow = e.div(e.mul(qb, e.index(grid.blockQ)), maskBlockQ);
    return maskFlag(e, blockMask, w.batch, w.head, maskRow, maskCol);
  };
  writeRunningList(e, w, list, lo, hi,
                   blockMask ? function_ref<Value(Value)>(flag) : nullptr);
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
          buildLiveBlocksBody(b, loc, p, grid, mask, args.back());
      });
  if (vulkan)
    DispatchRewriter::setVulkanLaunch(build, 1, 0);
  DispatchRewriter::setWork(build, 0,
                            DispatchRewriter::bytesOf(blockMask) +
                                listType.getNumElements() * 4);
  return {build, listType};
}

LogicalResult mlir::ejk::addLiveBlocksDispatch(DispatchRewriter &rewriter,
                                               const AttentionProblem &p,
                                               const LiveBlockGrid &grid,
                                               bool vulkan,
                                               AttentionBuffers &buffers) {
  LiveBlocksDispatch list =
      addLiveBlocksListDispatch(rewriter, p, grid, vulkan, buffers.blockMask,
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
  if (localCount)
    return localCount;
  Value n = memref::LoadOp::create(e.b, list,
                                   ValueRange{batch, head, qBlock, e.index(0)});
  return arith::IndexCastOp::create(e.b, e.b.getIndexType(), n);
}

Value LiveBlockList::at(Emitter &e, Value i) const {
  if (localCount)
    return arith::IndexCastOp::create(
        e.b, e.b.getIndexType(),
        memref::LoadOp::create(e.b, list, ValueRange{i}));
  Value kb = memref::LoadOp::create(
      e.b, list, ValueRange{batch, head, qBlock, e.add(i, e.index(1))});
  return arith::IndexCastOp::create(e.b, e.b.getIndexType(), kb);
}

/// Mask columns a thread loads at most for one job's list length (one
/// load each, unrolled).
static constexpr int64_t kMaxOrderColumns = 64;

/// Key blocks a workgroup flags at once when it builds its own list: each
/// thread then sums up to this many flags.
static constexpr int64_t kListChunk = 64;

static int64_t listChunk(int64_t keyBlocks, int64_t threads) {
  return std::min({keyBlocks, threads, kListChunk});
}

int64_t mlir::ejk::workgroupLiveBlocksBytes(const AttentionProblem &p,
                                            int64_t blockQ, int64_t blockK,
                                            int64_t threads) {
  LiveBlockGrid grid{blockQ, blockK, p.maskBlockQ, p.maskBlockK};
  int64_t keyBlocks = grid.numKeyBlocks(p);
  return 4 * (keyBlocks + listChunk(keyBlocks, threads));
}

/// Runs `body` where `cond` holds (always where `cond` is null).
static void guardedBy(Emitter &e, Value cond, function_ref<void()> body) {
  if (!cond) {
    body();
    return;
  }
  auto ifOp = scf::IfOp::create(e.b, cond, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPointToStart(ifOp.thenBlock());
  body();
}

LiveBlockList mlir::ejk::workgroupLiveBlockList(
    Emitter &e, const AttentionProblem &p, const AttentionBuffers &buffers,
    int64_t blockQ, int64_t blockK, int64_t threads, Value threadId,
    Value batch, Value head, Value qBlock) {
  if (buffers.liveBlocks)
    return liveBlockList(e, p, buffers, batch, head, qBlock);
  LiveBlockGrid grid{blockQ, blockK, p.maskBlockQ, p.maskBlockK};
  int64_t keyBlocks = grid.numKeyBlocks(p);
  int64_t chunk = listChunk(keyBlocks, threads);
  Value entries = allocWorkgroupOf(e, keyBlocks, e.i32);
  Value flags = allocWorkgroupOf(e, chunk, e.i32);
  Value zero = e.index(0), one = e.index(1);
  Value rowStart = e.mul(qBlock, e.index(blockQ));
  auto [lo, hi] = positionalKeyBlocks(e, p, grid, rowStart);
  Value maskRow = e.div(rowStart, e.index(grid.maskBlockQ));
  Value maskBatch = p.liveBroadcastsBatch ? zero : batch;
  Value maskHead = p.liveBroadcastsHeads ? zero : head;
  // Threads past the chunk's width take no block.
  Value active = threads > chunk
                     ? arith::CmpIOp::create(e.b, arith::CmpIPredicate::ult,
                                             threadId, e.index(chunk))
                           .getResult()
                     : Value();
  Value running = zero;
  for (int64_t base = 0; base < keyBlocks; base += chunk) {
    // The previous chunk's sums are done before its flags are replaced.
    if (base > 0)
      gpu::BarrierOp::create(e.b);
    Value kb = e.add(lo, e.add(threadId, e.index(base)));
    Value inRange =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::slt, kb, hi);
    Value flag = e.select(inRange, one, zero);
    if (buffers.blockMask) {
      // Clamped so the load stays inside the mask for any thread.
      Value live = liveFlag(e, grid, buffers.blockMask, maskBatch, maskHead,
                            maskRow, e.min(kb, e.index(keyBlocks - 1)));
      flag = e.select(inRange, live, zero);
    }
    Value slot = threadId;
    guardedBy(e, active, [&] {
      memref::StoreOp::create(e.b, e.toI32(flag), flags, ValueRange{slot});
    });
    gpu::BarrierOp::create(e.b);
    // This block's position: the flags before it; the chunk's count: all.
    SmallVector<Value> sums = e.forLoop(
        zero, e.index(chunk), one, {zero, zero}, [&](Value j, ValueRange s) {
          Value f = arith::IndexCastOp::create(
              e.b, e.b.getIndexType(),
              memref::LoadOp::create(e.b, flags, ValueRange{j}));
          Value before =
              arith::CmpIOp::create(e.b, arith::CmpIPredicate::ult, j, slot);
          return SmallVector<Value>{e.add(s[0], e.select(before, f, zero)),
                                    e.add(s[1], f)};
        });
    Value isLive =
        arith::CmpIOp::create(e.b, arith::CmpIPredicate::ne, flag, zero);
    Value writes = active
                       ? arith::AndIOp::create(e.b, active, isLive).getResult()
                       : isLive;
    Value position = e.add(running, sums[0]);
    guardedBy(e, writes, [&] {
      memref::StoreOp::create(e.b, e.toI32(kb), entries, ValueRange{position});
    });
    running = e.add(running, sums[1]);
  }
  // The entries are read by every thread from here on.
  gpu::BarrierOp::create(e.b);
  LiveBlockList list{entries, batch, head, qBlock};
  list.localCount = running;
  return list;
}

/// Jobs in the group orderLiveBlockJobs ranks at most: about two waves of
/// one-workgroup-a-core kernels on a GPU of 100-150 cores (H200, same call:
/// gsparse 25 % 231.4 us with 128, 223.9 with 256).
static constexpr int64_t kOrderGroupJobs = 256;

/// Jobs in one group of orderLiveBlockJobs (whole heads), or 0.
static int64_t jobGroupSize(const AttentionProblem &p, bool hasBlockMask,
                            int64_t blockQ, int64_t threads) {
  if (!hasBlockMask || p.causal || p.maskBlockK <= 0)
    return 0;
  int64_t maskColumns =
      p.maskBlockK >= p.seqK ? 1 : (p.seqK + p.maskBlockK - 1) / p.maskBlockK;
  int64_t queryBlocks = (p.seqQ + blockQ - 1) / blockQ;
  int64_t target = std::min(threads, kOrderGroupJobs);
  if (queryBlocks > target || maskColumns > kMaxOrderColumns)
    return 0;
  // No order where the job count overflows (no device runs such a grid).
  std::optional<int64_t> jobs =
      checkedProduct({queryBlocks, p.numHeads, p.batch});
  if (!jobs)
    return 0;
  return std::min(*jobs, queryBlocks * (target / queryBlocks));
}

int64_t mlir::ejk::liveBlockJobOrderBytes(const AttentionProblem &p,
                                          bool hasBlockMask, int64_t blockQ,
                                          int64_t threads) {
  return 8 * jobGroupSize(p, hasBlockMask, blockQ, threads);
}

bool mlir::ejk::orderLiveBlockJobs(Emitter &e, const AttentionProblem &p,
                                   const AttentionBuffers &buffers,
                                   int64_t blockQ, int64_t blockK,
                                   int64_t threads, Value &qBlock, Value &head,
                                   Value &batch) {
  int64_t group = jobGroupSize(p, bool(buffers.blockMask), blockQ, threads);
  if (!group || buffers.liveBlocks)
    return false;
  LiveBlockGrid grid{blockQ, blockK, p.maskBlockQ, p.maskBlockK};
  int64_t queryBlocks = grid.numQueryBlocks(p);
  int64_t keyBlocks = grid.numKeyBlocks(p);
  // Cannot overflow: jobGroupSize checked it.
  int64_t jobs = queryBlocks * p.numHeads * p.batch;
  int64_t groups = (jobs + group - 1) / group;
  int64_t firstSorted = groups - 1;
  int64_t maskColumns =
      cast<MemRefType>(buffers.blockMask.getType()).getDimSize(3);
  // Kernel key blocks a mask column holds (a kernel block lies in one).
  int64_t perColumn = maskColumns == 1 ? keyBlocks : p.maskBlockK / blockK;

  Value zero = e.index(0), one = e.index(1);
  Value headCount = e.index(p.numHeads);
  Value blockCount = e.index(queryBlocks);
  Value groupSize = e.index(group);
  // One op per statement: the order of argument evaluation differs between
  // compilers, and the IR must not.
  Value headBatch = e.add(head, e.mul(headCount, batch));
  Value linear = e.add(qBlock, e.mul(blockCount, headBatch));
  Value groupIndex = arith::DivUIOp::create(e.b, linear, groupSize);
  Value keys = allocWorkgroupOf(e, group, e.i32);
  Value order = allocWorkgroupOf(e, group, e.i32);
  Value threadId = gpu::ThreadIdOp::create(e.b, gpu::Dimension::x);
  auto decode = [&](Value job) -> SmallVector<Value> {
    Value block = arith::RemUIOp::create(e.b, job, blockCount);
    Value pair = arith::DivUIOp::create(e.b, job, blockCount);
    Value h = arith::RemUIOp::create(e.b, pair, headCount);
    Value b = arith::DivUIOp::create(e.b, pair, headCount);
    return {block, h, b};
  };
  Type index = e.b.getIndexType();
  auto sortedIds = [&]() -> SmallVector<Value> {
    Value groupStart = e.mul(groupIndex, groupSize);
    Value active = threads > group
                       ? arith::CmpIOp::create(e.b, arith::CmpIPredicate::ult,
                                               threadId, groupSize)
                             .getResult()
                       : Value();
    // Thread t: job groupStart + t's list length, then its key (count,
    // then the earlier job first; past the grid's last job below all).
    guardedBy(e, active, [&] {
      Value job = e.add(groupStart, threadId);
      Value valid = arith::CmpIOp::create(e.b, arith::CmpIPredicate::ult, job,
                                          e.index(jobs));
      SmallVector<Value> id = decode(e.min(job, e.index(jobs - 1)));
      Value rowStart = e.mul(id[0], e.index(blockQ));
      auto [lo, hi] = positionalKeyBlocks(e, p, grid, rowStart);
      Value maskRow = e.div(rowStart, e.index(grid.maskBlockQ));
      Value maskBatch = p.liveBroadcastsBatch ? zero : id[2];
      Value maskHead = p.liveBroadcastsHeads ? zero : id[1];
      Value count = zero;
      for (int64_t c = 0; c < maskColumns; ++c) {
        Value first = e.max(lo, e.index(c * perColumn));
        Value last = e.min(hi, e.index((c + 1) * perColumn));
        Value blocks = e.max(e.sub(last, first), zero);
        Value live = maskFlag(e, buffers.blockMask, maskBatch, maskHead,
                              maskRow, e.index(c));
        count = e.add(count, e.mul(live, blocks));
      }
      Value tie = e.sub(e.index(group - 1), threadId);
      Value ranked = e.add(e.mul(e.add(count, one), groupSize), tie);
      Value key = e.select(valid, ranked, tie);
      memref::StoreOp::create(e.b, e.toI32(key), keys, ValueRange{threadId});
    });
    gpu::BarrierOp::create(e.b);
    // Thread t's rank: the keys above its own (all keys differ).
    guardedBy(e, active, [&] {
      Value mine = memref::LoadOp::create(e.b, keys, ValueRange{threadId});
      int64_t unroll = group % 4 == 0 ? 4 : group % 2 == 0 ? 2 : 1;
      Value rank = e.forLoop(
          zero, groupSize, e.index(unroll), {zero}, [&](Value k, ValueRange s) {
            Value acc = s[0];
            for (int64_t u = 0; u < unroll; ++u) {
              Value other = memref::LoadOp::create(
                  e.b, keys, ValueRange{e.add(k, e.index(u))});
              Value above = arith::CmpIOp::create(
                  e.b, arith::CmpIPredicate::ugt, other, mine);
              acc = e.add(acc, e.select(above, one, zero));
            }
            return SmallVector<Value>{acc};
          })[0];
      memref::StoreOp::create(e.b, e.toI32(threadId), order, ValueRange{rank});
    });
    gpu::BarrierOp::create(e.b);
    Value position = e.sub(linear, groupStart);
    Value picked = arith::IndexCastOp::create(
        e.b, index, memref::LoadOp::create(e.b, order, ValueRange{position}));
    return decode(e.add(groupStart, picked));
  };
  // One group: no test.
  SmallVector<Value> ids;
  if (firstSorted == 0) {
    ids = sortedIds();
  } else {
    Value sorted = arith::CmpIOp::create(e.b, arith::CmpIPredicate::uge,
                                         groupIndex, e.index(firstSorted));
    ids = e.ifElse(sorted, TypeRange{index, index, index}, sortedIds,
                   [&]() -> SmallVector<Value> {
                     return {qBlock, head, batch};
                   });
  }
  qBlock = ids[0];
  head = ids[1];
  batch = ids[2];
  return true;
}
