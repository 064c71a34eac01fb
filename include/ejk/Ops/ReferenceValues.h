//===- ReferenceValues.h - values of an entry under the reference -*- C++ -*-//
//
// The reference evaluator runs an entry op by op; every value is held as
// f32 (floats) or exact small integers in f32 (masks, segment ids), with
// its shape. Each op family reads its operands from here and writes its
// results back (lib/Ops/<Family>/Reference.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_REFERENCEVALUES_H
#define EJK_OPS_REFERENCEVALUES_H

#include "ejk/Reference/Tensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>
#include <vector>

namespace mlir::ejk {

/// A value under the reference evaluator.
struct EvaluatedTensor {
  std::vector<int64_t> shape;
  std::vector<float> floats;
};

class ReferenceValues {
public:
  /// The evaluated `value`; it must have been set.
  EvaluatedTensor &operator[](Value value) { return values[value]; }
  bool contains(Value value) const { return values.count(value) != 0; }
  /// A view of `value` for the reference functions.
  ::ejk::reference::TensorRef<float> ref(Value value) {
    EvaluatedTensor &t = values[value];
    return ::ejk::reference::TensorRef<float>(t.floats, t.shape);
  }
  /// A view of an optional operand, or nullopt.
  std::optional<::ejk::reference::TensorRef<float>> optionalRef(Value value) {
    if (!value)
      return std::nullopt;
    return ref(value);
  }
  /// Stores `floats` as the value of the tensor `result` (its type's shape).
  void set(Value result, std::vector<float> floats) {
    values[result] = {cast<RankedTensorType>(result.getType()).getShape().vec(),
                      std::move(floats)};
  }

private:
  DenseMap<Value, EvaluatedTensor> values;
};

} // namespace mlir::ejk

#endif // EJK_OPS_REFERENCEVALUES_H
