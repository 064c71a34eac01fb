//===- EjkInterfaces.td - ejk op interfaces ----------------*- tablegen -*-===//

#ifndef EJK_DIALECT_EJK_EJKINTERFACES_TD
#define EJK_DIALECT_EJK_EJKINTERFACES_TD

include "mlir/IR/OpBase.td"

def Ejk_TunableOpInterface : OpInterface<"TunableOpInterface"> {
  let cppNamespace = "::mlir::ejk";
  let description = [{
    An op whose lowering is parameterized by a `#ejk.config`. This is
    ejKernel's `Kernel.heuristic_cfg / config_space` as an MLIR interface:
    config selection (heuristics, the tuning database, the autotuner) talks
    to ops only through it.
  }];
  let methods = [
    InterfaceMethod<[{
        Returns the problem key: the op name, operand shapes and element
        types, and every attribute that changes the generated code. Two ops
        with the same key can share a tuned config.
      }],
      "std::string", "getProblemKey", (ins)>,
    InterfaceMethod<[{
        Returns the candidate configs for `target`. `full` selects the
        exhaustive space; otherwise a small space suited to quick tuning.
        Every returned config passes `verifyConfig` for `target`.
      }],
      "::llvm::SmallVector<::mlir::ejk::ConfigAttr>", "getConfigSpace",
      (ins "const ::mlir::ejk::TargetInfo &":$target, "bool":$full)>,
    InterfaceMethod<[{
        Returns a config that is good without tuning on `target`.
      }],
      "::mlir::ejk::ConfigAttr", "getHeuristicConfig",
      (ins "const ::mlir::ejk::TargetInfo &":$target)>,
    InterfaceMethod<[{
        Checks that `config` is valid for this op on `target`. On failure,
        writes the reason to `reason` (without a trailing newline).
      }],
      "::llvm::LogicalResult", "verifyConfig",
      (ins "::mlir::ejk::ConfigAttr":$config,
           "const ::mlir::ejk::TargetInfo &":$target,
           "::llvm::raw_ostream &":$reason)>,
    InterfaceMethod<[{
        Returns the config attached to the op, or null.
      }],
      "::mlir::ejk::ConfigAttr", "getSelectedConfig", (ins), [{}], [{
        return $_op.getConfigAttr();
      }]>,
    InterfaceMethod<[{
        Attaches `config` to the op.
      }],
      "void", "setSelectedConfig", (ins "::mlir::ejk::ConfigAttr":$config),
      [{}], [{
        $_op.setConfigAttr(config);
      }]>,
  ];
}

#endif // EJK_DIALECT_EJK_EJKINTERFACES_TD
