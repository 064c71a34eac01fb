//===- Problem.cpp - reading the gated linear recurrences -----------------===//

#include "ejk/Ops/Linear/Problem.h"

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/DispatchRewriter.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ejk;

/// The sizes and options every op of the three shares.
template <typename OpTy> static GlaProblem readShared(OpTy op) {
  auto q = op.getQuery().getType();
  auto k = op.getKey().getType();
  auto v = op.getValue().getType();
  GlaProblem p;
  p.batch = q.getDimSize(0);
  p.seq = q.getDimSize(1);
  p.heads = q.getDimSize(2);
  p.dimK = q.getDimSize(3);
  p.kvHeads = k.getDimSize(2);
  p.dimV = v.getDimSize(3);
  p.packed = static_cast<bool>(op.getCuSeqlens());
  p.numSeqs =
      p.packed ? op.getCuSeqlens().getType().getDimSize(0) - 1 : p.batch;
  p.hasG = p.hasGk = p.hasGv = false;
  p.reverse = op.getReverse();
  p.scale = op.getEffectiveScale();
  return p;
}

static GammaForm gammaForm(Value gGamma) {
  if (!gGamma)
    return GammaForm::None;
  return cast<RankedTensorType>(gGamma.getType()).getRank() == 2
             ? GammaForm::PerSequence
             : GammaForm::PerHead;
}

GlaProblem mlir::ejk::readGlaProblem(Operation *op) {
  return llvm::TypeSwitch<Operation *, GlaProblem>(op)
      .Case([](GlaOp op) {
        GlaProblem p = readShared(op);
        p.hasG = static_cast<bool>(op.getG());
        p.gamma = gammaForm(op.getGGamma());
        return p;
      })
      .Case([](LightningAttentionOp op) {
        GlaProblem p = readShared(op);
        if (op.getSlopes()) {
          p.gamma = GammaForm::NegatedSlopes;
        } else {
          p.gamma = GammaForm::LinearInHead;
          p.gammaStep = op.getLayerSlope(1);
        }
        return p;
      })
      .Case([](RecurrentOp op) {
        GlaProblem p = readShared(op);
        p.hasG = static_cast<bool>(op.getG());
        p.hasGk = static_cast<bool>(op.getGk());
        p.hasGv = static_cast<bool>(op.getGv());
        p.gamma = gammaForm(op.getGGamma());
        return p;
      });
}

GlaBuffers mlir::ejk::findGlaBuffers(Operation *op,
                                     DispatchRewriter &rewriter) {
  GlaBuffers buf;
  auto shared = [&](auto op) {
    buf.query = rewriter.buffer(op.getQuery());
    buf.key = rewriter.buffer(op.getKey());
    buf.value = rewriter.buffer(op.getValue());
    buf.initialState = rewriter.buffer(op.getInitialState());
    buf.cuSeqlens = rewriter.buffer(op.getCuSeqlens());
    buf.output = rewriter.destination(op.getOutput());
    buf.finalState = rewriter.destination(op.getFinalState());
  };
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](GlaOp op) {
        shared(op);
        buf.g = rewriter.buffer(op.getG());
        buf.gGamma = rewriter.buffer(op.getGGamma());
      })
      .Case([&](LightningAttentionOp op) {
        shared(op);
        buf.gGamma = rewriter.buffer(op.getSlopes());
      })
      .Case([&](RecurrentOp op) {
        shared(op);
        buf.g = rewriter.buffer(op.getG());
        buf.gk = rewriter.buffer(op.getGk());
        buf.gv = rewriter.buffer(op.getGv());
        buf.gGamma = rewriter.buffer(op.getGGamma());
      });
  return buf;
}
