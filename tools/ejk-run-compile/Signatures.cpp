//===- Signatures.cpp - entry signatures from the IR ----------------------===//

#include "Signatures.h"

#include "ejk/Driver/HostTensor.h"
#include "ejk/Driver/RandomInputs.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::ejk;

static bool toSpec(Type type, ::ejk::TensorSpec &spec) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return false;
  spec.dtype = dtypeOf(shaped.getElementType());
  spec.shape = shaped.getShape().vec();
  return true;
}

bool mlir::ejk::entrySignature(func::FuncOp entry,
                               ::ejk::EntrySignature &signature,
                               std::string &error) {
  std::string name = entry.getSymName().str();
  int64_t numInputs = entry.getNumArguments();
  bool tiled = entry->hasAttr("ejk.entry");
  if (tiled) {
    auto attr = entry->getAttrOfType<IntegerAttr>("ejk.num_inputs");
    if (!attr) {
      error = "tiled entry '" + name + "' has no ejk.num_inputs";
      return false;
    }
    numInputs = attr.getInt();
  }
  for (auto [i, type] : llvm::enumerate(entry.getArgumentTypes())) {
    ::ejk::TensorSpec spec;
    if (!toSpec(type, spec)) {
      error = "argument " + std::to_string(i) + " of '" + name +
              "' is not a ranked tensor or memref";
      return false;
    }
    bool input = static_cast<int64_t>(i) < numInputs;
    if (input)
      spec.random = inputDistributionFor(entry.getArgument(i));
    (input ? signature.inputs : signature.results).push_back(std::move(spec));
  }
  // A tiled entry writes its outputs through its arguments.
  for (auto [i, type] :
       llvm::enumerate(tiled ? TypeRange() : entry.getResultTypes())) {
    ::ejk::TensorSpec spec;
    if (!toSpec(type, spec)) {
      error = "result " + std::to_string(i) + " of '" + name +
              "' is not a ranked tensor or memref";
      return false;
    }
    signature.results.push_back(std::move(spec));
  }
  return true;
}

std::map<std::string, ::ejk::EntrySignature>
mlir::ejk::runnableSignatures(ModuleOp module) {
  std::map<std::string, ::ejk::EntrySignature> signatures;
  auto runnable = [](const ::ejk::TensorSpec &spec) {
    return !spec.dtype.empty() &&
           llvm::all_of(spec.shape, [](int64_t d) { return d >= 0; });
  };
  for (auto function : module.getOps<func::FuncOp>()) {
    ::ejk::EntrySignature signature;
    std::string unused;
    if (function.isExternal() || !entrySignature(function, signature, unused) ||
        !llvm::all_of(signature.inputs, runnable) ||
        !llvm::all_of(signature.results, runnable))
      continue;
    signatures[function.getSymName().str()] = std::move(signature);
  }
  return signatures;
}
