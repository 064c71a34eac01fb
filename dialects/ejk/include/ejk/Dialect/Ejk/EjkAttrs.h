//===- EjkAttrs.h - ejk attributes ------------------------------*- C++ -*-===//

#ifndef EJK_DIALECT_EJK_EJKATTRS_H
#define EJK_DIALECT_EJK_EJKATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#define GET_ATTRDEF_CLASSES
#include "ejk/Dialect/Ejk/EjkAttrs.h.inc"

#endif // EJK_DIALECT_EJK_EJKATTRS_H
