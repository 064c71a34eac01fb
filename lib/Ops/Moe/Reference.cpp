//===- Reference.cpp - the grouped matmuls' reference bridge --------------===//
//
// Maps `ejk.grouped_matmul` and `ejk.transposed_grouped_matmul` onto the
// plain C++ oracle of lib/Reference.
//
//===----------------------------------------------------------------------===//

#include "Moe/Reference.h"

#include "ejk/Reference/Moe.h"

using namespace mlir;
using namespace mlir::ejk;
namespace ref = ::ejk::reference;

/// The options shared by both ops.
template <typename OpT>
static ref::GroupedMatmulOptions readOptions(OpT op, ReferenceValues &values) {
  ref::GroupedMatmulOptions options;
  if (Value offset = op.getGroupOffset())
    options.groupOffset = static_cast<int64_t>(values[offset].floats.at(0));
  options.existingOut = values.optionalRef(op.getExistingOut());
  return options;
}

LogicalResult mlir::ejk::evaluateGroupedMatmul(GroupedMatmulOp op,
                                               ReferenceValues &values) {
  ref::GroupedMatmulOptions options = readOptions(op, values);
  options.transposeRhs = op.getTransposeRhs();
  options.rhsScales = values.optionalRef(op.getRhsScales());
  std::vector<float> out;
  ref::Status status =
      ref::groupedMatmul(values.ref(op.getLhs()), values.ref(op.getRhs()),
                         values.ref(op.getGroupSizes()), options, out);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOut(), std::move(out));
  return success();
}

LogicalResult
mlir::ejk::evaluateTransposedGroupedMatmul(TransposedGroupedMatmulOp op,
                                           ReferenceValues &values) {
  ref::GroupedMatmulOptions options = readOptions(op, values);
  std::vector<float> out;
  ref::Status status = ref::transposedGroupedMatmul(
      values.ref(op.getLhs()), values.ref(op.getRhs()),
      values.ref(op.getGroupSizes()), op.getOut().getType().getDimSize(0),
      options, out);
  if (!status.ok)
    return op.emitOpError("reference evaluation failed: ") << status.message;
  values.set(op.getOut(), std::move(out));
  return success();
}
