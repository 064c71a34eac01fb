//===- Tile.cpp - state-space dispatches on Vulkan ------------------------===//
//
// The same dispatches as on the CPU (a scan; an SSD's scores pre-pass and
// scan), each with its workgroup size and shared memory from the layouts.
//
//===----------------------------------------------------------------------===//

#include "StateSpace/ScoresPrePass.h"
#include "StateSpace/Vulkan/Kernels.h"
#include "StateSpace/Vulkan/StateSpace.h"

using namespace mlir;
using namespace mlir::ejk;

/// Adds `<dispatch>_states` (grid `grid`, body from `build` on `read` then
/// the two temporaries `temps`), the first dispatch of a split scan,
/// appends the temporaries to the scan's arguments and rewrites every call:
/// allocate them, run the states, run the scan. Returns the scan's new
/// arguments.
/// The types of `values`, then `temps`: a first dispatch's arguments.
static SmallVector<Type> argumentTypes(ArrayRef<Value> values,
                                       ArrayRef<MemRefType> temps) {
  SmallVector<Type> types;
  for (Value v : values)
    types.push_back(v.getType());
  types.append(temps.begin(), temps.end());
  return types;
}

static FailureOr<std::pair<Value, Value>>
addSplitStates(DispatchRewriter &rewriter, ArrayRef<Value> read,
               ArrayRef<MemRefType> temps, Grid grid, int64_t threads,
               int64_t sharedBytes, int64_t flops,
               function_ref<void(OpBuilder &, Location, ValueRange)> build) {
  func::FuncOp statesFn =
      rewriter.addDispatch("states", argumentTypes(read, temps), grid, build);
  DispatchRewriter::setGrid(statesFn, grid);
  DispatchRewriter::setVulkanLaunch(statesFn, threads, sharedBytes);
  int64_t tempBytes = 0;
  for (MemRefType t : temps)
    tempBytes += 4 * t.getNumElements();
  DispatchRewriter::setWork(statesFn, flops,
                            DispatchRewriter::bytesOf(read) + tempBytes);

  FailureOr<SmallVector<Value>> added = rewriter.appendArguments(temps);
  if (failed(added))
    return failure();
  SmallVector<unsigned> readIndex;
  for (Value v : read)
    readIndex.push_back(DispatchRewriter::argumentIndex(v));
  rewriter.rewriteCallers(temps, [&](OpBuilder &b, Location loc,
                                     DispatchOp call, ValueRange tempValues) {
    SmallVector<Value> bindings;
    for (unsigned i : readIndex)
      bindings.push_back(call.getBuffers()[i]);
    bindings.append(tempValues.begin(), tempValues.end());
    DispatchOp::create(b, loc, statesFn.getSymName(), bindings);
    SmallVector<Value> scan(call.getBuffers());
    scan.append(tempValues.begin(), tempValues.end());
    DispatchOp::create(b, loc, call.getCallee(), scan);
  });
  return std::make_pair((*added)[0], (*added)[1]);
}

/// The split selective scan's states dispatch: the end state and step sum
/// of every split but the last, from u, delta, A, B and delta_bias.
static LogicalResult addScanSplitStates(DispatchRewriter &rewriter,
                                        const VulkanSelectiveScanPlan &plan,
                                        const SelectiveScanBuffers &buf,
                                        SelectiveScanSplitBuffers &split) {
  Type f32 = Float32Type::get(buf.u.getContext());
  int64_t splits = plan.layout.numSplits - 1;
  SmallVector<MemRefType> temps = {
      MemRefType::get({plan.batch, splits, plan.channels, plan.state}, f32),
      MemRefType::get({plan.batch, splits, plan.channels}, f32)};
  SmallVector<Value> read = {buf.u, buf.delta, buf.a, buf.b};
  if (buf.deltaBias)
    read.push_back(buf.deltaBias);
  SelectiveScanProblem states = plan;
  states.seq = std::min(plan.seq, splits * plan.layout.splitL);
  FailureOr<std::pair<Value, Value>> added = addSplitStates(
      rewriter, read, temps, plan.statesGrid(), plan.layout.threads,
      plan.layout.statesSharedBytes, selectiveScanFlops(states),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        SelectiveScanBuffers in;
        in.u = args[0];
        in.delta = args[1];
        in.a = args[2];
        in.b = args[3];
        if (buf.deltaBias)
          in.deltaBias = args[4];
        SelectiveScanSplitBuffers out{args[args.size() - 2], args.back()};
        if (plan.layout.isChannelLanes())
          buildVulkanSelectiveScanChannelsStatesBody(b, loc, plan, in, out);
        else
          buildVulkanSelectiveScanStatesBody(b, loc, plan, in, out);
      });
  if (failed(added))
    return failure();
  split = {added->first, added->second};
  return success();
}

