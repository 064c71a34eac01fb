//===- Tensor.h - Buffer views and status for the reference -----*- C++ -*-===//
//
// The vocabulary shared by every reference op: a status with a message, a
// non-owning view of a row-major contiguous tensor, and the shape checks that
// turn a malformed call into a message instead of an out-of-bounds read.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_REFERENCE_TENSOR_H
#define EJK_REFERENCE_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ejk::reference {

/// The outcome of a reference call: ok, or not ok with a message that names
/// the offending buffer or option.
struct Status {
  bool ok = true;
  std::string message;

  /// A successful status.
  static Status success() { return Status(); }

  /// A failed status carrying \p message.
  static Status error(std::string message) {
    Status status;
    status.ok = false;
    status.message = std::move(message);
    return status;
  }

  /// True when ok, so that `if (Status s = f(); !s) return s;` reads well.
  explicit operator bool() const { return ok; }
};

/// A read-only, non-owning view of a row-major contiguous tensor of T.
///
/// \c numElements is how many elements \c data really holds; the reference
/// checks it against the product of \c shape before reading anything. The
/// view does not extend the lifetime of the storage it points into.
template <typename T> struct TensorRef {
  const T *data = nullptr;
  size_t numElements = 0;
  std::vector<int64_t> shape;

  TensorRef() = default;

  /// Views \p numElements elements at \p data as a tensor of \p shape.
  TensorRef(const T *data, size_t numElements, std::vector<int64_t> shape)
      : data(data), numElements(numElements), shape(std::move(shape)) {}

  /// Views all of \p storage as a tensor of \p shape.
  TensorRef(const std::vector<T> &storage, std::vector<int64_t> shape)
      : data(storage.data()), numElements(storage.size()),
        shape(std::move(shape)) {}

  /// The number of dimensions.
  size_t rank() const { return shape.size(); }

  /// The element at flat row-major offset \p offset.
  const T &operator[](int64_t offset) const {
    return data[static_cast<size_t>(offset)];
  }
};

/// Marks a dimension that checkShape accepts with any (non-negative) extent.
inline constexpr int64_t kAnyDim = -1;

/// Prints a shape as "[2, 3, ?]", with kAnyDim as "?".
inline std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i != 0)
      text += ", ";
    text += shape[i] == kAnyDim ? std::string("?") : std::to_string(shape[i]);
  }
  return text + "]";
}

/// Multiplies the extents of \p shape into \p count; fails on a negative
/// extent or when the product overflows int64.
inline bool shapeElementCount(const std::vector<int64_t> &shape,
                              int64_t &count) {
  count = 1;
  for (int64_t extent : shape) {
    if (extent < 0)
      return false;
    if (extent != 0 && count > std::numeric_limits<int64_t>::max() / extent)
      return false;
    count *= extent;
  }
  return true;
}

/// Checks that \p tensor has the rank of \p expected, that each extent equals
/// the expected one (any extent where kAnyDim), and that its buffer holds
/// exactly as many elements as its shape says. \p name prefixes the message,
/// e.g. "flash_attention: k".
template <typename T>
Status checkShape(const std::string &name, const TensorRef<T> &tensor,
                  const std::vector<int64_t> &expected) {
  bool matches = tensor.rank() == expected.size();
  for (size_t i = 0; matches && i < expected.size(); ++i)
    matches = tensor.shape[i] >= 0 &&
              (expected[i] == kAnyDim || expected[i] == tensor.shape[i]);
  if (!matches)
    return Status::error(name + ": expected shape " + formatShape(expected) +
                         ", got " + formatShape(tensor.shape));
  int64_t count = 0;
  if (!shapeElementCount(tensor.shape, count))
    return Status::error(name + ": shape " + formatShape(tensor.shape) +
                         " has too many elements");
  if (static_cast<uint64_t>(count) != tensor.numElements)
    return Status::error(name + ": shape " + formatShape(tensor.shape) +
                         " needs " + std::to_string(count) +
                         " elements but the buffer holds " +
                         std::to_string(tensor.numElements));
  if (count != 0 && tensor.data == nullptr)
    return Status::error(name + ": buffer is null");
  return Status::success();
}

/// Checks that a broadcastable extent is 1 or \p full; \p what names the
/// dimension in the message, e.g. "dim 0 (batch)".
inline Status checkBroadcastDim(const std::string &name, const char *what,
                                int64_t extent, int64_t full) {
  if (extent == 1 || extent == full)
    return Status::success();
  return Status::error(name + ": " + what + " must be 1 or " +
                       std::to_string(full) + ", got " +
                       std::to_string(extent));
}

/// Resizes \p buffer to hold a tensor of \p shape filled with \p fill.
/// Shapes whose element count overflows are reported; running out of memory
/// is not (ejk builds with -fno-exceptions, so it terminates). The ops keep
/// every allocation bounded by their input buffers except where the caller
/// asks for a large output.
template <typename T>
Status allocateOutput(const std::string &name,
                      const std::vector<int64_t> &shape, T fill,
                      std::vector<T> &buffer) {
  int64_t count = 0;
  if (!shapeElementCount(shape, count) ||
      static_cast<uint64_t>(count) > buffer.max_size())
    return Status::error(name + ": shape " + formatShape(shape) +
                         " is too large");
  buffer.assign(static_cast<size_t>(count), fill);
  return Status::success();
}

} // namespace ejk::reference

#endif // EJK_REFERENCE_TENSOR_H
