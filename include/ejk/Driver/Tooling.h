//===- Tooling.h - shared pieces of the ejk tools ---------------*- C++ -*-===//

#ifndef EJK_DRIVER_TOOLING_H
#define EJK_DRIVER_TOOLING_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

namespace mlir::ejk {

/// Registers every dialect an ejk input file or the pipeline may use.
void registerEjkDialects(MLIRContext &context);

/// Parses and verifies `path` ("-" for stdin); diagnostics go to stderr.
/// Returns null on failure.
OwningOpRef<ModuleOp> parseEjkFile(MLIRContext &context, StringRef path);

} // namespace mlir::ejk

#endif // EJK_DRIVER_TOOLING_H
