//===- CpuCodegen.h - LLVM dialect to a host shared object ------*- C++ -*-===//

#ifndef EJK_LIB_DRIVER_CPUCODEGEN_H
#define EJK_LIB_DRIVER_CPUCODEGEN_H

#include "ejk/Driver/Compiler.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::ejk {

/// Translates an LLVM-dialect module to LLVM IR, optimizes it at O3 for
/// `host` and emits an ELF object into `object`.
LogicalResult emitHostObject(ModuleOp module, const HostCpu &host,
                             unsigned vectorBits, std::string &object,
                             raw_ostream *dumpLLVMIR);

/// Links `objectPath` into the shared object `libraryPath` with the system
/// C compiler driver (cc), or ld when there is none.
LogicalResult linkSharedObject(Location loc, StringRef objectPath,
                               StringRef libraryPath);

} // namespace mlir::ejk

#endif // EJK_LIB_DRIVER_CPUCODEGEN_H
