//===- MiscOps.cpp - Verifiers of grouped matmul and mean pooling ---------===//

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "ShapeVerifier.h"

#include "ejk/Ops/Moe/Config.h"
#include "ejk/Ops/Pooling/Config.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::ejk;

//===----------------------------------------------------------------------===//
// GroupedMatmulOp and TransposedGroupedMatmulOp
//===----------------------------------------------------------------------===//

/// The result element type: the inputs' or f32 (ejKernel's
/// preferred_element_type).
static LogicalResult checkResultElement(ShapeVerifier &v, Operation *op,
                                        const NamedTensor &out,
                                        const NamedTensor &lhs) {
  Type elt = out.type.getElementType();
  if (elt == lhs.type.getElementType() || elt.isF32())
    return success();
  return op->emitOpError("expects '")
         << out.name << "' element type to be f32 or to match 'lhs' ("
         << lhs.type.getElementType() << "), got " << elt;
}

/// `group_sizes` [num_groups] i32 and the optional `group_offset` [1] i32;
/// without an offset, `localGroups` must be `num_groups`.
static LogicalResult checkGroups(ShapeVerifier &v, Operation *op,
                                 TypedValue<RankedTensorType> groupSizes,
                                 TypedValue<RankedTensorType> groupOffset,
                                 const NamedTensor &local, unsigned localDim) {
  MLIRContext *context = op->getContext();
  FailureOr<NamedTensor> sizes =
      v.tensor(groupSizes, "group_sizes", {"num_groups"});
  if (failed(sizes) ||
      failed(v.elementIs(*sizes, IntegerType::get(context, 32))))
    return failure();
  if (!groupOffset)
    return v.dimMatches(local, localDim, *sizes, 0);
  FailureOr<NamedTensor> offset =
      v.tensor(groupOffset, "group_offset", {"one"});
  if (failed(offset) ||
      failed(v.elementIs(*offset, IntegerType::get(context, 32))) ||
      failed(v.dimEquals(*offset, 0, 1, "a single group index")))
    return failure();
  if (local.dim(localDim) > sizes->dim(0))
    return op->emitOpError("expects '")
           << local.name << "' dim " << localDim << " (local_groups) to be at "
           << "most 'group_sizes' dim 0 (num_groups, " << sizes->dim(0)
           << "), got " << local.dim(localDim);
  return success();
}

/// The optional `existing_out`: the type of the result.
static LogicalResult checkExistingOut(Operation *op,
                                      TypedValue<RankedTensorType> existing,
                                      Type resultType) {
  if (!existing || existing.getType() == resultType)
    return success();
  return op->emitOpError("expects 'existing_out' to have the result's type ")
         << resultType << ", got " << existing.getType();
}

/// `rhs` has the element type of `lhs`, or i8 (quantized weights).
static LogicalResult checkRhsElement(Operation *op, const NamedTensor &rhs,
                                     const NamedTensor &lhs) {
  Type elt = rhs.elementType();
  if (elt == lhs.elementType() || elt.isSignlessInteger(8))
    return success();
  return op->emitOpError("expects 'rhs' element type to match 'lhs' (")
         << lhs.elementType() << ") or to be i8, got " << elt;
}

/// `rhs_scales` [local_groups, n] f32, present exactly when `rhs` is i8.
static LogicalResult checkRhsScales(ShapeVerifier &v, Operation *op,
                                    TypedValue<RankedTensorType> scales,
                                    const NamedTensor &rhs, unsigned nDim) {
  bool quantized = rhs.elementType().isSignlessInteger(8);
  if (!scales) {
    if (!quantized)
      return success();
    return op->emitOpError("expects 'rhs_scales' [local_groups, n] with an i8 "
                           "'rhs' (the per-channel dequantization scales)");
  }
  if (!quantized)
    return op->emitOpError("expects no 'rhs_scales' with a float 'rhs' (")
           << rhs.elementType() << "): scales dequantize i8 weights only";
  FailureOr<NamedTensor> s =
      v.tensor(scales, "rhs_scales", {"local_groups", "n"});
  if (failed(s) ||
      failed(v.elementIs(*s, Float32Type::get(op->getContext()))) ||
      failed(v.dimMatches(*s, 0, rhs, 0)) ||
      failed(v.dimMatches(*s, 1, rhs, nDim)))
    return failure();
  return success();
}

ArrayRef<StringRef> GroupedMatmulOp::getConfigNames() {
  return GroupedMatmulConfig::names();
}

LogicalResult GroupedMatmulOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<NamedTensor> lhs = v.tensor(getLhs(), "lhs", {"rows", "k"});
  if (failed(lhs) || failed(v.isFloat(*lhs)))
    return failure();
  // The dim names follow `transpose_rhs`, so a mismatch names the right dim.
  bool transposed = getTransposeRhs();
  unsigned kDim = transposed ? 2 : 1;
  unsigned nDim = transposed ? 1 : 2;
  FailureOr<NamedTensor> rhs =
      transposed ? v.tensor(getRhs(), "rhs", {"local_groups", "n", "k"})
                 : v.tensor(getRhs(), "rhs", {"local_groups", "k", "n"});
  if (failed(rhs) || failed(checkRhsElement(*this, *rhs, *lhs)) ||
      failed(v.dimMatches(*rhs, kDim, *lhs, 1)))
    return failure();
  if (failed(
          checkGroups(v, *this, getGroupSizes(), getGroupOffset(), *rhs, 0)) ||
      failed(checkRhsScales(v, *this, getRhsScales(), *rhs, nDim)))
    return failure();
  FailureOr<NamedTensor> out = v.tensor(getOut(), "out", {"rows", "n"});
  if (failed(out) || failed(checkResultElement(v, *this, *out, *lhs)) ||
      failed(v.dimMatches(*out, 0, *lhs, 0)) ||
      failed(v.dimMatches(*out, 1, *rhs, nDim)) ||
      failed(checkExistingOut(*this, getExistingOut(), getOut().getType())))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

