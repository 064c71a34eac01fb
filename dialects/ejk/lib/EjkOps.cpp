//===- EjkOps.cpp - ejk op definitions ------------------------------------===//
//
// The generated op classes. Verifiers live with their family
// (AttentionOps.cpp, ...); TunableOpInterface is implemented by the op
// families (lib/Ops/<Family>/Model.cpp).
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

LogicalResult mlir::ejk::verifyKnownAttributesOnly(Operation *op) {
  for (NamedAttribute attr : op->getDiscardableAttrs()) {
    StringRef name = attr.getName().strref();
    if (name.contains('.'))
      continue;
    InFlightDiagnostic diag = op->emitOpError("has no attribute '")
                              << name << "'";
    // Segment sizes are structure, not options a user writes.
    SmallVector<StringAttr> known;
    for (StringAttr n : op->getName().getAttributeNames())
      if (n.strref() != "operandSegmentSizes" &&
          n.strref() != "resultSegmentSizes")
        known.push_back(n);
    if (known.empty()) {
      diag << "; it takes none";
    } else {
      diag << "; it takes: ";
      llvm::interleaveComma(known, diag,
                            [&](StringAttr n) { diag << n.strref(); });
    }
    return diag;
  }
  return success();
}
