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

def EjkPrepareVulkanKernels
    : Pass<"ejk-prepare-vulkan-kernels", "ModuleOp"> {
  let summary = "Outline tiled dispatches into GPU kernels for Vulkan";
  let description = [{
    The first step of `ejk-lower-to-spirv`. The module must carry a Vulkan
    `ejk.target` (from `ejk-select-configs target=vulkan`). Every dispatch
    function (`ejk.dispatch`) is checked against the Vulkan dispatch
    contract (docs/vulkan-pipeline.md) and the target, then moved into a
    `gpu.module` of its own name holding one `gpu.func ... kernel`:

    - `ejk.workgroup_size` becomes `spirv.entry_point_abi`; a dispatch
      without one, or one beyond the target's workgroup limits, is an
      error;
    - `ejk.workgroup_id d` becomes `gpu.block_id` x, y or z;
    - ops outside the contract (arith, math, scf, memref load/store/alloc,
      the gpu ids, barrier, shuffle and subgroup MMA ops) are errors, as are
      ops that need a device feature the target lacks (shuffles without
      `subgroup_shuffle`, subgroup MMA without the 16x16x16 f16*f16+f32
      cooperative matrix) and workgroup memory beyond the target's limit.

    Entry functions (`ejk.entry`) are erased: the manifest records their
    schedule. The module gets `gpu.container_module` and the
    `spirv.target_env` built from `ejk.target`: SPIR-V version,
    capabilities and extensions from the device's features, resource limits
    (shared memory, workgroup size and invocations, subgroup size,
    cooperative matrix properties).
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect", "::mlir::spirv::SPIRVDialect"
  ];
}

def EjkConvertToSpirv : Pass<"ejk-convert-to-spirv", "ModuleOp"> {
  let summary = "Convert GPU kernels to the SPIR-V dialect (Vulkan)";
  let description = [{
    Converts every `gpu.module` of the module into a `spirv.module` for the
    `spirv.target_env` in scope (Logical addressing, Shader capability; the
    GLSL450 memory model, or the Vulkan memory model for modules with
    cooperative matrices where the target allows it, step 5):

    1. bf16 is emulated: arithmetic on bf16 is done in f32, `arith.extf`
       and `arith.truncf` between bf16 and f32 become integer code (a shift
       on load; round-to-nearest-even on store) and bf16 buffers are i16
       buffers;
    2. memref memory spaces become storage classes: the default space is
       `StorageBuffer`, `#gpu.address_space<workgroup>` is `Workgroup`
       (a `memref.alloc` there becomes a `spirv.GlobalVariable`) and
       `#gpu.address_space<private>` is `Function`;
    3. one full dialect conversion with the GPU (ids, barrier, shuffle,
       subgroup MMA to `KHR` cooperative matrices), arith, math (GLSL),
       scf, cf, memref, func, index and ub patterns. i1 values in buffers
       are bytes;
    4. in kernels marked `ejk.matrix_operands = "bf16"`, the f16 operand
       matrices (A and B; the GPU dialect has no bf16 matrices) become bf16
       cooperative matrices (SPV_KHR_bfloat16), the f16 constants or
       conversions put into them bf16 ones, the elements taken out of them
       bf16; any op other than a load, store, element move, conversion or
       multiply-add on one is an error;
    5. where the target allows the `VulkanMemoryModel` capability and
       SPIR-V 1.5+, every module with a cooperative matrix moves to
       `OpMemoryModel Logical Vulkan` (SPIR-V validators require it with
       `CooperativeMatrixKHR`): workgroup loads and stores become
       `NonPrivatePointer`, acquire-release barriers on workgroup memory
       also `MakeAvailable|MakeVisible`. Other modules stay GLSL450.

    Kernel arguments become storage buffers at descriptor set 0, binding =
    argument number, after `spirv-lower-abi-attrs`.
  }];
  let dependentDialects = [
    "::mlir::spirv::SPIRVDialect", "::mlir::arith::ArithDialect"
  ];
}

def EjkSpirvInterfaceVersion
    : Pass<"ejk-spirv-interface-version", "::mlir::spirv::ModuleOp"> {
  let summary = "Keep a spirv.module's version where its entry points need it";
  let description = [{
    Runs after `spirv-update-vce`. For a SPIR-V 1.4+ target,
    `spirv-lower-abi-attrs` lists every global variable an entry point uses
    in its interface (storage buffers, workgroup memory), which SPIR-V allows
    from 1.4 on; `spirv-update-vce` then lowers the module's version to the
    least its ops need, which may be below 1.4, and drivers (and the
    validation layer) reject the module. The same holds for an
    `spirv.Select` of vectors by a scalar condition (the cooperative-matrix
    attention's 16-byte loads). This pass raises such a module's version to
    1.4. It also adds `BFloat16CooperativeMatrixKHR` to a module with bf16
    cooperative matrices (kernels marked `ejk.matrix_operands = "bf16"`),
    which `spirv-update-vce` does not deduce in MLIR 22.
  }];
}

#endif // EJK_CONVERSION_PASSES_TD
