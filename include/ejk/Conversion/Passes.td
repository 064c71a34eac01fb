//===- Passes.td - lowering passes -------------------------*- tablegen -*-===//

#ifndef EJK_CONVERSION_PASSES_TD
#define EJK_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def EjkPrepareCpuKernels : Pass<"ejk-prepare-cpu-kernels", "ModuleOp"> {
  let summary = "Give dispatch functions the CPU kernel signature";
  let description = [{
    Readies tiled dispatch functions for the LLVM lowering:

    - entry functions (`ejk.entry`) are erased: their schedule of
      dispatches is recorded in the artifact manifest, and the runtime,
      not generated code, runs it;
    - every dispatch function gets three leading `index` arguments, the
      workgroup id along x, y and z, which replace `ejk.workgroup_id`.

    After `ejk-cpu-dispatch-wrappers`, a dispatch `@name` with buffers
    `b0..bn` is the C function
    `void name(int64_t x, int64_t y, int64_t z, void **bindings)`.
  }];
}

def EjkApproximateMath : Pass<"ejk-approximate-math"> {
  let summary = "Expand math.exp/log/tanh into vectorizable polynomials";
  let description = [{
    Replaces transcendental `math` ops on f32 scalars and vectors by
    polynomial approximations made of arithmetic, so kernels need no libm
    calls and stay vectorized.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def EjkCpuDispatchWrappers : Pass<"ejk-cpu-dispatch-wrappers", "ModuleOp"> {
  let summary = "Emit the C ABI entry of each dispatch (LLVM dialect)";
  let description = [{
    Runs after the conversion to the LLVM dialect with the bare-pointer
    memref convention. Each dispatch function `@name(i64, i64, i64, ptr...)`
    is renamed `@name.body` (internal) and a wrapper
    `@name(i64 x, i64 y, i64 z, ptr bindings)` loads the n buffer pointers
    from the `bindings` array and calls it.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // EJK_CONVERSION_PASSES_TD
