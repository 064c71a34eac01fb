//===- OpModelRegistry.cpp - the op models of every family ----------------===//
//
// A process-wide table from op name to its OpModel. Families fill it from
// `registerAllOpFamilies` before any context parses IR; afterwards it is
// only read, so lookups need no lock. Registration itself is guarded, since
// tools and tests may register from more than one place.
//
//===----------------------------------------------------------------------===//

#include "ejk/Ops/OpModel.h"
#include "ejk/Ops/TunableModel.h"

#include "llvm/ADT/StringMap.h"

#include <mutex>

using namespace mlir;
using namespace mlir::ejk;

TargetKernel::~TargetKernel() = default;
OpModel::~OpModel() = default;

namespace {
struct Registry {
  std::mutex mutex;
  llvm::StringMap<std::unique_ptr<OpModel>> models;
};
} // namespace

static Registry &registry() {
  static Registry instance;
  return instance;
}

void mlir::ejk::registerOpModel(std::unique_ptr<OpModel> model) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  StringRef name = model->getOperationName();
  r.models.try_emplace(name, std::move(model));
}

const OpModel *mlir::ejk::lookupOpModel(StringRef name) {
  Registry &r = registry();
  auto it = r.models.find(name);
  return it == r.models.end() ? nullptr : it->second.get();
}

const OpModel *mlir::ejk::lookupOpModel(Operation *op) {
  return lookupOpModel(op->getName().getStringRef());
}

StringRef mlir::ejk::targetDisplayName(TargetInfo::Kind kind) {
  return kind == TargetInfo::Kind::Cpu ? "CPU" : "Vulkan";
}

void mlir::ejk::explainMissingKernel(Operation *op, const TargetInfo &target,
                                     raw_ostream &reason) {
  reason << "'" << op->getName() << "' has no "
         << targetDisplayName(target.kind) << " kernel in this version of ejk";
}
