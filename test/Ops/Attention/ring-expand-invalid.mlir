// RUN: ejk-opt %s -split-input-file -ejk-expand-entries -verify-diagnostics

func.func @not_alone(%q: tensor<1x16x2x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) -> tensor<1x16x2x8xf32> {
  // expected-error @+1 {{'ejk.ring_attention' op must be the only op of its entry 'not_alone', taking (query, key, value) and returning its results in order: the runtime drives it (docs/ops/ring.md)}}
  %o = ejk.ring_attention %k, %q, %v {ring_size = 2 : i64} : tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32> -> tensor<1x16x2x8xf32>
  return %o : tensor<1x16x2x8xf32>
}

// -----

func.func @config(%q: tensor<1x16x2x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) -> tensor<1x16x2x8xf32> {
  // expected-error @+1 {{'ejk.ring_attention' op takes no 'config': each block entry selects its own}}
  %o = ejk.ring_attention %q, %k, %v {ring_size = 2 : i64, config = #ejk.config<block_q = 16>} : tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32> -> tensor<1x16x2x8xf32>
  return %o : tensor<1x16x2x8xf32>
}

// -----

func.func @segments_order(%q: tensor<1x16x2x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>, %qs: tensor<1x16xi32>, %ks: tensor<1x16xi32>) -> tensor<1x16x2x8xf32> {
  // expected-error @+1 {{'ejk.ring_attention' op must be the only op of its entry 'segments_order', taking (query, key, value, q_segment_ids, kv_segment_ids) and returning its results in order: the runtime drives it (docs/ops/ring.md)}}
  %o = ejk.ring_attention %q, %k, %v q_segment_ids(%ks : tensor<1x16xi32>) kv_segment_ids(%qs : tensor<1x16xi32>) {ring_size = 2 : i64} : tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32> -> tensor<1x16x2x8xf32>
  return %o : tensor<1x16x2x8xf32>
}

// -----

func.func @segments_missing(%q: tensor<1x16x2x8xf32>, %k: tensor<1x16x2x8xf32>, %v: tensor<1x16x2x8xf32>) -> tensor<1x16x2x8xf32> {
  %s = arith.constant dense<0> : tensor<1x16xi32>
  // expected-error @+1 {{'ejk.ring_attention' op must be the only op of its entry 'segments_missing', taking (query, key, value, q_segment_ids, kv_segment_ids) and returning its results in order: the runtime drives it (docs/ops/ring.md)}}
  %o = ejk.ring_attention %q, %k, %v q_segment_ids(%s : tensor<1x16xi32>) kv_segment_ids(%s : tensor<1x16xi32>) {ring_size = 2 : i64} : tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32> -> tensor<1x16x2x8xf32>
  return %o : tensor<1x16x2x8xf32>
}
