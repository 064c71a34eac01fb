//===- HostOps.td - dispatch-level ops ---------------------*- tablegen -*-===//
//
// Ops that exist after bufferization: the host side of an entry point calls
// dispatch functions, and a dispatch function reads its workgroup id.
// (IREE's flow.dispatch / hal.interface.workgroup.id, in miniature.)
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DIALECT_EJK_HOSTOPS_TD
#define EJK_DIALECT_EJK_HOSTOPS_TD

include "mlir/IR/SymbolInterfaces.td"

def Ejk_DispatchOp : Ejk_Op<"dispatch", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Runs a dispatch function over its grid of workgroups";
  let description = [{
    Calls the dispatch function `callee` once per workgroup of its grid, with
    `buffers` bound in order. The callee is a `func.func` marked
    `ejk.dispatch` whose arguments are exactly the buffers' memref types; its
    grid is the callee's `ejk.grid` attribute (`[x, y, z]`), set by the
    tiling pass. Dispatches in one entry run in program order; the runtime
    finishes one before starting the next.

    ```mlir
    ejk.dispatch @attention_dispatch_0(%q, %k, %v, %out)
        : memref<1x128x8x64xf32>, memref<1x128x8x64xf32>,
          memref<1x128x8x64xf32>, memref<1x128x8x64xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyStaticShapeMemRef>:$buffers);
  let assemblyFormat = [{
    $callee `(` $buffers `)` attr-dict `:` type($buffers)
  }];
}

def Ejk_WorkgroupIdOp : Ejk_Op<"workgroup_id", [Pure]> {
  let summary = "The id of the running workgroup along one grid dimension";
  let description = [{
    Inside a dispatch function: the index of the workgroup that runs this
    invocation along grid dimension `dimension` (0 = x, 1 = y, 2 = z). The
    CPU lowering turns it into an argument of the kernel; the Vulkan
    lowering into the workgroup id builtin.

    ```mlir
    %x = ejk.workgroup_id 0
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative, IntMaxValue<2>]>:$dimension);
  let results = (outs Index:$result);
  let assemblyFormat = "$dimension attr-dict";
  let builders = [
    OpBuilder<(ins "int64_t":$dimension), [{
      build($_builder, $_state, $_builder.getIndexType(),
            $_builder.getI64IntegerAttr(dimension));
    }]>
  ];
}

#endif // EJK_DIALECT_EJK_HOSTOPS_TD
