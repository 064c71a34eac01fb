//===- Manifest.h - the artifact manifest -----------------------*- C++ -*-===//

#ifndef EJK_LIB_DRIVER_MANIFEST_H
#define EJK_LIB_DRIVER_MANIFEST_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::ejk {

/// Builds the manifest JSON (docs/runtime.md) of a module after tiling: one
/// entry per `ejk.entry` function with its buffers (inputs, outputs,
/// temporaries) and its dispatches in order. Emits an error and fails on a
/// module that is not in that form.
FailureOr<std::string> buildManifest(ModuleOp tiled, StringRef library,
                                     StringRef target);

} // namespace mlir::ejk

#endif // EJK_LIB_DRIVER_MANIFEST_H
