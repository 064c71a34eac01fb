//===- DType.cpp - Element types of manifest buffers ----------------------===//

#include "DType.h"

#include <iterator>

namespace ejk::runtime {

namespace {
struct DtypeInfo {
  ejk_dtype dtype;
  const char *name;
  size_t size;
};

constexpr DtypeInfo kDtypes[] = {
    {EJK_DTYPE_F32, "f32", 4},   {EJK_DTYPE_F16, "f16", 2},
    {EJK_DTYPE_BF16, "bf16", 2}, {EJK_DTYPE_F64, "f64", 8},
    {EJK_DTYPE_I1, "i1", 1},     {EJK_DTYPE_I8, "i8", 1},
    {EJK_DTYPE_I32, "i32", 4},   {EJK_DTYPE_I64, "i64", 8},
};

/// Looks the dtype up by its integer code, so that a value outside the
/// enum (any int a C caller passes) is never loaded as `ejk_dtype`.
const DtypeInfo *lookup(int code) {
  for (const DtypeInfo &info : kDtypes)
    if (static_cast<int>(info.dtype) == code)
      return &info;
  return nullptr;
}
} // namespace

size_t dtypeSize(int code) {
  const DtypeInfo *info = lookup(code);
  return info ? info->size : 0;
}

const char *dtypeName(int code) {
  const DtypeInfo *info = lookup(code);
  return info ? info->name : "unknown";
}

bool parseDtype(const std::string &name, ejk_dtype &dtype) {
  for (const DtypeInfo &info : kDtypes) {
    if (name == info.name) {
      dtype = info.dtype;
      return true;
    }
  }
  return false;
}

std::string dtypeSpellings() {
  std::string text;
  for (size_t i = 0; i < std::size(kDtypes); ++i) {
    if (i != 0)
      text += ", ";
    text += kDtypes[i].name;
  }
  return text;
}

} // namespace ejk::runtime
