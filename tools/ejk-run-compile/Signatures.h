//===- Signatures.h - entry signatures from the IR --------------*- C++ -*-===//

#ifndef EJK_TOOLS_EJKRUN_SIGNATURES_H
#define EJK_TOOLS_EJKRUN_SIGNATURES_H

#include "ejk/Support/EntrySignature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <string>

namespace mlir::ejk {

/// The signature ejk-run runs `entry` with: a tensor function's arguments
/// and results, or, for an entry that is already tiled (`ejk.entry`), its
/// first `ejk.num_inputs` arguments as inputs and the rest as outputs. Each
/// input's random distribution comes from its uses (inputDistributionFor).
/// Fails with ejk-run's message.
bool entrySignature(func::FuncOp entry, ::ejk::EntrySignature &signature,
                    std::string &error);

/// The signatures of the functions of `module` that ejk-run can run with
/// what the signature holds (every dtype known, every shape static), by
/// name: what the source index records for the front.
std::map<std::string, ::ejk::EntrySignature>
runnableSignatures(ModuleOp module);

} // namespace mlir::ejk

#endif // EJK_TOOLS_EJKRUN_SIGNATURES_H
