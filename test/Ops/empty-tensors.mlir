// Zero-sized tensors: an op whose results have no elements gets no dispatch;
// attention over zero keys fills output 0 and lse -inf (a fully masked row);
// a scan of no steps from the zero state gives a zero final state. Each is
// compiled, run and checked against the reference on the CPU.
// RUN: ejk-opt %s -ejk-select-configs -ejk-form-dispatches | FileCheck %s --check-prefix=FORM
// RUN: ejk-run %s --entry fa_batch0 --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry fa_heads0 --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry fa_no_keys --random-inputs 1 --check | FileCheck %s --check-prefixes=CHECK,LSE
// RUN: ejk-run %s --entry scan_no_channels --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry scan_no_steps --random-inputs 1 --check | FileCheck %s --check-prefixes=CHECK,STATE
// RUN: ejk-run %s --entry ssd_no_head_dim --random-inputs 1 --check | FileCheck %s
// RUN: ejk-run %s --entry ssd_no_steps --random-inputs 1 --check | FileCheck %s --check-prefixes=CHECK,STATE
// RUN: ejk-run %s --entry gla_no_steps --random-inputs 1 --check | FileCheck %s --check-prefixes=CHECK,STATE
// RUN: ejk-run %s --entry lightning_packed_no_tokens --random-inputs 1 --check | FileCheck %s --check-prefixes=CHECK,STATE
// RUN: ejk-run %s --entry delta_no_steps --random-inputs 1 --check | FileCheck %s --check-prefixes=CHECK,STATE
// RUN: ejk-run %s --entry ragged_write_empty_pages --random-inputs 1 --check | FileCheck %s

// CHECK-NOT: FAILED
// CHECK: result 0 ({{.*}}): {{.*}}: ok
// LSE: result 1 ({{.*}}): {{.*}}: ok
// STATE: result 1 ({{.*}}): {{.*}}: ok

// FORM-LABEL: func.func @fa_batch0(
// FORM-NOT: ejk.dispatch
// FORM: return
func.func @fa_batch0(%q: tensor<0x8x2x16xf32>) -> tensor<0x8x2x16xf32> {
  %o = ejk.flash_attention %q, %q, %q : tensor<0x8x2x16xf32>, tensor<0x8x2x16xf32>, tensor<0x8x2x16xf32> -> tensor<0x8x2x16xf32>
  return %o : tensor<0x8x2x16xf32>
}

// FORM-LABEL: func.func @fa_heads0(
// FORM-NOT: ejk.dispatch
// FORM: return
func.func @fa_heads0(%q: tensor<1x8x0x16xf32>, %k: tensor<1x8x2x16xf32>) -> tensor<1x8x0x16xf32> {
  %o = ejk.flash_attention %q, %k, %k : tensor<1x8x0x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x0x16xf32>
  return %o : tensor<1x8x0x16xf32>
}

// FORM-LABEL: func.func @fa_no_keys(
// FORM: ejk.dispatch @fa_no_keys_dispatch_0
func.func @fa_no_keys(%q: tensor<1x4x2x16xf32>, %k: tensor<1x0x2x16xf32>) -> (tensor<1x4x2x16xf32>, tensor<1x2x4xf32>) {
  %o, %lse = ejk.flash_attention %q, %k, %k : tensor<1x4x2x16xf32>, tensor<1x0x2x16xf32>, tensor<1x0x2x16xf32> -> tensor<1x4x2x16xf32>, tensor<1x2x4xf32>
  return %o, %lse : tensor<1x4x2x16xf32>, tensor<1x2x4xf32>
}

