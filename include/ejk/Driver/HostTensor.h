//===- HostTensor.h - tensors in host memory for the tools ------*- C++ -*-===//

#ifndef EJK_DRIVER_HOSTTENSOR_H
#define EJK_DRIVER_HOSTTENSOR_H

#include "ejk/Support/HostTensor.h"

#include "mlir/IR/Types.h"

#include <string>

namespace mlir::ejk {

using HostTensor = ::ejk::HostTensor;

/// The manifest dtype name of an MLIR element type ("" when unsupported).
std::string dtypeOf(Type elementType);

} // namespace mlir::ejk

#endif // EJK_DRIVER_HOSTTENSOR_H
