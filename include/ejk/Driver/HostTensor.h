//===- HostTensor.h - tensors in host memory for the tools ------*- C++ -*-===//

#ifndef EJK_DRIVER_HOSTTENSOR_H
#define EJK_DRIVER_HOSTTENSOR_H

#include "mlir/IR/BuiltinTypes.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::ejk {

/// A dense row-major tensor in host memory. `dtype` uses the manifest's
/// names: f32, f16, bf16, f64, i1 (one byte per element), i8, i32, i64.
struct HostTensor {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  int64_t numElements() const;
  /// Bytes of one element of `dtype` (0 when unknown).
  static size_t elementSize(StringRef dtype);
  /// The manifest dtype name of an MLIR element type ("" when unsupported).
  static std::string dtypeOf(Type elementType);
  /// Elements widened to f32 (floats), or converted (integers, i1).
  std::vector<float> toFloats() const;
  /// A tensor of `dtype`/`shape` holding `values` (narrowed as needed).
  static HostTensor fromFloats(StringRef dtype, std::vector<int64_t> shape,
                               const std::vector<float> &values);
};

} // namespace mlir::ejk

#endif // EJK_DRIVER_HOSTTENSOR_H