ArrayRef<StringRef> TransposedGroupedMatmulOp::getConfigNames() {
  return GroupedMatmulConfig::names();
}

LogicalResult TransposedGroupedMatmulOp::verify() {
  ShapeVerifier v(*this);
  FailureOr<NamedTensor> lhs = v.tensor(getLhs(), "lhs", {"rows", "k"});
  if (failed(lhs) || failed(v.isFloat(*lhs)))
    return failure();
  FailureOr<NamedTensor> rhs = v.tensor(getRhs(), "rhs", {"rows", "n"});
  if (failed(rhs) || failed(v.sameElement(*rhs, *lhs)) ||
      failed(v.dimMatches(*rhs, 0, *lhs, 0)))
    return failure();
  FailureOr<NamedTensor> out =
      v.tensor(getOut(), "out", {"local_groups", "k", "n"});
  if (failed(out) || failed(checkResultElement(v, *this, *out, *lhs)) ||
      failed(v.dimMatches(*out, 1, *lhs, 1)) ||
      failed(v.dimMatches(*out, 2, *rhs, 1)))
    return failure();
  if (failed(
          checkGroups(v, *this, getGroupSizes(), getGroupOffset(), *out, 0)) ||
      failed(checkExistingOut(*this, getExistingOut(), getOut().getType())))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// MeanPoolingOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> MeanPoolingOp::getConfigNames() {
  return MeanPoolingConfig::names();
}

/// The shapes of a mean pooling and of its backward: `tokens` (the pooling's
/// input, the backward's result) is [batch, seq, hidden], or [total_tokens,
/// hidden] with `cu_seqlens`; `pooled` is [batch, hidden]. Both have one
/// float element type, the operand's (`tokens` for the pooling, `pooled`
/// for the backward: `operandIsPooled`).
static LogicalResult
verifyPooling(Operation *op, ShapeVerifier &v,
              TypedValue<RankedTensorType> tokensValue, StringRef tokensName,
              TypedValue<RankedTensorType> pooledValue, StringRef pooledName,
              TypedValue<RankedTensorType> cuSeqlens, bool operandIsPooled) {
  FailureOr<NamedTensor> pooledOperand;
  if (operandIsPooled) {
    pooledOperand = v.tensor(pooledValue, pooledName, {"batch", "hidden"});
    if (failed(pooledOperand) || failed(v.isFloat(*pooledOperand)))
      return failure();
  }
  bool packed = static_cast<bool>(cuSeqlens);
  static const StringRef kDense[] = {"batch", "seq", "hidden"};
  static const StringRef kPacked[] = {"total_tokens", "hidden"};
  ArrayRef<StringRef> tokenDims =
      packed ? ArrayRef<StringRef>(kPacked) : ArrayRef<StringRef>(kDense);
  // ShapeVerifier's rank message cannot say which form was expected; this
  // one does, in the same words.
  int64_t rank = tokensValue.getType().getRank();
  if (rank != static_cast<int64_t>(tokenDims.size()))
    return op->emitOpError("expects '")
           << tokensName << "' to have rank " << tokenDims.size() << " ["
           << llvm::join(tokenDims, ", ") << "] "
           << (packed ? "with" : "without") << " 'cu_seqlens', got rank "
           << rank;
  FailureOr<NamedTensor> tokens = v.tensor(tokensValue, tokensName, tokenDims);
  if (failed(tokens) ||
      failed(operandIsPooled ? v.sameElement(*tokens, *pooledOperand)
                             : v.isFloat(*tokens)))
    return failure();
  unsigned featureDim = tokenDims.size() - 1;

  // The number of sequences: the dense batch, or one less than the entries of
  // `cu_seqlens`.
  FailureOr<NamedTensor> cu;
  if (packed) {
    cu = v.tensor(cuSeqlens, "cu_seqlens", {"batch_plus_one"});
    if (failed(cu) ||
        failed(v.elementIs(*cu, IntegerType::get(op->getContext(), 32))))
      return failure();
    if (cu->dim(0) < 1)
      return op->emitOpError("expects 'cu_seqlens' dim 0 (batch_plus_one) to "
                             "be at least 1, got ")
             << cu->dim(0);
  }

  FailureOr<NamedTensor> pooled =
      v.tensor(pooledValue, pooledName, {"batch", "hidden"});
  if (failed(pooled) ||
      (!operandIsPooled && failed(v.sameElement(*pooled, *tokens))) ||
      failed(v.dimMatches(*pooled, 1, *tokens, featureDim)))
    return failure();
  if (packed ? failed(v.dimEquals(*pooled, 0, cu->dim(0) - 1,
                                  "one row per sequence: 'cu_seqlens' dim 0 "
                                  "(batch_plus_one) minus 1"))
             : failed(v.dimMatches(*pooled, 0, *tokens, 0)))
    return failure();
  return success();
}

LogicalResult MeanPoolingOp::verify() {
  ShapeVerifier v(*this);
  if (failed(verifyPooling(*this, v, getInput(), "input", getOutput(), "output",
                           getCuSeqlens(),
                           /*operandIsPooled=*/false)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// MeanPoolingGradOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> MeanPoolingGradOp::getConfigNames() {
  return MeanPoolingConfig::names();
}

LogicalResult MeanPoolingGradOp::verify() {
  ShapeVerifier v(*this);
  if (failed(verifyPooling(*this, v, getGradInput(), "grad_input",
                           getGradOutput(), "grad_output", getCuSeqlens(),
                           /*operandIsPooled=*/true)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}