/// The carry dispatch of a split channel-lanes scan (`carry_pass`): reads
/// A, the initial state and the split temporaries, and runs between the
/// states dispatch and the scan (the scan's calls are rewritten once more).
static void addScanCarryPass(DispatchRewriter &rewriter,
                             const VulkanSelectiveScanPlan &plan,
                             const SelectiveScanBuffers &buf,
                             const SelectiveScanSplitBuffers &split) {
  SmallVector<Value> read = {buf.a};
  if (buf.initialState)
    read.push_back(buf.initialState);
  read.push_back(split.endStates);
  read.push_back(split.stepSums);
  int64_t threads = plan.layout.carryThreads;
  int64_t entries = plan.channels * plan.state;
  Grid grid = {(entries + threads - 1) / threads, plan.batch, 1};
  bool hasInitial = static_cast<bool>(buf.initialState);
  func::FuncOp carryFn = rewriter.addDispatch(
      "carry", argumentTypes(read, {}), grid,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value initial = hasInitial ? args[1] : Value();
        SelectiveScanSplitBuffers temps{args[args.size() - 2], args.back()};
        buildVulkanSelectiveScanCarryBody(b, loc, plan, args[0], initial,
                                          temps);
      });
  DispatchRewriter::setGrid(carryFn, grid);
  DispatchRewriter::setVulkanLaunch(carryFn, threads, 0);
  // An exp2 and a multiply-add per (split, channel, state).
  int64_t flops = 2 * plan.batch * (plan.layout.numSplits - 1) * entries;
  DispatchRewriter::setWork(carryFn, flops, DispatchRewriter::bytesOf(read));
  SmallVector<unsigned> readIndex;
  for (Value v : read)
    readIndex.push_back(DispatchRewriter::argumentIndex(v));
  rewriter.rewriteCallers(
      {}, [&](OpBuilder &b, Location loc, DispatchOp call, ValueRange) {
        SmallVector<Value> bindings;
        for (unsigned i : readIndex)
          bindings.push_back(call.getBuffers()[i]);
        DispatchOp::create(b, loc, carryFn.getSymName(), bindings);
        DispatchOp::create(b, loc, call.getCallee(), call.getBuffers());
      });
}

LogicalResult VulkanSelectiveScan::tile(SelectiveScanOp op, ConfigAttr attr,
                                        DispatchRewriter &rewriter) {
  SelectiveScanBuffers buf = findSelectiveScanBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  std::optional<VulkanScanLayout> layout =
      getVulkanScanLayout(op, attr, rewriter.target(), llvm::nulls());
  if (!layout)
    return op.emitOpError("has no Vulkan layout for its config");
  VulkanSelectiveScanPlan plan;
  static_cast<SelectiveScanProblem &>(plan) = readSelectiveScanProblem(op);
  plan.layout = *layout;

  SelectiveScanSplitBuffers split;
  if (layout->isSplit() &&
      failed(addScanSplitStates(rewriter, plan, buf, split)))
    return failure();
  if (layout->isSplit() && layout->carryPass)
    addScanCarryPass(rewriter, plan, buf, split);

  // replaceBody erases the op: read its location first.
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  if (layout->isChannelLanes())
    buildVulkanSelectiveScanChannelsBody(b, loc, plan, buf, split);
  else if (layout->isTimeSegments())
    buildVulkanSelectiveScanSegmentsBody(b, loc, plan, buf);
  else if (layout->isTimeLanes())
    buildVulkanSelectiveScanLanesBody(b, loc, plan, buf);
  else
    buildVulkanSelectiveScanBody(b, loc, plan, buf, split);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setVulkanLaunch(dispatch, layout->threads,
                                    layout->sharedBytes);
  DispatchRewriter::setWork(dispatch, selectiveScanFlops(plan),
                            DispatchRewriter::bytesOf(buf.all()));
  return success();
}

/// What the first dispatch of a split or parallel-chunks SSD reads: x, dt,
/// A, B and dt_bias.
static SmallVector<Value> ssdStateInputs(const SsdBuffers &buf) {
  SmallVector<Value> read = {buf.x, buf.dt, buf.a, buf.b};
  if (buf.dtBias)
    read.push_back(buf.dtBias);
  return read;
}

/// Those inputs among the first dispatch's arguments (`args`, as
/// ssdStateInputs orders them).
static SsdBuffers ssdStateArguments(const SsdBuffers &buf, ValueRange args) {
  SsdBuffers in;
  in.x = args[0];
  in.dt = args[1];
  in.a = args[2];
  in.b = args[3];
  if (buf.dtBias)
    in.dtBias = args[4];
  return in;
}

