//===- Tooling.cpp - shared pieces of the ejk tools -----------------------===//

#include "ejk/Driver/Tooling.h"

#include "ejk/Dialect/Ejk/EjkDialect.h"
#include "ejk/Ops/Registry.h"
#include "ejk/Support/FileIO.h"

#include "mlir/Conversion/ConvertToLLVM/ToLLVMInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlir::ejk;

void mlir::ejk::registerEjkDialects(MLIRContext &context) {
  DialectRegistry registry;
  registry.insert<EjkDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, gpu::GPUDialect, index::IndexDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  scf::SCFDialect, spirv::SPIRVDialect, tensor::TensorDialect,
                  ub::UBDialect, vector::VectorDialect>();
  registerAllExtensions(registry);
  registerAllOpFamilies(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

OwningOpRef<ModuleOp> mlir::ejk::parseEjkFile(MLIRContext &context,
                                              StringRef path) {
  registerEjkDialects(context);
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file;
  if (path == "-") {
    file = openInputFile(path, &error);
  } else {
    // Through the shared reader: a FIFO or a device named as the input is
    // an error, never a read that blocks or does not end.
    std::string text;
    if (::ejk::readRegularFile(path.str(), text, error))
      file = llvm::MemoryBuffer::getMemBufferCopy(text, path);
  }
  if (!file) {
    llvm::errs() << error << "\n";
    return nullptr;
  }
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(file), SMLoc());
  SourceMgrDiagnosticHandler handler(*sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(*sourceMgr, ParserConfig(&context));
  return module;
}
