//===- DtypeOf.cpp - manifest dtype names of MLIR types -------------------===//

#include "ejk/Driver/HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::ejk;

std::string mlir::ejk::dtypeOf(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF64())
    return "f64";
  if (type.isInteger(1))
    return "i1";
  if (type.isInteger(8))
    return "i8";
  if (type.isInteger(32))
    return "i32";
  if (type.isInteger(64))
    return "i64";
  return "";
}
