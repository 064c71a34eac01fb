//===- EjkOps.cpp - ejk op definitions ------------------------------------===//
//
// The generated op classes. Verifiers live with their family
// (AttentionOps.cpp, ...), interface implementations in *Tuning.cpp.
//
//===----------------------------------------------------------------------===//

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::ejk;

#include "ejk/Dialect/Ejk/EjkInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "ejk/Dialect/Ejk/EjkOps.cpp.inc"