// FORM-LABEL: func.func @scan_no_channels(
// FORM-NOT: ejk.dispatch
// FORM: return
func.func @scan_no_channels(%u: tensor<1x8x0xf32>, %A: tensor<0x16xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x0xf32> {
  %y = ejk.selective_scan %u, %u, %A, %B, %B : tensor<1x8x0xf32>, tensor<1x8x0xf32>, tensor<0x16xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x0xf32>
  return %y : tensor<1x8x0xf32>
}

func.func @scan_no_steps(%u: tensor<1x0x32xf32>, %A: tensor<32x16xf32>, %B: tensor<1x0x1x16xf32>) -> (tensor<1x0x32xf32>, tensor<1x32x16xf32>) {
  %y, %h = ejk.selective_scan %u, %u, %A, %B, %B : tensor<1x0x32xf32>, tensor<1x0x32xf32>, tensor<32x16xf32>, tensor<1x0x1x16xf32>, tensor<1x0x1x16xf32> -> tensor<1x0x32xf32>, tensor<1x32x16xf32>
  return %y, %h : tensor<1x0x32xf32>, tensor<1x32x16xf32>
}

// FORM-LABEL: func.func @ssd_no_head_dim(
// FORM-NOT: ejk.dispatch
// FORM: return
func.func @ssd_no_head_dim(%x: tensor<1x8x2x0xf32>, %dt: tensor<1x8x2xf32>, %A: tensor<2xf32>, %B: tensor<1x8x1x16xf32>) -> tensor<1x8x2x0xf32> {
  %y = ejk.ssd %x, %dt, %A, %B, %B : tensor<1x8x2x0xf32>, tensor<1x8x2xf32>, tensor<2xf32>, tensor<1x8x1x16xf32>, tensor<1x8x1x16xf32> -> tensor<1x8x2x0xf32>
  return %y : tensor<1x8x2x0xf32>
}

func.func @ssd_no_steps(%x: tensor<1x0x2x16xf32>, %dt: tensor<1x0x2xf32>, %A: tensor<2xf32>, %B: tensor<1x0x1x8xf32>) -> (tensor<1x0x2x16xf32>, tensor<1x2x16x8xf32>) {
  %y, %s = ejk.ssd %x, %dt, %A, %B, %B : tensor<1x0x2x16xf32>, tensor<1x0x2xf32>, tensor<2xf32>, tensor<1x0x1x8xf32>, tensor<1x0x1x8xf32> -> tensor<1x0x2x16xf32>, tensor<1x2x16x8xf32>
  return %y, %s : tensor<1x0x2x16xf32>, tensor<1x2x16x8xf32>
}

// Linear recurrences of no steps from the zero state: a zero final state
// (fill), for unpacked and packed (no tokens, three sequences) inputs. The
// kernels used to be dispatched over zero-sized buffers, which neither
// the LLVM nor the SPIR-V lowering accepts ('failed to legalize operation
// gpu.func', 'missing LLVMTranslationDialectInterface').
func.func @gla_no_steps(%q: tensor<1x0x2x16xf32>, %g: tensor<1x0x2x16xf32>) -> (tensor<1x0x2x16xf32>, tensor<1x2x16x16xf32>) {
  %o, %s = ejk.gla %q, %q, %q g(%g : tensor<1x0x2x16xf32>) : tensor<1x0x2x16xf32>, tensor<1x0x2x16xf32>, tensor<1x0x2x16xf32> -> tensor<1x0x2x16xf32>, tensor<1x2x16x16xf32>
  return %o, %s : tensor<1x0x2x16xf32>, tensor<1x2x16x16xf32>
}

func.func @lightning_packed_no_tokens(%q: tensor<1x0x2x16xf32>, %cu: tensor<4xi32>) -> (tensor<1x0x2x16xf32>, tensor<3x2x16x16xf32>) {
  %o, %s = ejk.lightning_attention %q, %q, %q cu_seqlens(%cu : tensor<4xi32>) {layer_idx = 0 : i64, num_layers = 1 : i64} : tensor<1x0x2x16xf32>, tensor<1x0x2x16xf32>, tensor<1x0x2x16xf32> -> tensor<1x0x2x16xf32>, tensor<3x2x16x16xf32>
  return %o, %s : tensor<1x0x2x16xf32>, tensor<3x2x16x16xf32>
}

func.func @delta_no_steps(%q: tensor<2x0x2x16xf32>, %beta: tensor<2x0x2xf32>) -> (tensor<2x0x2x16xf32>, tensor<2x2x16x16xf32>) {
  %o, %s = ejk.delta_attention %q, %q, %q, %beta : tensor<2x0x2x16xf32>, tensor<2x0x2x16xf32>, tensor<2x0x2x16xf32>, tensor<2x0x2xf32> -> tensor<2x0x2x16xf32>, tensor<2x2x16x16xf32>
  return %o, %s : tensor<2x0x2x16xf32>, tensor<2x2x16x16xf32>
}

// A ragged paged batch that writes its new tokens into a cache of pages of
// no tokens: nothing is written or read, so the output is 0 (fill) and the
// updated caches are empty; the kernels used to be dispatched over the
// zero-sized caches ('failed to legalize operation gpu.func' on Vulkan).
func.func @ragged_write_empty_pages(%q: tensor<4x2x16xf32>, %kc: tensor<4x0x1x16xf32>, %lens: tensor<2xi32>, %tables: tensor<2x2xi32>, %cu: tensor<3xi32>, %n: tensor<1xi32>, %k: tensor<4x1x16xf32>) -> (tensor<4x2x16xf32>, tensor<4x0x1x16xf32>, tensor<4x0x1x16xf32>) {
  %o:3 = ejk.ragged_paged_attention %q, %kc, %kc, %lens, %tables, %cu, %n new_kv(%k, %k : tensor<4x1x16xf32>, tensor<4x1x16xf32>) : tensor<4x2x16xf32>, tensor<4x0x1x16xf32>, tensor<4x0x1x16xf32>, tensor<2xi32>, tensor<2x2xi32>, tensor<3xi32>, tensor<1xi32> -> tensor<4x2x16xf32>, tensor<4x0x1x16xf32>, tensor<4x0x1x16xf32>
  return %o#0, %o#1, %o#2 : tensor<4x2x16xf32>, tensor<4x0x1x16xf32>, tensor<4x0x1x16xf32>
}
