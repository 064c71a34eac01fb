//===- Passes.td - bufferization and tiling passes ---------*- tablegen -*-===//

#ifndef EJK_TRANSFORMS_PASSES_TD
#define EJK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

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
      passed between ejk ops live in `memref.alloc` temporaries.

    Entries may contain only ejk ops and `func.return`, and must compute
    every result (returning an argument unchanged, or one value twice, is
    an error).
  }];
  let dependentDialects = [
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect"
  ];
}

def EjkTileAttention : Pass<"ejk-tile-attention", "ModuleOp"> {
  let summary = "Tile flash attention into workgroups and vectorized blocks";
  let description = [{
    Replaces each `ejk.flash_attention` in a dispatch function by its tiled
    form, every size taken from the op's `#ejk.config`:

    - the grid is `[ceil(seq_q / block_q), num_heads, batch]`; a workgroup
      owns `block_q` query rows of one head;
    - its body loops over key blocks of `block_k` keys with the online
      softmax; key blocks that causal or sliding-window masking rule out for
      every row of the workgroup are not visited, and positional masks are
      only evaluated on blocks that straddle a boundary;
    - `S = Q K^T` and `O += P V` are register-blocked outer products on
      vectors as wide as the target's (the module's `ejk.target`); K is
      packed transposed by a separate pack dispatch so that both products
      stream contiguous vectors;
    - short queries (decode): when seq_q < block_q and query heads share KV
      heads, a workgroup's rows are the (head, position) pairs of one KV
      head's group (grid `[ceil(G * seq_q / block_q), num_kv_heads,
      batch]`), and when one row block covers a head of at most 8 rows, K/V
      are read in place with no pack dispatch;
    - `key_splits` (CPU config) splits the keys of a head over workgroups
      (flash-decoding) and adds a combine dispatch that merges the splits'
      partial outputs;
    - f16/bf16 inputs are widened to f32; accumulation is f32.

    The dispatch function gets `ejk.grid = array<i64: x, y, z>` and reads
    its position with `ejk.workgroup_id`.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def EjkTileStateSpace : Pass<"ejk-tile-state-space", "ModuleOp"> {
  let summary = "Tile Mamba selective scans and SSDs into workgroups";
  let description = [{
    Replaces each `ejk.selective_scan` and `ejk.ssd` in a dispatch function
    by its tiled form for the module's target, every size taken from the
    op's `#ejk.config`. On the CPU:

    - `selective_scan`: the grid is `[ceil(channels / block_d), batch, 1]`;
      a workgroup scans `block_d` channels over the whole sequence in
      chunks of `chunk_l` steps, vectorized over channels, each channel
      vector's state in registers; `exp(dt * A)` is computed once per
      element and nothing of size `[batch, seq, channels, d_state]` exists;
    - `ssd`: a pre-pass dispatch (grid `[chunks, groups, batch]`) computes
      the per-chunk scores `C_t . B_s` once per group; the scan (grid
      `[ceil(head_dim / block_p), heads, batch]`) runs the chunks of
      `chunk_size` steps in order with the chunked state-space-duality
      algorithm: the intra-chunk quadratic form and the contribution of the
      state carried in as register-blocked matmuls, then the state update
      by tiles of `block_n` state rows;
    - f16/bf16 inputs are widened to f32; the state and accumulation are
      f32.

    On Vulkan each op becomes one dispatch with `ejk.workgroup_size` and
    `ejk.shared_memory_bytes` (layouts in GpuStateSpaceLayout.h):

    - `selective_scan`: grid `[ceil(channels / block_d), batch, 1]`; the
      state lanes of a channel are neighbouring threads of a subgroup (the
      output sums over them with `gpu.shuffle xor`); each chunk of
      `chunk_l` steps of dt, u, B and C is staged in shared memory;
    - `ssd`: grid `[ceil(head_dim / block_p), heads, batch]`, chunks in
      order, the state in shared memory; per chunk C B^T, C St (over
      n-chunks of `block_n` staged states), the state update, then M X, on
      register tiles of `num_subgroups` subgroups.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // EJK_TRANSFORMS_PASSES_TD