/// The f32 temporaries of `count` splits or chunks: states `[batch,
/// count, heads, head_dim, d_state]` and log decays `[batch, count,
/// heads]`.
static SmallVector<MemRefType> ssdStateTemps(const VulkanSsdPlan &plan,
                                             Type f32, int64_t count) {
  return {MemRefType::get(
              {plan.batch, count, plan.heads, plan.headDim, plan.state}, f32),
          MemRefType::get({plan.batch, count, plan.heads}, f32)};
}

/// The split SSD's states dispatch: the end state and log decay of every
/// split but the last, from x, dt, A, B and dt_bias.
static LogicalResult addSsdSplitStates(DispatchRewriter &rewriter,
                                       const VulkanSsdPlan &plan,
                                       const SsdBuffers &buf,
                                       SsdSplitBuffers &split) {
  Type f32 = Float32Type::get(buf.x.getContext());
  int64_t splits = plan.layout.numSplits - 1;
  SmallVector<MemRefType> temps = ssdStateTemps(plan, f32, splits);
  SmallVector<Value> read = ssdStateInputs(buf);
  // The state update of every split but the last: 2 L P N per head.
  int64_t steps =
      std::min(plan.seq, splits * plan.layout.splitChunks * plan.layout.chunk);
  FailureOr<std::pair<Value, Value>> added = addSplitStates(
      rewriter, read, temps, plan.statesGrid(), plan.layout.threads,
      plan.layout.statesSharedBytes,
      2 * plan.batch * plan.heads * steps * plan.headDim * plan.state,
      [&](OpBuilder &b, Location loc, ValueRange args) {
        SsdBuffers in = ssdStateArguments(buf, args);
        SsdSplitBuffers out{args[args.size() - 2], args.back()};
        buildVulkanSsdStatesBody(b, loc, plan, in, out);
      });
  if (failed(added))
    return failure();
  split = {added->first, added->second};
  return success();
}

/// The parallel-chunks SSD's first two dispatches: `_chunk_states` (from
/// x, dt, A, B and dt_bias) and `_state_pass` (from initial_state, into
/// final_state). Appends the chunk temporaries to the outputs dispatch's
/// arguments and rewrites every call: chunk states, state pass, outputs.
static LogicalResult addSsdChunkDispatches(DispatchRewriter &rewriter,
                                           const VulkanSsdPlan &plan,
                                           const SsdBuffers &buf,
                                           SsdChunkBuffers &chunks) {
  Type f32 = Float32Type::get(buf.x.getContext());
  int64_t numChunks = plan.numChunks();
  SmallVector<MemRefType> temps = ssdStateTemps(plan, f32, numChunks);
  int64_t tempBytes =
      4 * (temps[0].getNumElements() + temps[1].getNumElements());
  int64_t stateWork = plan.batch * plan.heads * plan.headDim * plan.state;

  SmallVector<Value> read = ssdStateInputs(buf);
  func::FuncOp statesFn = rewriter.addDispatch(
      "chunk_states", argumentTypes(read, temps), plan.grid(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        SsdBuffers in = ssdStateArguments(buf, args);
        SsdChunkBuffers out{args[args.size() - 2], args.back()};
        if (plan.layout.cooperative)
          buildVulkanSsdCoopChunkStatesBody(b, loc, plan, in, out);
        else
          buildVulkanSsdChunkStatesBody(b, loc, plan, in, out);
      });
  DispatchRewriter::setGrid(statesFn, plan.grid());
  DispatchRewriter::setVulkanLaunch(statesFn, plan.layout.threads,
                                    plan.layout.statesSharedBytes);
  DispatchRewriter::setWork(statesFn, 2 * stateWork * plan.seq,
                            DispatchRewriter::bytesOf(read) + tempBytes);

  SmallVector<Value> carried;
  if (buf.initialState)
    carried.push_back(buf.initialState);
  if (buf.finalState)
    carried.push_back(buf.finalState);
  func::FuncOp passFn = rewriter.addDispatch(
      "state_pass", argumentTypes(carried, temps), plan.passGrid(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        Value initial = buf.initialState ? args[0] : Value();
        Value final = buf.finalState ? args[buf.initialState ? 1 : 0] : Value();
        SsdChunkBuffers temp{args[args.size() - 2], args.back()};
        buildVulkanSsdStatePassBody(b, loc, plan, initial, final, temp);
      });
  DispatchRewriter::setGrid(passFn, plan.passGrid());
  DispatchRewriter::setVulkanLaunch(passFn, plan.layout.passThreads, 0);
  DispatchRewriter::setWork(passFn, 2 * stateWork * numChunks,
                            DispatchRewriter::bytesOf(carried) + 2 * tempBytes);

  FailureOr<SmallVector<Value>> added = rewriter.appendArguments(temps);
  if (failed(added))
    return failure();
  SmallVector<unsigned> readIndex, carriedIndex;
  for (Value v : read)
    readIndex.push_back(DispatchRewriter::argumentIndex(v));
  for (Value v : carried)
    carriedIndex.push_back(DispatchRewriter::argumentIndex(v));
  rewriter.rewriteCallers(temps, [&](OpBuilder &b, Location loc,
                                     DispatchOp call, ValueRange tempValues) {
    SmallVector<Value> states, pass;
    for (unsigned i : readIndex)
      states.push_back(call.getBuffers()[i]);
    states.append(tempValues.begin(), tempValues.end());
    DispatchOp::create(b, loc, statesFn.getSymName(), states);
    for (unsigned i : carriedIndex)
      pass.push_back(call.getBuffers()[i]);
    pass.append(tempValues.begin(), tempValues.end());
    DispatchOp::create(b, loc, passFn.getSymName(), pass);
    SmallVector<Value> outputs(call.getBuffers());
    outputs.append(tempValues.begin(), tempValues.end());
    DispatchOp::create(b, loc, call.getCallee(), outputs);
  });
  chunks = {(*added)[0], (*added)[1]};
  return success();
}

