//===- DriverSupport.h - small helpers of the compiler driver ---*- C++ -*-===//

#ifndef EJK_LIB_DRIVER_DRIVERSUPPORT_H
#define EJK_LIB_DRIVER_DRIVERSUPPORT_H

#include "ejk/Support/Stopwatch.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

namespace mlir::ejk {

using ::ejk::Stopwatch;

/// Writes `contents` to `path` through a temporary file and a rename, so a
/// reader never sees a half-written file. Emits an error at `loc` on
/// failure.
LogicalResult writeAtomically(Location loc, StringRef path, StringRef contents);

} // namespace mlir::ejk

#endif // EJK_LIB_DRIVER_DRIVERSUPPORT_H
