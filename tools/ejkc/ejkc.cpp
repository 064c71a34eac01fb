//===- ejkc.cpp - compile an IR file to an artifact -----------------------===//
//
//   ejkc FILE.mlir [-o DIR] [--name NAME]
//   [--emit=artifact|ir-after-tiling|llvm] [--config-overlay FILE.json]
//   [--ejk-explain-configs] [--record]
//
//===----------------------------------------------------------------------===//

#include "ejk/Driver/Compiler.h"
#include "ejk/Driver/Tooling.h"
#include "ejk/Tuning/ToolOptions.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::ejk;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::Required);
static cl::opt<std::string> outDir("o", cl::desc("Output directory"),
                                   cl::value_desc("dir"), cl::init("."));
static cl::opt<std::string>
    artifactName("name", cl::desc("Artifact name (default: the file's stem)"));
static cl::opt<std::string>
    emit("emit",
         cl::desc("What to produce: artifact (default), ir-after-tiling, llvm"),
         cl::init("artifact"));
static cl::opt<unsigned>
    vectorBits("vector-bits",
               cl::desc("SIMD width to compile for (default: the host's)"),
               cl::init(0));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerConfigSelectionFlags();
  cl::ParseCommandLineOptions(argc, argv, "ejk compiler\n");
  if (emit != "artifact" && emit != "ir-after-tiling" && emit != "llvm") {
    llvm::errs() << "ejkc: unknown --emit=" << emit
                 << " (expected artifact, ir-after-tiling or llvm)\n";
    return 1;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module = parseEjkFile(context, inputFile);
  if (!module)
    return 1;
  auto selectionDiagnostics = printSelectionDiagnostics(context);

  std::string name = artifactName.empty()
                         ? llvm::sys::path::stem(inputFile).str()
                         : artifactName.getValue();
  CompileOptions options;
  options.vectorBits = vectorBits;
  std::string selectionError;
  options.selection = configSelectionForTool(selectionError);
  if (!options.selection) {
    llvm::errs() << "ejkc: error: " << selectionError << "\n";
    return 1;
  }
  std::string tiledIR, llvmIR;
  llvm::raw_string_ostream tiledStream(tiledIR), llvmStream(llvmIR);
  if (emit == "ir-after-tiling")
    options.dumpAfterTiling = &tiledStream;
  if (emit == "llvm")
    options.dumpLLVMIR = &llvmStream;
  std::string manifest;
  CompileTimings timings;
  if (failed(compileForHostCpu(*module, options, outDir, name, manifest,
                               &timings)))
    return 1;
  if (emit == "ir-after-tiling")
    llvm::outs() << tiledIR;
  else if (emit == "llvm")
    llvm::outs() << llvmIR;
  else
    llvm::errs() << "ejkc: wrote " << manifest << " in "
                 << llvm::format("%.3f", timings.total()) << " s (tiling "
                 << llvm::format("%.3f", timings.tiling) << ", lowering "
                 << llvm::format("%.3f", timings.lowering) << ", codegen "
                 << llvm::format("%.3f", timings.codegen) << ", link "
                 << llvm::format("%.3f", timings.link) << ")\n";
  return 0;
}
