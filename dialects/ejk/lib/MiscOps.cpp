//===- MiscOps.cpp - Verifiers of the Misc family ------------------------===//

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "ShapeVerifier.h"

using namespace mlir;
using namespace mlir::ejk;
