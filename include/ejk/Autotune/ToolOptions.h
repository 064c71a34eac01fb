//===- ToolOptions.h - config selection flags of the tools ------*- C++ -*-===//
//
// ejkc and ejk-run share these flags and environment variables:
//
//   --config-overlay FILE.json   configs by problem key or op name
//   --ejk-explain-configs        a remark per op naming the tier that answered
//                                (also EJK_LOG_AUTOTUNE=1)
//   --record                     log each problem compiled for
//                                `ejk-tune --recorded`
//   EJK_AUTOTUNE_POLICY          autotune|heuristics (default heuristics)
//   EJK_CACHE_DIR                root of the tuning database
//
//===----------------------------------------------------------------------===//

#ifndef EJK_AUTOTUNE_TOOLOPTIONS_H
#define EJK_AUTOTUNE_TOOLOPTIONS_H

#include "ejk/Selection/Selection.h"

#include "mlir/IR/Diagnostics.h"

#include <memory>
#include <string>

namespace mlir::ejk {

/// Registers the flags above with llvm::cl; call before parsing.
void registerConfigSelectionFlags();

/// The --config-overlay file given, or "" (for keys that hash its
/// contents).
std::string configOverlayPath();

/// The selection of a compiling tool on this machine: the flags, the
/// environment, the host's fingerprint and, when the policy is autotune, a
/// tuner for the host CPU. Fails with a message on an invalid value.
std::shared_ptr<ConfigSelectionOptions>
configSelectionForTool(std::string &error);

/// Prints the warnings and remarks of `context` (the tiers' reports: a
/// damaged database, the explain remarks) to stderr as `file:line:col:
/// warning: ...` for the handler's lifetime; errors go on to the tool's
/// own handling.
std::unique_ptr<ScopedDiagnosticHandler>
printSelectionDiagnostics(MLIRContext &context);

} // namespace mlir::ejk

#endif // EJK_AUTOTUNE_TOOLOPTIONS_H
