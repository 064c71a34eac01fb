//===- ExpandEntries.cpp - ops that compile to several entries ------------===//
//
// Runs the families' entry expanders (ejk/Ops/EntryExpansion.h). See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "ejk/Ops/EntryExpansion.h"
#include "ejk/Transforms/Passes.h"

namespace mlir::ejk {
#define GEN_PASS_DEF_EJKEXPANDENTRIES
#include "ejk/Transforms/Passes.h.inc"
} // namespace mlir::ejk

using namespace mlir;
using namespace mlir::ejk;

namespace {
struct EjkExpandEntries
    : public mlir::ejk::impl::EjkExpandEntriesBase<EjkExpandEntries> {
  void runOnOperation() override {
    if (failed(expandEntries(getOperation())))
      signalPassFailure();
  }
};
} // namespace
