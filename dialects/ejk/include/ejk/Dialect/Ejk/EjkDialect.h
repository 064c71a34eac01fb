//===- EjkDialect.h - ejk dialect -------------------------------*- C++ -*-===//

#ifndef EJK_DIALECT_EJK_EJKDIALECT_H
#define EJK_DIALECT_EJK_EJKDIALECT_H

#include "mlir/IR/Dialect.h"

#include "ejk/Dialect/Ejk/EjkOpsDialect.h.inc"

#endif // EJK_DIALECT_EJK_EJKDIALECT_H
