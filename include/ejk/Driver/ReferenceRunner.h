//===- ReferenceRunner.h - run an entry with the reference ------*- C++ -*-===//

#ifndef EJK_DRIVER_REFERENCERUNNER_H
#define EJK_DRIVER_REFERENCERUNNER_H

#include "ejk/Driver/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::ejk {

/// Evaluates `entry` (ejk ops on tensors, before any pass ran) on `inputs`
/// with the reference evaluator (lib/Reference). Outputs are f32 tensors of
/// the results' shapes. Emits an error on `entry` and fails for ops the
/// reference does not implement or inputs that do not fit.
LogicalResult runReference(func::FuncOp entry, ArrayRef<HostTensor> inputs,
                           std::vector<HostTensor> &outputs);

} // namespace mlir::ejk

#endif // EJK_DRIVER_REFERENCERUNNER_H
