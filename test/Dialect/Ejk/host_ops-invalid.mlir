// RUN: ejk-opt %s -split-input-file -verify-diagnostics

func.func @missing(%a: memref<4xf32>) {
  // expected-error @+1 {{expects 'nope' to name a func.func in this module}}
  ejk.dispatch @nope(%a) : memref<4xf32>
  return
}

// -----

func.func private @k(%a: memref<8xf32>)
func.func @types(%a: memref<4xf32>) {
  // expected-error @+1 {{expects buffer types to match the arguments of 'k'}}
  ejk.dispatch @k(%a) : memref<4xf32>
  return
}

// -----

func.func private @r(%a: memref<4xf32>) -> i32
func.func @results(%a: memref<4xf32>) {
  // expected-error @+1 {{expects dispatch function 'r' to return nothing}}
  ejk.dispatch @r(%a) : memref<4xf32>
  return
}

// -----

func.func @dim() {
  // expected-error @+1 {{attribute 'dimension' failed to satisfy constraint}}
  %x = ejk.workgroup_id 3
  return
}

// -----

func.func @dynamic(%a: memref<?xf32>) {
  // expected-error @+1 {{must be variadic of statically shaped memref of any type values}}
  ejk.dispatch @dynamic(%a) : memref<?xf32>
  return
}