LogicalResult VulkanSsd::tile(SsdOp op, ConfigAttr attr,
                              DispatchRewriter &rewriter) {
  SsdBuffers buf = findSsdBuffers(op, rewriter);
  if (failed(rewriter.checkDispatchForm(op)))
    return failure();
  std::optional<VulkanSsdLayout> layout =
      getVulkanSsdLayout(op, attr, rewriter.target(), llvm::nulls());
  if (!layout)
    return op.emitOpError("has no Vulkan layout for its config");
  VulkanSsdPlan plan;
  static_cast<SsdProblem &>(plan) = readSsdProblem(op);
  plan.layout = *layout;

  // The split's states dispatch first: the scores pre-pass then rewrites
  // the scan's calls it leaves (they carry the split temporaries).
  SsdSplitBuffers split;
  if (layout->isSplit() &&
      failed(addSsdSplitStates(rewriter, plan, buf, split)))
    return failure();
  SsdChunkBuffers chunks;
  if (layout->parallelChunks &&
      failed(addSsdChunkDispatches(rewriter, plan, buf, chunks)))
    return failure();

  int64_t q = layout->chunk;
  auto scoresType =
      MemRefType::get({plan.batch, plan.groups, plan.numChunks(), q, q},
                      Float32Type::get(op.getContext()));
  FailureOr<func::FuncOp> scoresFn = addScoresPrePass(
      rewriter, buf, scoresType, plan.scoresGrid(),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        buildVulkanSsdScoresBody(b, loc, plan, args[0], args[1], args[2]);
      });
  if (failed(scoresFn))
    return failure();

  // replaceBody erases the op: read its location first.
  Location loc = op.getLoc();
  OpBuilder b = rewriter.replaceBody();
  if (layout->cooperative)
    buildVulkanSsdCoopChunkOutputsBody(b, loc, plan, buf, chunks);
  else if (layout->parallelChunks)
    buildVulkanSsdChunkOutputsBody(b, loc, plan, buf, chunks);
  else
    buildVulkanSsdBody(b, loc, plan, buf, split);
  rewriter.finish(b);
  func::FuncOp dispatch = rewriter.dispatch();
  DispatchRewriter::setGrid(dispatch, plan.grid());
  DispatchRewriter::setVulkanLaunch(dispatch, layout->threads,
                                    layout->sharedBytes);
  // Parallel chunks: C S_prev^T (2 L P N per head) and the causal M X.
  int64_t flops = layout->parallelChunks
                      ? ssdScanFlops(plan, q) - 2 * plan.batch * plan.heads *
                                                    plan.seq * plan.headDim *
                                                    plan.state
                      : ssdScanFlops(plan, q);
  DispatchRewriter::setWork(dispatch, flops,
                            DispatchRewriter::bytesOf(buf.scanned()));
  DispatchRewriter::setGrid(*scoresFn, plan.scoresGrid());
  DispatchRewriter::setVulkanLaunch(*scoresFn, layout->threads,
                                    4 * 2 * q * layout->bcStride());
  DispatchRewriter::setWork(*scoresFn, ssdScoresFlops(plan, q, q),
                            DispatchRewriter::bytesOf(buf.prePass()));
  return success();
}
