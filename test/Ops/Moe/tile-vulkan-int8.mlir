// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,storage8,int8,int16 subgroup-size=32" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s --check-prefixes=CHECK,PORT
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,storage8,int8,int16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s --check-prefixes=CHECK,COOP
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,storage8,int8 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152" -ejk-form-dispatches -ejk-tile-dispatches -canonicalize | FileCheck %s --check-prefixes=CHECK,PORT
// RUN: ejk-opt %s -split-input-file -ejk-select-configs="target=vulkan vulkan-features=float16,storage16,storage8,int8,int16 subgroup-size=32 cooperative-matrix=true shared-memory-bytes=49152 spirv-version=1.6" -ejk-form-dispatches -ejk-tile-dispatches -ejk-lower-to-spirv | FileCheck %s --check-prefix=SPIRV

// grouped_matmul with int8 weights and per-channel scales on Vulkan
// (lib/Ops/Moe/Vulkan): f16 lhs, k = 64 and n = 48 (multiples of 16).
// Without cooperative matrices, or without 'int16' (third RUN), the
// portable path converts each weight with sitofp as it is staged. With
// them, the i8 buffer is read as 16-byte vectors of 16 weights, each
// turned into two vectors of 8 f16 through vector<4xi16> lanes, and the
// k loop is the f16 one. Both scale the accumulator in the epilogue.

// CHECK-LABEL: func.func private @gmm8_dispatch_0
// CHECK-SAME: %[[RHS:[^:]*]]: memref<5x64x48xi8>
// CHECK-SAME: %[[SCALES:[^:]*]]: memref<5x48xf32>
// PORT: %[[W:.*]] = memref.load %[[RHS]][{{.*}}] : memref<5x64x48xi8>
// PORT-NEXT: arith.sitofp %[[W]] : i8 to f32
// PORT: math.fma
// COOP: %[[VIEW:.*]] = builtin.unrealized_conversion_cast %[[RHS]] : memref<5x64x48xi8> to memref<960xvector<4xi32>>
// COOP: %[[WORDS:.*]] = memref.load %[[VIEW]][%{{.*}}] : memref<960xvector<4xi32>>
// COOP: %[[SEL:.*]] = arith.select %{{.*}}, %[[WORDS]], %{{.*}} : vector<4xi32>
// COOP: %[[LOW:.*]] = vector.extract_strided_slice %[[SEL]] {offsets = [0], sizes = [2], strides = [1]}
// COOP: %[[LANES:.*]] = vector.bitcast %[[LOW]] : vector<2xi32> to vector<4xi16>
// COOP: arith.extsi %[[LANES]] : vector<4xi16> to vector<4xi32>
// COOP: arith.sitofp %{{.*}} : vector<4xi32> to vector<4xf16>
// COOP: arith.bitcast %{{.*}} : vector<4xf16> to vector<4xi16>
// COOP: arith.ori %{{.*}}, %{{.*}} : vector<4xi32>
// COOP: vector.extract_strided_slice %[[SEL]] {offsets = [2], sizes = [2], strides = [1]}
// COOP: gpu.subgroup_mma_compute
// The epilogue: the accumulator times its column's scale, for rows of a
// local group.
// CHECK: %[[S:.*]] = memref.load %[[SCALES]][%{{.*}}, %{{.*}}] : memref<5x48xf32>
// CHECK-NEXT: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[S]] : f32
// CHECK-NEXT: arith.select %{{.*}}, %[[SCALED]], %{{.*}} : f32
// CHECK-LABEL: func.func @gmm8

// SPIRV: spirv.Bitcast %{{.*}} : vector<2xi32> to vector<4xi16>
// SPIRV: spirv.SConvert %{{.*}} : vector<4xi16> to vector<4xi32>
// SPIRV: spirv.ConvertSToF %{{.*}} : vector<4xi32> to vector<4xf16>
// SPIRV: spirv.KHR.CooperativeMatrixMulAdd

func.func @gmm8(%lhs: tensor<300x64xf16>, %rhs: tensor<5x64x48xi8>, %sizes: tensor<5xi32>, %scales: tensor<5x48xf32>) -> tensor<300x48xf16> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<5x48xf32>)
      : tensor<300x64xf16>, tensor<5x64x48xi8>, tensor<5xi32> -> tensor<300x48xf16>
  return %out : tensor<300x48xf16>
}

// -----

// k = 40 is not a multiple of 16: the portable path on every target.
// CHECK-LABEL: func.func private @gmm8_k40_dispatch_0
// CHECK-NOT: gpu.subgroup_mma_compute
// CHECK: arith.sitofp %{{.*}} : i8 to f32
// CHECK-LABEL: func.func @gmm8_k40

func.func @gmm8_k40(%lhs: tensor<300x40xf16>, %rhs: tensor<5x48x40xi8>, %sizes: tensor<5xi32>, %scales: tensor<5x48xf32>) -> tensor<300x48xf32> {
  %out = ejk.grouped_matmul %lhs, %rhs, %sizes rhs_scales(%scales : tensor<5x48xf32>) {transpose_rhs}
      : tensor<300x40xf16>, tensor<5x48x40xi8>, tensor<5xi32> -> tensor<300x48xf32>
  return %out : tensor<300x48xf32>
}
