//===- LinearOps.cpp - Verifiers of the Linear family
//------------------------===//

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "ShapeVerifier.h"

using namespace mlir;
using namespace mlir::ejk;
