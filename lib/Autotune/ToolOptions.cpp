//===- ToolOptions.cpp - config selection flags of the tools --------------===//

#include "ejk/Autotune/ToolOptions.h"

#include "ejk/Autotune/Autotuner.h"

#include "llvm/Support/CommandLine.h"

using namespace mlir;
using namespace mlir::ejk;
namespace cl = llvm::cl;

namespace {
/// Constructed by registerConfigSelectionFlags, so that only the tools that
/// ask for them show these flags.
struct SelectionFlags {
  cl::opt<std::string> overlay{
      "config-overlay",
      cl::desc("JSON file of configs by problem key or op name, asked before "
               "the tuning database"),
      cl::value_desc("file")};
  cl::opt<bool> explain{
      "ejk-explain-configs",
      cl::desc("Report the tier that chose each op's config")};
  cl::opt<bool> record{"record",
                       cl::desc("Log each tunable problem compiled, for "
                                "`ejk-tune --recorded`")};
};
} // namespace

static SelectionFlags *flags = nullptr;

void mlir::ejk::registerConfigSelectionFlags() {
  static SelectionFlags instance;
  flags = &instance;
}

std::string mlir::ejk::configOverlayPath() {
  return flags ? std::string(flags->overlay) : std::string();
}

std::shared_ptr<ConfigSelectionOptions>
mlir::ejk::configSelectionForTool(std::string &error) {
  auto selection = std::make_shared<ConfigSelectionOptions>();
  if (!::ejk::autotunePolicyFromEnv(::ejk::AutotunePolicy::Heuristics,
                                    selection->policy, error))
    return nullptr;
  selection->fingerprint = ::ejk::hostCpuFingerprint();
  if (flags) {
    if (!flags->overlay.empty() &&
        !::ejk::ConfigOverlay::readFile(flags->overlay, selection->overlay,
                                        error))
      return nullptr;
    selection->explain = flags->explain;
    selection->record = flags->record;
  }
  if (selection->policy == ::ejk::AutotunePolicy::Autotune) {
    AutotuneOptions tune;
    tune.log = &llvm::errs();
    selection->tuner = createLocalProblemTuner(tune);
  }
  return selection;
}

std::unique_ptr<ScopedDiagnosticHandler>
mlir::ejk::printSelectionDiagnostics(MLIRContext &context) {
  return std::make_unique<ScopedDiagnosticHandler>(
      &context, [](Diagnostic &diag) -> LogicalResult {
        DiagnosticSeverity severity = diag.getSeverity();
        if (severity != DiagnosticSeverity::Warning &&
            severity != DiagnosticSeverity::Remark)
          return failure();
        llvm::raw_ostream &os = llvm::errs();
        if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation()))
          os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
             << loc.getColumn() << ": ";
        os << (severity == DiagnosticSeverity::Warning ? "warning: "
                                                       : "remark: ")
           << diag.str() << "\n";
        return success();
      });
}
