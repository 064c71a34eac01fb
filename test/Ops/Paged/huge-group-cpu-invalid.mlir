// RUN: ejk-opt %s -split-input-file -verify-diagnostics -ejk-select-configs=vector-bits=256 -ejk-form-dispatches -ejk-tile-dispatches

// The CPU decode kernel (Paged/Cpu/Kernel.cpp) unrolls the query heads of a
// KV head and their head-dim vectors: a group of 2^38 heads ran the
// compiler out of memory (LLVM ERROR: out of memory, SIGABRT) for every op
// that runs on it. Their query rows, accumulators and a step of scores
// must fit the L2 cache, as every CPU kernel's working set does.

func.func @paged(%q: tensor<2x1099511627776x64xf16>, %kc: tensor<16x1x16x64xf16>, %vc: tensor<16x1x16x64xf16>, %lens: tensor<2xi32>, %tables: tensor<2x8xi32>) -> tensor<2x1099511627776x64xf16> {
  // expected-error @+1 {{'ejk.paged_attention' op config #ejk.config<block_k = 64> from the heuristic tier is invalid for this target: working set of the 1099511627776 query heads of a KV head of}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<2x1099511627776x64xf16>, tensor<16x1x16x64xf16>, tensor<16x1x16x64xf16>, tensor<2xi32>, tensor<2x8xi32> -> tensor<2x1099511627776x64xf16>
  return %o : tensor<2x1099511627776x64xf16>
}

// -----

// A head_dim of 2^40 (one head) unrolls as many vectors.
func.func @paged_head_dim(%q: tensor<1x1x1099511627776xf32>, %kc: tensor<4x1x16x1099511627776xf32>, %vc: tensor<4x1x16x1099511627776xf32>, %lens: tensor<1xi32>, %tables: tensor<1x4xi32>) -> tensor<1x1x1099511627776xf32> {
  // expected-error @+1 {{'ejk.paged_attention' op config #ejk.config<block_k = 64> from the heuristic tier is invalid for this target: working set of the 1 query heads of a KV head of 8796093022464 bytes exceeds the 1048576-byte L2 cache}}
  %o = ejk.paged_attention %q, %kc, %vc, %lens, %tables : tensor<1x1x1099511627776xf32>, tensor<4x1x16x1099511627776xf32>, tensor<4x1x16x1099511627776xf32>, tensor<1xi32>, tensor<1x4xi32> -> tensor<1x1x1099511627776xf32>
  return %o : tensor<1x1x1099511627776xf32>
}

// -----

func.func @prefill(%q: tensor<1x8x1099511627776x64xf16>, %kc: tensor<16x16x1x64xf16>, %vc: tensor<16x16x1x64xf16>, %lens: tensor<1xi32>, %tables: tensor<1x16xi32>) -> tensor<1x8x1099511627776x64xf16> {
  // expected-error @+1 {{'ejk.prefill_paged_attention' op config #ejk.config<block_k = 64, block_q = 1> from the heuristic tier is invalid for this target: working set of the 1099511627776 query heads of a KV head of}}
  %o = ejk.prefill_paged_attention %q, %kc, %vc, %lens, %tables : tensor<1x8x1099511627776x64xf16>, tensor<16x16x1x64xf16>, tensor<16x16x1x64xf16>, tensor<1xi32>, tensor<1x16xi32> -> tensor<1x8x1099511627776x64xf16>
  return %o : tensor<1x8x1099511627776x64xf16>
}

// -----

func.func @ragged_decode(%q: tensor<4x1099511627776x64xf16>, %k: tensor<4x512x2x64xf16>, %v: tensor<4x512x2x64xf16>, %starts: tensor<4xi32>, %ends: tensor<4xi32>) -> tensor<4x1099511627776x64xf16> {
  // expected-error @+1 {{'ejk.ragged_decode_attention' op config #ejk.config<block_k = 64> from the heuristic tier is invalid for this target: working set of the 549755813888 query heads of a KV head of}}
  %o = ejk.ragged_decode_attention %q, %k, %v, %starts, %ends : tensor<4x1099511627776x64xf16>, tensor<4x512x2x64xf16>, tensor<4x512x2x64xf16>, tensor<4xi32>, tensor<4xi32> -> tensor<4x1099511627776x64xf16>
  return %o : tensor<4x1099511627776x64xf16>
}

// -----

func.func @ragged_paged(%q: tensor<64x1099511627776x64xf16>, %kp: tensor<32x16x1x64xf16>, %vp: tensor<32x16x1x64xf16>, %kv_lens: tensor<4xi32>, %pages: tensor<4x8xi32>, %cu_q_lens: tensor<5xi32>, %n: tensor<1xi32>) -> tensor<64x1099511627776x64xf16> {
  // expected-error @+1 {{'ejk.ragged_paged_attention' op config #ejk.config<block_k = 64, block_q = 1> from the heuristic tier is invalid for this target: working set of the 1099511627776 query heads of a KV head of}}
  %o = ejk.ragged_paged_attention %q, %kp, %vp, %kv_lens, %pages, %cu_q_lens, %n : tensor<64x1099511627776x64xf16>, tensor<32x16x1x64xf16>, tensor<32x16x1x64xf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32>, tensor<1xi32> -> tensor<64x1099511627776x64xf16>
  return %o : tensor<64x1099511627776x64xf16>
}

// -----

func.func @unified(%q: tensor<64x1099511627776x64xf16>, %kc: tensor<32x16x1x64xf16>, %vc: tensor<32x16x1x64xf16>, %lens: tensor<4xi32>, %tables: tensor<4x8xi32>, %starts: tensor<5xi32>) -> tensor<64x1099511627776x64xf16> {
  // expected-error @+1 {{'ejk.unified_attention' op config #ejk.config<block_k = 64, block_q = 1> from the heuristic tier is invalid for this target: working set of the 1099511627776 query heads of a KV head of}}
  %o = ejk.unified_attention %q, %kc, %vc, %lens, %tables, %starts : tensor<64x1099511627776x64xf16>, tensor<32x16x1x64xf16>, tensor<32x16x1x64xf16>, tensor<4xi32>, tensor<4x8xi32>, tensor<5xi32> -> tensor<64x1099511627776x64xf16>
  return %o : tensor<64x1099511627776x64xf16>
}

// -----

// flash_attention's decode (one query row, dense K/V) runs on the same
// kernel under its own config rules, which do not bound the group: the
// kernel says so when it is built.
func.func @flash_decode(%q: tensor<1x1x1099511627776x64xf32>, %k: tensor<1x128x1x64xf32>, %v: tensor<1x128x1x64xf32>) -> tensor<1x1x1099511627776x64xf32> {
  // expected-error @+1 {{'ejk.flash_attention' op has no CPU decode kernel for this shape: working set of the 1099511627776 query heads of a KV head of}}
  %o = ejk.flash_attention %q, %k, %v : tensor<1x1x1099511627776x64xf32>, tensor<1x128x1x64xf32>, tensor<1x128x1x64xf32> -> tensor<1x1x1099511627776x64xf32>
  return %o : tensor<1x1x1099511627776x64xf32>
}
