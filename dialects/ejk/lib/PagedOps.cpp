//===- PagedOps.cpp - Verifiers of the Paged family
//------------------------===//

#include "ejk/Dialect/Ejk/EjkOps.h"

#include "ShapeVerifier.h"

using namespace mlir;
using namespace mlir::ejk;
