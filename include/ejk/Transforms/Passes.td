//===- Passes.td - bufferization and tiling passes ---------*- tablegen -*-===//

#ifndef EJK_TRANSFORMS_PASSES_TD
#define EJK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def EjkExpandEntries : Pass<"ejk-expand-entries", "ModuleOp"> {
  let summary = "Replace entries of runtime-driven ops by the entries the runtime calls";
  let description = [{
    Some ops are a program that the runtime drives rather than one kernel:
    `ejk.ring_attention` runs one flash-attention block per ring step and
    the runtime moves the key/value blocks between processes. Their family
    registers an expander (`ejk/Ops/EntryExpansion.h`) that replaces the
    public function holding the op by the public functions the runtime
    calls, made of ordinary ejk ops (docs/ops/ring.md). Runs before config
    selection; a module without such ops is left unchanged.
  }];
}

def EjkFormDispatches : Pass<"ejk-form-dispatches", "ModuleOp"> {
  let summary = "Bufferize entry functions into dispatches with a fixed ABI";
  let description = [{
    Rewrites every public function that computes with ejk ops on tensors
    into the fixed buffer ABI:

    - the entry takes one memref per argument, then one memref per result
      (same shape and element type, row-major, identity layout), and
      returns nothing; it is marked `ejk.entry`;
    - each ejk op becomes a private dispatch function
      `@<entry>_dispatch_<n>` marked `ejk.dispatch`, whose arguments are the
      op's operand buffers then its result buffers; its body re-creates the
      op on `bufferization.to_tensor` views of the arguments and stores the
      results with `bufferization.materialize_in_destination`, for the tiling
      passes to replace;
    - the entry calls its dispatches in order with `ejk.dispatch`; values
      passed between ejk ops live in `memref.alloc` temporaries;
    - an op whose results all have zero elements gets no dispatch: there is
      nothing to compute (an entry may then run no dispatch at all).

    Entries may contain only ejk ops and `func.return`, and must compute
    every result (returning an argument unchanged, or one value twice, is
    an error).
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def EjkTileDispatches : Pass<"ejk-tile-dispatches", "ModuleOp"> {
  let summary = "Replace each ejk op in a dispatch by its target's kernel";
  let description = [{
    The tiling driver. For each dispatch function made by
    `ejk-form-dispatches`, it finds the ejk op it holds, checks the op's
    `#ejk.config` against the module's target (`ejk.target`), and asks the
    op's family for that target's kernel builder, which replaces the op by
    loops over a grid of workgroups, every size taken from the config. The
    builder may add dispatches that run before or after (packing,
    pre-passes, combines) with temporaries every caller allocates.

    Every tiled dispatch gets `ejk.grid = array<i64: x, y, z>` (it reads its
    position with `ejk.workgroup_id`), `ejk.flops` and `ejk.bytes`; on
    Vulkan also `ejk.workgroup_size` and `ejk.shared_memory_bytes`.

    An op whose results are defined without its inputs (the family's
    `OpModel::constantResults`: attention over zero keys gives output 0 and
    lse -inf, as a fully masked row does) gets a fill kernel instead, on
    either target; one whose results equal some of its operands
    (`OpModel::copiedResults`: a grouped matmul over k = 0 onto
    `existing_out`) gets a copy kernel. An op without a kernel for the target is an error that
    names the op and the target. What each family's kernels do is in `docs/ops/<family>.md`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // EJK_TRANSFORMS_PASSES_TD
