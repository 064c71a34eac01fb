// A hand-written tiled module (an ejk.entry calling a hand-written
// dispatch: the selection and tiling passes leave it as it is) compiled for
// and run on this machine's Vulkan device, checked against a numpy model.
// The shuffle's width must be the device's subgroup size.

// REQUIRES: vulkan
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed 's/SUBGROUP_SIZE/%vulkan_subgroup_size/' %s > %t/kernel.mlir
// RUN: %python %S/Inputs/tiled_kernel.py make %t
// RUN: ejk-run %t/kernel.mlir --target vulkan --entry k --input %t/a.npy --input %t/h.npy --input %t/m.npy --output %t/b.npy --output %t/c.npy --bench 3 --verbose 2> %t/log | FileCheck %s --check-prefix=BENCH
// RUN: FileCheck %s --check-prefix=MISS < %t/log
// RUN: %python %S/Inputs/tiled_kernel.py check %t | FileCheck %s
// A second run hits the artifact cache.
// RUN: ejk-run %t/kernel.mlir --target vulkan --entry k --input %t/a.npy --input %t/h.npy --input %t/m.npy --output %t/b.npy --output %t/c.npy --verbose 2>&1 | FileCheck %s --check-prefix=HIT
// RUN: %python %S/Inputs/tiled_kernel.py check %t | FileCheck %s
// The same through ejkc and its artifact directory.
// RUN: ejkc %t/kernel.mlir --target vulkan -o %t/out --name tiled 2>&1 | FileCheck %s --check-prefix=EJKC
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/out/tiled.json
// RUN: FileCheck %s --check-prefix=TARGET < %t/out/tiled.json
// RUN: spirv-val --target-env vulkan1.3 %t/out/tiled_k_dispatch_0.spv

// BENCH: bench: 3 runs, median
// MISS: ejk-run: cache miss
// HIT: ejk-run: cache hit
// CHECK: ok
// EJKC: ejkc: wrote {{.*}}tiled.json
// TARGET-NOT: "library"
// TARGET: "target": "vulkan"
// MANIFEST: "entry_point": "k_dispatch_0"
// MANIFEST: "grid": [
// MANIFEST: "requires": [
// MANIFEST: "subgroup_shuffle"
// MANIFEST: "spirv": "tiled_k_dispatch_0.spv"
// MANIFEST: "workgroup_size": [
// MANIFEST-NEXT: 64,

module {
  func.func private @k_dispatch_0(%a: memref<2x64xbf16>, %h: memref<2x64xf16>, %m: memref<2x64xi1>, %b: memref<2x64xf32>, %c: memref<2x64xbf16>)
      attributes {ejk.dispatch, ejk.grid = array<i64: 2, 1, 1>, ejk.workgroup_size = array<i64: 64, 1, 1>, ejk.shared_memory_bytes = 256 : i64, ejk.requires = ["subgroup_shuffle"]} {
    %wg = ejk.workgroup_id 0
    %t = gpu.thread_id x
    %x = memref.load %a[%wg, %t] : memref<2x64xbf16>
    %f = arith.extf %x : bf16 to f32
    %hx = memref.load %h[%wg, %t] : memref<2x64xf16>
    %hf = arith.extf %hx : f16 to f32
    %e = math.exp %f : f32
    %mk = memref.load %m[%wg, %t] : memref<2x64xi1>
    %s = arith.select %mk, %e, %hf : f32
    %w = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %s, %w[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f32) {
      %j = arith.addi %t, %i : index
      %c63 = arith.constant 63 : index
      %jj = arith.andi %j, %c63 : index
      %v = memref.load %w[%jj] : memref<64xf32, #gpu.address_space<workgroup>>
      %n = arith.addf %acc, %v : f32
      scf.yield %n : f32
    }
    %c1i = arith.constant 1 : i32
    %c8 = arith.constant SUBGROUP_SIZE : i32
    %sh, %ok = gpu.shuffle xor %sum, %c1i, %c8 : f32
    %l = math.log %e : f32
    %th = math.tanh %l : f32
    %fm = math.fma %sh, %th, %f : f32
    %e2 = math.exp2 %fm : f32
    memref.store %e2, %b[%wg, %t] : memref<2x64xf32>
    %tb = arith.truncf %e2 : f32 to bf16
    memref.store %tb, %c[%wg, %t] : memref<2x64xbf16>
    return
  }
  func.func @k(%a: memref<2x64xbf16>, %h: memref<2x64xf16>, %m: memref<2x64xi1>, %b: memref<2x64xf32>, %c: memref<2x64xbf16>) attributes {ejk.entry, ejk.num_inputs = 3 : i64} {
    ejk.dispatch @k_dispatch_0(%a, %h, %m, %b, %c) : memref<2x64xbf16>, memref<2x64xf16>, memref<2x64xi1>, memref<2x64xf32>, memref<2x64xbf16>
    return
  }
}
