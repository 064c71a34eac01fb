//===- HostTensor.cpp - tensors in host memory for the tools --------------===//

#include "ejk/Support/HostTensor.h"

#include "ejk/Support/Float16.h"

#include <cstring>

using namespace ejk;

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

size_t HostTensor::elementSize(const std::string &dtype) {
  if (dtype == "f32" || dtype == "i32")
    return 4;
  if (dtype == "f16" || dtype == "bf16")
    return 2;
  if (dtype == "f64" || dtype == "i64")
    return 8;
  if (dtype == "i1" || dtype == "i8")
    return 1;
  return 0;
}

template <typename T>
static T loadAt(const std::vector<uint8_t> &data, int64_t i) {
  T value;
  std::memcpy(&value, data.data() + i * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
static void storeAt(std::vector<uint8_t> &data, int64_t i, T value) {
  std::memcpy(data.data() + i * sizeof(T), &value, sizeof(T));
}

std::vector<float> HostTensor::toFloats() const {
  int64_t n = numElements();
  std::vector<float> out(n);
  for (int64_t i = 0; i < n; ++i) {
    if (dtype == "f32")
      out[i] = loadAt<float>(data, i);
    else if (dtype == "f16")
      out[i] = ::ejk::halfToFloat(loadAt<uint16_t>(data, i));
    else if (dtype == "bf16")
      out[i] = ::ejk::bfloat16ToFloat(loadAt<uint16_t>(data, i));
    else if (dtype == "f64")
      out[i] = static_cast<float>(loadAt<double>(data, i));
    else if (dtype == "i1" || dtype == "i8")
      out[i] = static_cast<float>(loadAt<int8_t>(data, i));
    else if (dtype == "i32")
      out[i] = static_cast<float>(loadAt<int32_t>(data, i));
    else if (dtype == "i64")
      out[i] = static_cast<float>(loadAt<int64_t>(data, i));
  }
  return out;
}

HostTensor HostTensor::fromFloats(const std::string &dtype,
                                  std::vector<int64_t> shape,
                                  const std::vector<float> &values) {
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  int64_t n = t.numElements();
  t.data.resize(n * elementSize(dtype));
  for (int64_t i = 0; i < n; ++i) {
    float v = values[i];
    if (dtype == "f32")
      storeAt<float>(t.data, i, v);
    else if (dtype == "f16")
      storeAt<uint16_t>(t.data, i, ::ejk::floatToHalf(v));
    else if (dtype == "bf16")
      storeAt<uint16_t>(t.data, i, ::ejk::floatToBFloat16(v));
    else if (dtype == "f64")
      storeAt<double>(t.data, i, v);
    else if (dtype == "i1")
      storeAt<uint8_t>(t.data, i, v != 0.0f ? 1 : 0);
    else if (dtype == "i8")
      storeAt<int8_t>(t.data, i, static_cast<int8_t>(v));
    else if (dtype == "i32")
      storeAt<int32_t>(t.data, i, static_cast<int32_t>(v));
    else if (dtype == "i64")
      storeAt<int64_t>(t.data, i, static_cast<int64_t>(v));
  }
  return t;
}
