//===- EjkDialect.cpp - ejk dialect registration --------------------------===//

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Dialect/Ejk/EjkOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ejk;

#include "ejk/Dialect/Ejk/EjkOpsDialect.cpp.inc"

void EjkDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ejk/Dialect/Ejk/EjkOps.cpp.inc"
      >();
  registerAttributes();
  // The ops with kernels: their op family attaches the model
  // (lib/Ops/<Family>/Model.cpp, through registerAllOpFamilies). The IR
  // only promises it, so the dialect carries no target knowledge.
  declarePromisedInterfaces<TunableOpInterface, FlashAttentionOp,
                            FlashAttentionGradOp, SelectiveScanOp, SsdOp,
                            GroupedMatmulOp, TransposedGroupedMatmulOp,
                            MeanPoolingOp, MeanPoolingGradOp, GlaOp>();
}
