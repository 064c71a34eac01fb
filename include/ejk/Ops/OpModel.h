//===- OpModel.h - what the compiler knows of one op ------------*- C++ -*-===//
//
// Every op family describes each of its ops to the rest of the compiler
// through two objects, registered once by `registerAllOpFamilies`
// (lib/Ops/Registry.cpp):
//
//  - an `OpModel`: the target-neutral facts (problem key, reference
//    evaluation, input ranges for random inputs), and
//  - one `TargetKernel` per target: that target's config rules (space,
//    heuristic, verification) and the kernel builder the tiling driver
//    calls.
//
// Stage code (selection, tiling, driver) reaches ops only through these, so
// adding a family never edits a stage.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_OPS_OPMODEL_H
#define EJK_OPS_OPMODEL_H

#include "ejk/Dialect/Ejk/EjkAttrs.h"
#include "ejk/Dialect/Ejk/TargetInfo.h"
#include "ejk/Ops/ReferenceValues.h"
#include "ejk/Support/RandomTensor.h"

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::ejk {

class DispatchRewriter;

/// One op's code for one target.
class TargetKernel {
public:
  virtual ~TargetKernel();
  /// Candidate configs (`full`: the exhaustive space); each verifies.
  virtual SmallVector<ConfigAttr>
  configSpace(Operation *op, const TargetInfo &target, bool full) const = 0;
  /// A config that is good without tuning.
  virtual ConfigAttr heuristicConfig(Operation *op,
                                     const TargetInfo &target) const = 0;
  /// Checks `config` for `op` on `target`; the reason goes to `reason`.
  virtual LogicalResult verifyConfig(Operation *op, ConfigAttr config,
                                     const TargetInfo &target,
                                     raw_ostream &reason) const = 0;
  /// Replaces `op`, the tensor-level body of the rewriter's dispatch, by
  /// this target's kernel(s) under the verified `config`.
  virtual LogicalResult tile(Operation *op, ConfigAttr config,
                             DispatchRewriter &rewriter) const = 0;
};

/// A TargetKernel whose functions are the static members of `Rules`, each
/// taking the op as `OpT`: a family writes plain functions per target.
template <typename OpT, typename Rules>
class TargetKernelOf final : public TargetKernel {
public:
  SmallVector<ConfigAttr> configSpace(Operation *op, const TargetInfo &target,
                                      bool full) const override {
    return Rules::configSpace(cast<OpT>(op), target, full);
  }
  ConfigAttr heuristicConfig(Operation *op,
                             const TargetInfo &target) const override {
    return Rules::heuristicConfig(cast<OpT>(op), target);
  }
  LogicalResult verifyConfig(Operation *op, ConfigAttr config,
                             const TargetInfo &target,
                             raw_ostream &reason) const override {
    return Rules::verifyConfig(cast<OpT>(op), config, target, reason);
  }
  LogicalResult tile(Operation *op, ConfigAttr config,
                     DispatchRewriter &rewriter) const override {
    return Rules::tile(cast<OpT>(op), config, rewriter);
  }
};

/// The target-neutral facts of one op.
class OpModel {
public:
  virtual ~OpModel();
  /// The op name, as `ejk.<op>`.
  virtual StringRef getOperationName() const = 0;
  /// The problem key: shapes, element types and the attributes that change
  /// the generated code (two ops with one key share a tuned config).
  virtual std::string problemKey(Operation *op) const = 0;
  /// Evaluates the op with the reference evaluator on `values`.
  virtual LogicalResult evaluateReference(Operation *op,
                                          ReferenceValues &values) const = 0;
  /// The range random inputs for `operand` are drawn from, where N(0, 1)
  /// does not suit it (a decay that must be negative, say).
  virtual std::optional<::ejk::InputDistribution>
  inputDistribution(Operation *op, Value operand) const {
    return std::nullopt;
  }
  /// When the op's results do not depend on its inputs (a reduction over an
  /// empty dimension: attention over zero keys), the value each result is
  /// filled with, in result order; the tiling driver then emits a fill
  /// kernel on any target. Nullopt when the op needs its kernel.
  virtual std::optional<SmallVector<double>>
  constantResults(Operation *op) const {
    return std::nullopt;
  }
  /// When the op's results are copies of some of its operands (an
  /// accumulation onto `existing_out` over an empty dimension), the operand
  /// each result copies, in result order; the tiling driver then emits a
  /// copy kernel on any target. Nullopt when the op needs its kernel.
  virtual std::optional<SmallVector<Value>> copiedResults(Operation *op) const {
    return std::nullopt;
  }
  /// The kernel for `kind`, or null when the op has none there.
  const TargetKernel *kernelFor(TargetInfo::Kind kind) const {
    return kind == TargetInfo::Kind::Cpu ? cpu.get() : vulkan.get();
  }

protected:
  std::unique_ptr<TargetKernel> cpu, vulkan;
};

/// Registers `model` for its op; a second model for one op is ignored (the
/// registration functions may run more than once).
void registerOpModel(std::unique_ptr<OpModel> model);

/// The model of `op`, or null when its family registered none.
const OpModel *lookupOpModel(Operation *op);
/// The model of the op called `name`, or null.
const OpModel *lookupOpModel(StringRef name);

/// The name users read for a target kind ("CPU", "Vulkan").
StringRef targetDisplayName(TargetInfo::Kind kind);

} // namespace mlir::ejk

#endif // EJK_OPS_OPMODEL_H
