// ejk-tune on the Mamba scans: the candidates' inputs are drawn like
// `ejk-run --random-inputs` draws them (A negative, step sizes in Mamba's
// ranges), so the scans stay bounded over 256 steps and correct candidates
// pass the reference check. With A ~ N(0, 1) the states grew to ~1e6 and
// every candidate was rejected ("no correct candidate").

// RUN: rm -rf %t && mkdir -p %t
// RUN: ejk-tune %s --cache-dir %t/cache --runs 1 --warmup 0 | FileCheck %s
// CHECK: compiling candidates of ejk.selective_scan;
// CHECK-NOT: wrong
// CHECK: winner block_d={{[0-9]+}},chunk_l={{[0-9]+}}:
// CHECK: #ejk.config<{{.*}}> from the autotune tier
// CHECK: compiling candidates of ejk.ssd;
// CHECK-NOT: wrong
// CHECK: winner block_n={{[0-9]+}},block_p={{[0-9]+}},chunk_size={{[0-9]+}}:
// CHECK: #ejk.config<{{.*}}> from the autotune tier

func.func @scan(%u: tensor<1x256x32xf32>, %delta: tensor<1x256x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x256x1x16xf32>, %C: tensor<1x256x1x16xf32>) -> tensor<1x256x32xf32> {
  %y = ejk.selective_scan %u, %delta, %A, %B, %C {delta_softplus} : tensor<1x256x32xf32>, tensor<1x256x32xf32>, tensor<32x16xf32>, tensor<1x256x1x16xf32>, tensor<1x256x1x16xf32> -> tensor<1x256x32xf32>
  return %y : tensor<1x256x32xf32>
}

func.func @ssd(%x: tensor<1x256x2x16xf32>, %dt: tensor<1x256x2xf32>, %A: tensor<2xf32>, %B: tensor<1x256x1x16xf32>, %C: tensor<1x256x1x16xf32>) -> tensor<1x256x2x16xf32> {
  %y = ejk.ssd %x, %dt, %A, %B, %C {dt_softplus} : tensor<1x256x2x16xf32>, tensor<1x256x2xf32>, tensor<2xf32>, tensor<1x256x1x16xf32>, tensor<1x256x1x16xf32> -> tensor<1x256x2x16xf32>
  return %y : tensor<1x256x2x16xf32>
}
