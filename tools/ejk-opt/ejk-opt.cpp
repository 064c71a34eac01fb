//===- ejk-opt.cpp - mlir-opt with the ejk dialect and passes -------------===//

#include "ejk/Conversion/Passes.h"
#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Selection/Passes.h"
#include "ejk/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();
  mlir::ejk::registerEjkSelectionPasses();
  mlir::ejk::registerEjkTransformsPasses();
  mlir::ejk::registerEjkConversionPasses();
  mlir::ejk::registerEjkPipelines();
  registry.insert<mlir::ejk::EjkDialect>();
  mlir::ejk::registerAllOpFamilies(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "ejk optimizer driver\n", registry));
}
