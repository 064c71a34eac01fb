//===- CpuCodegen.cpp - LLVM dialect to a host shared object --------------===//

#include "CpuCodegen.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

#include <mutex>

using namespace mlir;
using namespace mlir::ejk;

static void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// `features` with every ISA extension wider than `vectorBits` turned off:
/// code compiled for a narrower machine (an AVX2 fingerprint compiled on an
/// AVX-512 host) must not use the host's wider instructions anywhere, not
/// only in the kernels' vectors (the backend picks EVEX encodings, masks
/// and zmm spills otherwise).
static std::string restrictToVectorWidth(StringRef features,
                                         unsigned vectorBits) {
  SmallVector<StringRef> parts;
  features.split(parts, ',', -1, /*KeepEmpty=*/false);
  auto tooWide = [&](StringRef name) {
    if (vectorBits < 512 &&
        (name.starts_with("avx512") || name.starts_with("amx") ||
         name == "avx10.1-512" || name == "evex512"))
      return true;
    // Below 256 bits: AVX and every extension that implies it (LLVM would
    // turn AVX back on for them).
    if (vectorBits < 256 &&
        (name.starts_with("avx") ||
         llvm::is_contained({"fma", "fma4", "f16c", "xop", "vaes", "vpclmulqdq",
                             "sha512", "sm3", "sm4"},
                            name)))
      return true;
    return false;
  };
  std::string out;
  for (StringRef part : parts) {
    // detectHostCpu writes every feature as +name or -name.
    bool on = part.consume_front("+");
    if (!on)
      part.consume_front("-");
    if (!out.empty())
      out += ',';
    out += (on && !tooWide(part)) ? '+' : '-';
    out += part.str();
  }
  return out;
}

LogicalResult mlir::ejk::emitHostObject(ModuleOp module, const HostCpu &host,
                                        unsigned vectorBits,
                                        std::string &object,
                                        raw_ostream *dumpLLVMIR) {
  initializeNativeTarget();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "ejk");
  if (!llvmModule)
    return module.emitError("translation to LLVM IR failed");

  llvm::Triple triple(host.triple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError("no LLVM target for '")
           << host.triple << "': " << error;
  llvm::TargetOptions targetOptions;
  std::string features = restrictToVectorWidth(host.features, vectorBits);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, host.cpuName, features, targetOptions, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return module.emitError("could not create a target machine for ")
           << host.cpuName;
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);

  // Kernels use vectors as wide as the config assumed: keep the backend
  // from splitting them (some CPUs prefer 256-bit vectors by default).
  std::string width = std::to_string(vectorBits);
  for (llvm::Function &function : *llvmModule) {
    if (function.isDeclaration())
      continue;
    function.addFnAttr("target-cpu", host.cpuName);
    function.addFnAttr("target-features", features);
    function.addFnAttr("min-legal-vector-width", width);
    function.addFnAttr("prefer-vector-width", width);
  }

  // O3 middle end.
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(machine.get());
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(*llvmModule, mam);
  if (dumpLLVMIR)
    llvmModule->print(*dumpLLVMIR, nullptr);

  // Object code.
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, stream, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return module.emitError("the target cannot emit object files");
  codegen.run(*llvmModule);
  object.assign(buffer.begin(), buffer.end());
  return success();
}

LogicalResult mlir::ejk::linkSharedObject(Location loc, StringRef objectPath,
                                          StringRef libraryPath) {
  SmallVector<std::string> argv;
  if (auto cc = llvm::sys::findProgramByName("cc")) {
    argv = {*cc,  "-shared",         "-nostdlib",
            "-o", libraryPath.str(), objectPath.str()};
  } else if (auto ld = llvm::sys::findProgramByName("ld")) {
    argv = {*ld, "-shared", "-o", libraryPath.str(), objectPath.str()};
  } else {
    return emitError(loc, "no linker found: install a C compiler (cc) or "
                          "binutils (ld) to build CPU artifacts");
  }
  // Kernels link without the C runtime, yet the backend may call its
  // conversion helpers (__truncsfbf2 for bf16 on CPUs without AVX512-BF16);
  // compiler-rt's builtins archive supplies them, statically.
  if (llvm::sys::fs::exists(EJK_COMPILER_RT_BUILTINS))
    argv.push_back(EJK_COMPILER_RT_BUILTINS);
  SmallVector<StringRef> args(argv.begin(), argv.end());
  std::string message;
  int status = llvm::sys::ExecuteAndWait(args[0], args, std::nullopt, {}, 0, 0,
                                         &message);
  if (status != 0)
    return emitError(loc, "linking '")
           << libraryPath << "' failed (" << args[0] << " exited with "
           << status << "): " << message;
  return success();
}
