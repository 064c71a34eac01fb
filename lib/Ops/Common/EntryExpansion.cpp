//===- EntryExpansion.cpp - the entry expanders of every family -----------===//
//
// A process-wide table from op name to its expander, filled like the
// OpModel registry (OpModelRegistry.cpp) before any IR is parsed.
//
//===----------------------------------------------------------------------===//

#include "ejk/Ops/EntryExpansion.h"

#include "llvm/ADT/StringMap.h"

#include <mutex>

using namespace mlir;
using namespace mlir::ejk;

namespace {
struct ExpanderTable {
  std::mutex mutex;
  llvm::StringMap<EntryExpander> expanders;
};
} // namespace

static ExpanderTable &table() {
  static ExpanderTable instance;
  return instance;
}

void mlir::ejk::registerEntryExpander(StringRef opName,
                                      EntryExpander expander) {
  ExpanderTable &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.expanders.try_emplace(opName, expander);
}

bool mlir::ejk::hasEntryExpander(StringRef opName) {
  ExpanderTable &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  return t.expanders.count(opName) != 0;
}

LogicalResult mlir::ejk::expandEntries(ModuleOp module) {
  ExpanderTable &t = table();
  // Collected first: an expander erases the entry it expands.
  SmallVector<std::pair<Operation *, func::FuncOp>> work;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isPrivate() || func.isExternal())
      continue;
    func.walk([&](Operation *op) {
      if (t.expanders.count(op->getName().getStringRef()))
        work.push_back({op, func});
    });
  }
  for (auto [op, func] : work) {
    EntryExpander expander = t.expanders.lookup(op->getName().getStringRef());
    if (failed(expander(op, func)))
      return failure();
  }
  return success();
}
