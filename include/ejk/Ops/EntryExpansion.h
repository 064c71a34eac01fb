//===- EntryExpansion.h - ops that compile to several entries ---*- C++ -*-===//
//
// Some ops are not one kernel but a program the runtime drives: ring
// attention runs one flash-attention block per ring step, with the
// communication in the runtime. Their family registers an expander that
// replaces the entry holding the op by the entries the runtime calls
// (docs/ops/ring.md); `ejk-expand-entries` runs the expanders before
// config selection, so every later stage sees ordinary ops.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_ENTRYEXPANSION_H
#define EJK_OPS_ENTRYEXPANSION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace mlir::ejk {

/// Replaces `entry`, a public function that holds `op`, by other public
/// functions of the same module (and erases `entry`); emits an error on
/// `op` and fails when it cannot.
using EntryExpander = LogicalResult (*)(Operation *op, func::FuncOp entry);

/// Registers `expander` for the op called `opName`; a second registration
/// for one op is ignored.
void registerEntryExpander(StringRef opName, EntryExpander expander);

/// Whether the op called `opName` has an expander.
bool hasEntryExpander(StringRef opName);

/// Runs the registered expander of every op of `module` that has one.
LogicalResult expandEntries(ModuleOp module);

} // namespace mlir::ejk

#endif // EJK_OPS_ENTRYEXPANSION_H
