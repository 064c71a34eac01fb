//===- EjkOps.h - ejk ops ---------------------------------------*- C++ -*-===//

#ifndef EJK_DIALECT_EJK_EJKOPS_H
#define EJK_DIALECT_EJK_EJKOPS_H

#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Dialect/Ejk/TargetInfo.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::ejk {
/// Fails on an attribute of `op` that is neither inherent nor prefixed by
/// a dialect name ("x.y"): a misspelled option must not be ignored.
LogicalResult verifyKnownAttributesOnly(Operation *op);
} // namespace mlir::ejk

namespace mlir::OpTrait {
template <typename ConcreteType>
class EjkKnownAttributesOnly
    : public TraitBase<ConcreteType, EjkKnownAttributesOnly> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return ::mlir::ejk::verifyKnownAttributesOnly(op);
  }
};
} // namespace mlir::OpTrait

#include "ejk/Dialect/Ejk/EjkInterfaces.h.inc"

#define GET_OP_CLASSES
#include "ejk/Dialect/Ejk/EjkOps.h.inc"

#endif // EJK_DIALECT_EJK_EJKOPS_H
