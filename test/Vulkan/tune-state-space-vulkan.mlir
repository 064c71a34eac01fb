// ejk-tune --target vulkan on the Mamba scans (lavapipe in CI): Vulkan
// candidates of selective_scan and ssd are compiled, checked against the
// reference on the device (inputs in Mamba's ranges) and timed; the winners
// answer from the autotune tier.

// REQUIRES: vulkan
// RUN: rm -rf %t && mkdir -p %t
// RUN: ejk-tune %s --target vulkan --cache-dir %t/cache --runs 1 --warmup 0 | FileCheck %s
// CHECK: compiling candidates of ejk.selective_scan;
// CHECK-NOT: wrong
// CHECK: winner block_d={{[0-9]+}},chunk_l={{[0-9]+}}:
// CHECK: #ejk.config<{{.*}}> from the autotune tier
// CHECK: compiling candidates of ejk.ssd;
// CHECK-NOT: wrong
// The winner may be a chunk-parallel candidate (timing decides).
// CHECK: winner block_n={{[0-9]+}},block_p={{[0-9]+}},{{(chunk_parallel=1,)?}}chunk_size={{[0-9]+}},num_subgroups={{[0-9]+}}:
// CHECK: #ejk.config<{{.*}}num_subgroups{{.*}}> from the autotune tier

func.func @scan(%u: tensor<1x64x32xf32>, %delta: tensor<1x64x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x64x1x16xf32>, %C: tensor<1x64x1x16xf32>) -> tensor<1x64x32xf32> {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C {delta_softplus} : tensor<1x64x32xf32>, tensor<1x64x32xf32>, tensor<32x16xf32>, tensor<1x64x1x16xf32>, tensor<1x64x1x16xf32> -> tensor<1x64x32xf32>
  return %y : tensor<1x64x32xf32>
}

func.func @ssd(%x: tensor<1x64x2x16xf32>, %dt: tensor<1x64x2xf32>, %A: tensor<2xf32>, %B: tensor<1x64x1x16xf32>, %C: tensor<1x64x1x16xf32>) -> tensor<1x64x2x16xf32> {
  %y = ejk.ssd %x, %dt, %A, %B, %C {dt_softplus} : tensor<1x64x2x16xf32>, tensor<1x64x2xf32>, tensor<2xf32>, tensor<1x64x1x16xf32>, tensor<1x64x1x16xf32> -> tensor<1x64x2x16xf32>
  return %y : tensor<1x64x2x16xf32>
}
