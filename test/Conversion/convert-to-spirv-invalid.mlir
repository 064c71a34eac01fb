// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-convert-to-spirv

// A memory space that no Vulkan storage class stands for.
module attributes {gpu.container_module} {
  gpu.module @m {
    // expected-error @+1 {{'gpu.func' op uses a memory space with no Vulkan storage class}}
    gpu.func @k(%a: memref<4xf32, "host">) kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [1, 1, 1]>} {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<4xf32, "host">
      gpu.return
    }
  }
}
