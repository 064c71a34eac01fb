//===- MiscOps.cpp - Verifiers of grouped matmul and mean pooling ---------===//

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "ShapeVerifier.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::ejk;

//===----------------------------------------------------------------------===//
// GroupedMatmulOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> GroupedMatmulOp::getConfigNames() {
  static const StringRef names[] = {"block_m", "block_n", "block_k"};
  return names;
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
      transposed ? v.tensor(getRhs(), "rhs", {"num_groups", "n", "k"})
                 : v.tensor(getRhs(), "rhs", {"num_groups", "k", "n"});
  if (failed(rhs) || failed(v.sameElement(*rhs, *lhs)) ||
      failed(v.dimMatches(*rhs, kDim, *lhs, 1)))
    return failure();
  FailureOr<NamedTensor> sizes =
      v.tensor(getGroupSizes(), "group_sizes", {"num_groups"});
  if (failed(sizes) ||
      failed(v.elementIs(*sizes, IntegerType::get(getContext(), 32))) ||
      failed(v.dimMatches(*sizes, 0, *rhs, 0)))
    return failure();
  FailureOr<NamedTensor> out = v.tensor(getOut(), "out", {"rows", "n"});
  if (failed(out) || failed(v.sameElement(*out, *lhs)) ||
      failed(v.dimMatches(*out, 0, *lhs, 0)) ||
      failed(v.dimMatches(*out, 1, *rhs, nDim)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}

//===----------------------------------------------------------------------===//
// MeanPoolingOp
//===----------------------------------------------------------------------===//

ArrayRef<StringRef> MeanPoolingOp::getConfigNames() {
  static const StringRef names[] = {"block_d"};
  return names;
}

LogicalResult MeanPoolingOp::verify() {
  ShapeVerifier v(*this);
  bool packed = static_cast<bool>(getCuSeqlens());
  static const StringRef kDense[] = {"batch", "seq", "hidden"};
  static const StringRef kPacked[] = {"total_tokens", "hidden"};
  ArrayRef<StringRef> inputDims =
      packed ? ArrayRef<StringRef>(kPacked) : ArrayRef<StringRef>(kDense);
  // ShapeVerifier's rank message cannot say which form was expected; this
  // one does, in the same words.
  int64_t inputRank = getInput().getType().getRank();
  if (inputRank != static_cast<int64_t>(inputDims.size()))
    return emitOpError("expects 'input' to have rank ")
           << inputDims.size() << " [" << llvm::join(inputDims, ", ") << "] "
           << (packed ? "with" : "without") << " 'cu_seqlens', got rank "
           << inputRank;
  FailureOr<NamedTensor> input = v.tensor(getInput(), "input", inputDims);
  if (failed(input) || failed(v.isFloat(*input)))
    return failure();
  unsigned featureDim = inputDims.size() - 1;

  // The number of sequences: the dense batch, or one less than the entries of
  // `cu_seqlens`.
  FailureOr<NamedTensor> cu;
  if (packed) {
    cu = v.tensor(getCuSeqlens(), "cu_seqlens", {"batch_plus_one"});
    if (failed(cu) ||
        failed(v.elementIs(*cu, IntegerType::get(getContext(), 32))))
      return failure();
    if (cu->dim(0) < 1)
      return emitOpError("expects 'cu_seqlens' dim 0 (batch_plus_one) to be "
                         "at least 1, got ")
             << cu->dim(0);
  }

  FailureOr<NamedTensor> out =
      v.tensor(getOutput(), "output", {"batch", "hidden"});
  if (failed(out) || failed(v.sameElement(*out, *input)) ||
      failed(v.dimMatches(*out, 1, *input, featureDim)))
    return failure();
  if (packed ? failed(v.dimEquals(*out, 0, cu->dim(0) - 1,
                                  "one row per sequence: 'cu_seqlens' dim 0 "
                                  "(batch_plus_one) minus 1"))
             : failed(v.dimMatches(*out, 0, *input, 0)))
    return failure();
  return v.configNames(getConfigAttr(), getConfigNames());
}
