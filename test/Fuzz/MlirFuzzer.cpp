//===- MlirFuzzer.cpp - fuzz the parser, verifiers, selection and tiling --===//
//
// Input bytes are MLIR text. They are parsed with every dialect ejk-opt
// registers, verified, and, when valid, compiled by each of kPipelines in
// turn: config selection with heuristics only (no fingerprint, so no cache,
// database or autotuning), dispatch formation and tiling, for the CPU and
// for two Vulkan targets (portable and cooperative-matrix) down to SPIR-V.
// Diagnostics are swallowed: an error is a fine answer to bad input; a crash,
// a sanitizer report, a hang or an out-of-memory is a finding. (The pass
// manager verifies the IR after every pass, so a pass that produces invalid
// IR fails here like a user would see it fail: with an error.)
//
// Every pipeline is a textual pass pipeline, so a crasher reproduces with
//   ejk-opt --pass-pipeline='<pipeline>' crash.mlir
// (EJK_FUZZ_VERBOSE=1 prints each pipeline as it runs).
//
//===----------------------------------------------------------------------===//

#include "ejk/Conversion/Passes.h"
#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Selection/Passes.h"
#include "ejk/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

using namespace mlir;

namespace {

/// What each valid input is compiled with, in order.
constexpr const char *kPipelines[] = {
    // CPU: selection and tiling (ejkc's --stop-after=tiling).
    "builtin.module(ejk-select-configs{policy=heuristics},"
    "ejk-form-dispatches,ejk-tile-dispatches)",
    // Vulkan, portable kernels, to SPIR-V.
    "builtin.module(ejk-select-configs{target=vulkan subgroup-size=32 "
    "vulkan-features=float16,storage16,subgroup_shuffle policy=heuristics},"
    "ejk-form-dispatches,ejk-tile-dispatches,"
    "ejk-lower-to-spirv)",
    // Vulkan, cooperative-matrix kernels, to SPIR-V (1.6: below it the
    // matrix ops do not lower, so no cooperative kernel reached SPIR-V).
    "builtin.module(ejk-select-configs{target=vulkan subgroup-size=32 "
    "vulkan-features=float16,storage16,subgroup_shuffle "
    "cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6 "
    "policy=heuristics},"
    "ejk-form-dispatches,ejk-tile-dispatches,"
    "ejk-lower-to-spirv)",
};

DialectRegistry &registry() {
  static DialectRegistry *instance = [] {
    auto *r = new DialectRegistry();
    registerAllDialects(*r);
    registerAllExtensions(*r);
    r->insert<ejk::EjkDialect>();
    ejk::registerAllOpFamilies(*r);
    return r;
  }();
  return *instance;
}

bool verbose() {
  static bool enabled = [] {
    const char *value = std::getenv("EJK_FUZZ_VERBOSE");
    return value && *value && std::string(value) != "0";
  }();
  return enabled;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // The same registrations as ejk-opt, so pipelines parse by name.
  registerAllPasses();
  ejk::registerEjkSelectionPasses();
  ejk::registerEjkTransformsPasses();
  ejk::registerEjkConversionPasses();
  ejk::registerEjkPipelines();
  (void)registry();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input: nothing uniqued by one input outlives it.
  MLIRContext context(registry(), MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(false);
  context.getDiagEngine().registerHandler([](Diagnostic &diagnostic) {
    if (verbose())
      llvm::errs() << diagnostic << "\n";
    return success();
  });

  // MLIR's lexer expects its buffer to end in a NUL, as every buffer the
  // tools read from a file does (llvm::MemoryBuffer); libFuzzer's does not.
  std::string text(reinterpret_cast<const char *>(data), size);
  // Parsing verifies (ParserConfig's verifyAfterParse).
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(llvm::StringRef(text), &context);
  if (!module)
    return 0;

  for (const char *pipeline : kPipelines) {
    if (verbose())
      llvm::errs() << "ejk-fuzz-mlir: --pass-pipeline='" << pipeline << "'\n";
    OwningOpRef<ModuleOp> copy = module->clone();
    // The pass manager is anchored on the module already: its pipeline is
    // what the string's builtin.module(...) wraps. (Given the whole string,
    // parsePassPipeline nested a second builtin.module manager, which ran
    // on the modules inside the input: none, so no pass ever ran.)
    StringRef text(pipeline);
    StringRef anchor = "builtin.module(";
    if (!text.consume_front(anchor) || !text.consume_back(")")) {
      llvm::errs() << "ejk-fuzz-mlir: pipeline not anchored on "
                      "builtin.module: "
                   << pipeline << "\n";
      std::abort();
    }
    PassManager pm(&context);
    if (failed(parsePassPipeline(text, pm, llvm::errs()))) {
      // The pipelines are fixed: failing to parse one is a harness bug.
      llvm::errs() << "ejk-fuzz-mlir: cannot parse pipeline " << pipeline
                   << "\n";
      std::abort();
    }
    if (failed(pm.run(*copy)) && verbose())
      llvm::errs() << "ejk-fuzz-mlir: pipeline failed (an error, not a bug)\n";
  }
  return 0;
}
