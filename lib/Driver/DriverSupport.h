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

/// Runs the runtime's load-time checks (ejk_manifest_validate, the code
/// ejk_module_load runs) on the manifest `manifest` the compiler built, so
/// that an artifact the runtime would refuse (a buffer whose byte size
/// overflows, an empty grid) is a compile error here and is never written,
/// cached or exported. Emits the runtime's message at `loc` on failure.
LogicalResult checkManifestLoads(Location loc, StringRef manifest);

} // namespace mlir::ejk

#endif // EJK_LIB_DRIVER_DRIVERSUPPORT_H
