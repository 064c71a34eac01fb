//===- HostTensor.h - tensors in host memory for the tools ------*- C++ -*-===//
//
// MLIR-free, so that `ejk-run`'s front, which does not link the compiler,
// handles inputs and outputs with the same code as the compiling tools.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SUPPORT_HOSTTENSOR_H
#define EJK_SUPPORT_HOSTTENSOR_H

#include <cstdint>
#include <string>
#include <vector>

namespace ejk {

/// A dense row-major tensor in host memory. `dtype` uses the manifest's
/// names: f32, f16, bf16, f64, i1 (one byte per element), i8, i32, i64.
struct HostTensor {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  int64_t numElements() const;
  /// Bytes of one element of `dtype` (0 when unknown).
  static size_t elementSize(const std::string &dtype);
  /// Elements widened to f32 (floats), or converted (integers, i1).
  std::vector<float> toFloats() const;
  /// A tensor of `dtype`/`shape` holding `values` (narrowed as needed).
  static HostTensor fromFloats(const std::string &dtype,
                               std::vector<int64_t> shape,
                               const std::vector<float> &values);
};

} // namespace ejk

#endif // EJK_SUPPORT_HOSTTENSOR_H
