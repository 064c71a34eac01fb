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

#include <string>

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

/// Formats a floating-point value for a diagnostic, the same on every host:
/// C's "%g" for finite values (at most 6 significant digits, no trailing
/// zeros, an exponent only for magnitudes below 1e-4 or from 1e6 on), and
/// "nan", "inf" or "-inf" otherwise (a NaN's sign is not printed). Examples:
/// -1 -> "-1", -0.125 -> "-0.125", -0.0 -> "-0", -2.5e-8 -> "-2.5e-08",
/// 0.1f -> "0.1". (Streaming a double into a diagnostic would print
/// "-1.000000e+00" and "INF".)
std::string formatDiagnosticFloat(double value);

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
  /// Checks that dim `i` of `t` is at least 1; `why` says why zero has no
  /// meaning there.
  LogicalResult dimNotZero(const NamedTensor &t, unsigned i, StringRef why);
  /// Checks that dim `i` of `den` is positive and divides dim `j` of `num`.
  LogicalResult dimDivides(const NamedTensor &den, unsigned i,
                           const NamedTensor &num, unsigned j);

  /// Checks that the element type of `t` is f32, f16 or bf16.
  LogicalResult isFloat(const NamedTensor &t);
  /// Checks that the element type of `t` is f32, f16, bf16 or i8 (a
  /// quantized cache).
  LogicalResult isFloatOrInt8(const NamedTensor &t);
  /// Checks that the element type of `t` is exactly `expected`.
  LogicalResult elementIs(const NamedTensor &t, Type expected);
  /// Checks that `t` has the same element type as `source`.
  LogicalResult sameElement(const NamedTensor &t, const NamedTensor &source);

  /// Checks that a float attribute, when present, is finite and > 0. The
  /// message prints the value with formatDiagnosticFloat:
  ///   expects 'softmax_scale' to be positive and finite, got -0.125
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
