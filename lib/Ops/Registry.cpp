//===- Registry.cpp - every op family, registered at once -----------------===//
//
// The only list a new op family edits (with its folder in
// lib/Ops/CMakeLists.txt). test/unit/Ops/RegistryTest.cpp checks that every
// op the dialect promises to be tunable has a model for each target.
//
//===----------------------------------------------------------------------===//

#include "ejk/Ops/Registry.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::ejk::registerAllOpFamilies(DialectRegistry &registry) {
  registerAttentionFamily(registry);
  registerStateSpaceFamily(registry);
  registerMoeFamily(registry);
  registerPoolingFamily(registry);
  registerPagedFamily(registry);
  registerLinearFamily(registry);
  registerLatentFamily(registry);
  registerSparseFamily(registry);
}
