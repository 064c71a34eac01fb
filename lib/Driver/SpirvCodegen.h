//===- SpirvCodegen.h - tiled dispatches to SPIR-V binaries -----*- C++ -*-===//

#ifndef EJK_LIB_DRIVER_SPIRVCODEGEN_H
#define EJK_LIB_DRIVER_SPIRVCODEGEN_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::ejk {

/// One dispatch as SPIR-V.
struct SpirvKernel {
  /// The dispatch's name (also its entry point).
  std::string symbol;
  /// The binary, little-endian words.
  std::vector<uint32_t> words;
  /// Device features its capabilities need (the runtime's names).
  std::vector<std::string> features;
};

/// Runs ejk-lower-to-spirv on `tiled` (in place) and serializes each
/// dispatch's spirv.module. With `dumpAsm`, the SPIR-V dialect of every
/// dispatch is printed there. With `serialize` false, stops before
/// serializing.
FailureOr<std::vector<SpirvKernel>>
lowerToSpirv(ModuleOp tiled, raw_ostream *dumpAsm, bool serialize = true);

} // namespace mlir::ejk

#endif // EJK_LIB_DRIVER_SPIRVCODEGEN_H
