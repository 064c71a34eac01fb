//===- ReferenceRunner.cpp - run an entry with the reference --------------===//

#include "ejk/Driver/ReferenceRunner.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Reference/Attention.h"
#include "ejk/Reference/StateSpace.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

namespace {
/// Values of the entry as f32 (floats) or raw integers, with their shapes.
struct Evaluated {
  std::vector<int64_t> shape;
  std::vector<float> floats;
};
} // namespace

static std::vector<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape().vec();
}

static LogicalResult evaluateFlashAttention(FlashAttentionOp op,
                                            DenseMap<Value, Evaluated> &env) {
  auto get = [&](Value v) -> const Evaluated & { return env[v]; };
  ref::AttentionProblem problem;
  problem.q = ref::TensorRef<float>(get(op.getQuery()).floats,
                                    get(op.getQuery()).shape);
  problem.k =
      ref::TensorRef<float>(get(op.getKey()).floats, get(op.getKey()).shape);
  problem.v = ref::TensorRef<float>(get(op.getValue()).floats,
                                    get(op.getValue()).shape);
  ref::AttentionOptions options;
  options.softmaxScale = op.getEffectiveSoftmaxScale();
  options.causal = op.getCausal();
  if (std::optional<ArrayRef<int64_t>> window = op.getSlidingWindow())
    options.slidingWindow = ref::SlidingWindow{(*window)[0], (*window)[1]};
  if (std::optional<APFloat> cap = op.getLogitsSoftCap())
    options.logitsSoftCap = cap->convertToFloat();
  if (Value bias = op.getBias())
    options.bias = ref::TensorRef<float>(get(bias).floats, get(bias).shape);
  // Masks and segment ids are exact small integers in the f32 copies.
  std::vector<uint8_t> mask;
  std::vector<int32_t> qSegments, kvSegments;
  if (Value m = op.getMask()) {
    for (float f : get(m).floats)
      mask.push_back(f != 0.0f ? 1 : 0);
    options.mask = ref::TensorRef<uint8_t>(mask, get(m).shape);
  }
  if (op.getQSegmentIds()) {
    for (float f : get(op.getQSegmentIds()).floats)
      qSegments.push_back(static_cast<int32_t>(f));
    for (float f : get(op.getKvSegmentIds()).floats)
      kvSegments.push_back(static_cast<int32_t>(f));
    options.qSegmentIds =
        ref::TensorRef<int32_t>(qSegments, get(op.getQSegmentIds()).shape);
    options.kvSegmentIds =
        ref::TensorRef<int32_t>(kvSegments, get(op.getKvSegmentIds()).shape);
  }
  if (std::optional<APFloat> prob = op.getDropoutProb()) {
    options.dropoutProb = prob->convertToFloat();
    options.dropoutSeed = static_cast<uint64_t>(*op.getDropoutSeed());
  }
  std::vector<float> out, lse;
  ref::Status status = ref::flashAttention(problem, options, out, lse);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  env[op.getOutput()] = {shapeOf(op.getOutput()), std::move(out)};
  if (op.getLse())
    env[op.getLse()] = {shapeOf(op.getLse()), std::move(lse)};
  return success();
}

/// A TensorRef over an evaluated optional operand, or nullopt.
static std::optional<ref::TensorRef<float>>
optionalRef(Value value, DenseMap<Value, Evaluated> &env) {
  if (!value)
    return std::nullopt;
  return ref::TensorRef<float>(env[value].floats, env[value].shape);
}

static LogicalResult evaluateSelectiveScan(SelectiveScanOp op,
                                           DenseMap<Value, Evaluated> &env) {
  auto get = [&](Value v) {
    return ref::TensorRef<float>(env[v].floats, env[v].shape);
  };
  ref::SelectiveScanProblem problem{get(op.getU()), get(op.getDelta()),
                                    get(op.getA()), get(op.getB()),
                                    get(op.getC())};
  ref::SelectiveScanOptions options;
  options.dSkip = optionalRef(op.getD(), env);
  options.z = optionalRef(op.getZ(), env);
  options.deltaBias = optionalRef(op.getDeltaBias(), env);
  options.deltaSoftplus = op.getDeltaSoftplus();
  options.initialState = optionalRef(op.getInitialState(), env);
  std::vector<float> y, state;
  ref::Status status = ref::selectiveScan(problem, options, y, state);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  env[op.getY()] = {shapeOf(op.getY()), std::move(y)};
  if (op.getFinalState())
    env[op.getFinalState()] = {shapeOf(op.getFinalState()), std::move(state)};
  return success();
}

static LogicalResult evaluateSsd(SsdOp op, DenseMap<Value, Evaluated> &env) {
  auto get = [&](Value v) {
    return ref::TensorRef<float>(env[v].floats, env[v].shape);
  };
  ref::SsdProblem problem{get(op.getX()), get(op.getDt()), get(op.getA()),
                          get(op.getB()), get(op.getC())};
  ref::SsdOptions options;
  options.dSkip = optionalRef(op.getD(), env);
  options.z = optionalRef(op.getZ(), env);
  options.dtBias = optionalRef(op.getDtBias(), env);
  options.dtSoftplus = op.getDtSoftplus();
  options.initialState = optionalRef(op.getInitialState(), env);
  options.chunkSize = op.getEffectiveChunkSize().value_or(0);
  std::vector<float> y, state;
  ref::Status status = ref::ssd(problem, options, y, state);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  env[op.getY()] = {shapeOf(op.getY()), std::move(y)};
  if (op.getFinalState())
    env[op.getFinalState()] = {shapeOf(op.getFinalState()), std::move(state)};
  return success();
}

LogicalResult mlir::ejk::runReference(func::FuncOp entry,
                                      ArrayRef<HostTensor> inputs,
                                      std::vector<HostTensor> &outputs) {
  if (inputs.size() != entry.getNumArguments())
    return entry.emitError("reference: expected ")
           << entry.getNumArguments() << " inputs, got " << inputs.size();
  DenseMap<Value, Evaluated> env;
  for (auto [arg, input] : llvm::zip(entry.getArguments(), inputs))
    env[arg] = {input.shape, input.toFloats()};
  for (Operation &op : entry.getBody().front()) {
    if (auto attention = dyn_cast<FlashAttentionOp>(op)) {
      if (failed(evaluateFlashAttention(attention, env)))
        return failure();
      continue;
    }
    if (auto scan = dyn_cast<SelectiveScanOp>(op)) {
      if (failed(evaluateSelectiveScan(scan, env)))
        return failure();
      continue;
    }
    if (auto ssd = dyn_cast<SsdOp>(op)) {
      if (failed(evaluateSsd(ssd, env)))
        return failure();
      continue;
    }
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      outputs.clear();
      for (Value value : ret.getOperands()) {
        auto it = env.find(value);
        if (it == env.end())
          return ret.emitOpError("reference: result was not computed");
        outputs.push_back(
            HostTensor::fromFloats("f32", it->second.shape, it->second.floats));
      }
      return success();
    }
    return op.emitOpError("has no reference implementation yet");
  }
  return entry.emitError("reference: entry has no return");
}
