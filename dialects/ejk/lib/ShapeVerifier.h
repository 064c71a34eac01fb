//===- ShapeVerifier.h - Named shape checks for op verifiers ----*- C++ -*-===//
//
// Helpers that every ejk op verifier uses so that all diagnostics name the
// operand, the dimension and the expected value the same way:
//
//   'ejk.flash_attention' op expects 'key' dim 0 (batch) to be 2 to match
//   'query' dim 0 (batch), got 3
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_LIB_SHAPEVERIFIER_H
#define EJK_DIALECT_EJK_LIB_SHAPEVERIFIER_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::ejk {

/// A statically shaped operand or result with a name and per-dimension names,
/// as seen by a verifier.
struct NamedTensor {
  StringRef name;
  RankedTensorType type;
  SmallVector<StringRef, 4> dimNames;

  int64_t dim(unsigned i) const { return type.getDimSize(i); }
  Type elementType() const { return type.getElementType(); }
};

/// Emits ejk's shape and type diagnostics on one op.
class ShapeVerifier {
public:
  explicit ShapeVerifier(Operation *op) : op(op) {}

  /// Checks that `value` is a statically shaped tensor whose rank is the
  /// number of `dimNames`.
  FailureOr<NamedTensor> tensor(TypedValue<RankedTensorType> value,
                                StringRef name, ArrayRef<StringRef> dimNames);

  /// Checks that dim `i` of `t` equals dim `j` of `source`.
  LogicalResult dimMatches(const NamedTensor &t, unsigned i,
                           const NamedTensor &source, unsigned j);
  /// Checks that dim `i` of `t` equals `expected`; `why` says where the
  /// expectation comes from (e.g. "'block_mask' blocks of 'q_block_size'").
  LogicalResult dimEquals(const NamedTensor &t, unsigned i, int64_t expected,
                          StringRef why);
  /// Checks that dim `i` of `t` is 1 (broadcast) or equals dim `j` of
  /// `source`.
  LogicalResult dimBroadcasts(const NamedTensor &t, unsigned i,
                              const NamedTensor &source, unsigned j);
  /// Checks that dim `i` of `den` is positive and divides dim `j` of `num`.
  LogicalResult dimDivides(const NamedTensor &den, unsigned i,
                           const NamedTensor &num, unsigned j);

  /// Checks that the element type of `t` is f32, f16 or bf16.
  LogicalResult isFloat(const NamedTensor &t);
  /// Checks that the element type of `t` is exactly `expected`.
  LogicalResult elementIs(const NamedTensor &t, Type expected);
  /// Checks that `t` has the same element type as `source`.
  LogicalResult sameElement(const NamedTensor &t, const NamedTensor &source);

  /// Checks that a float attribute, when present, is finite and > 0.
  LogicalResult positiveFinite(FloatAttr attr, StringRef attrName);
  /// Checks that an integer attribute, when present, is >= `minValue`.
  LogicalResult atLeast(IntegerAttr attr, StringRef attrName, int64_t minValue);

  /// Checks that every entry of `config`, when present, is one of `names`.
  LogicalResult configNames(Attribute config, ArrayRef<StringRef> names);

private:
  std::string describeDim(const NamedTensor &t, unsigned i) const;

  Operation *op;
};

} // namespace mlir::ejk

#endif // EJK_DIALECT_EJK_LIB_SHAPEVERIFIER_H
