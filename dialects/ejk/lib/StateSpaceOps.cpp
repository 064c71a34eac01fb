//===- StateSpaceOps.cpp - Verifiers of the StateSpace family
//------------------------===//

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "ShapeVerifier.h"

using namespace mlir;
using namespace mlir::ejk;
