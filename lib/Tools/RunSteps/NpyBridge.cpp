//===- NpyBridge.cpp - .npy files as host tensors -------------------------===//

#include "ejk/Tools/RunSteps/NpyBridge.h"

#include "ejk/Support/Npy.h"

using namespace ejk;

/// manifest dtype <-> npy dtype.
static const std::pair<const char *, const char *> kDtypes[] = {
    {"f32", "f32"}, {"f16", "f16"}, {"f64", "f64"}, {"i32", "i32"},
    {"i64", "i64"}, {"i8", "i8"},   {"i1", "bool"}, {"bf16", "u16"},
};

bool ejk::readNpyTensor(const std::string &path, HostTensor &tensor,
                        std::string &error) {
  NpyArray array;
  if (!readNpy(path, array, error))
    return false;
  for (auto [ours, npy] : kDtypes)
    if (array.dtype == npy) {
      tensor.dtype = ours;
      tensor.shape = std::move(array.shape);
      tensor.data = std::move(array.data);
      return true;
    }
  error = "'" + path + "' has unsupported dtype " + array.dtype;
  return false;
}

bool ejk::writeNpyTensor(const std::string &path, const HostTensor &tensor,
                         std::string &error) {
  for (auto [ours, npy] : kDtypes)
    if (tensor.dtype == ours) {
      NpyArray array;
      array.dtype = npy;
      array.shape = tensor.shape;
      array.data = tensor.data;
      return writeNpy(path, array, error);
    }
  error = "cannot write dtype " + tensor.dtype + " to .npy";
  return false;
}
