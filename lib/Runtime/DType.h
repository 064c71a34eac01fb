//===- DType.h - Element types of manifest buffers --------------*- C++ -*-===//

#ifndef EJK_LIB_RUNTIME_DTYPE_H
#define EJK_LIB_RUNTIME_DTYPE_H

#include "ejk/Runtime/ejk_runtime.h"

#include <cstddef>
#include <string>

namespace ejk::runtime {

/// Bytes per element; 0 for a value outside the enum.
size_t dtypeSize(int code);

/// The manifest spelling ("f32", ...); "unknown" outside the enum.
const char *dtypeName(int code);

/// Parses a manifest spelling; false when \p name is not one.
bool parseDtype(const std::string &name, ejk_dtype &dtype);

/// The accepted spellings, for error messages ("f32, f16, ...").
std::string dtypeSpellings();

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_DTYPE_H
