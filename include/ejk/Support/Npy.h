//===- Npy.h - Reading and writing NumPy .npy files -------------*- C++ -*-===//
//
// The tools exchange tensors with Python through .npy files. This is a small
// MLIR-free reader and writer for the plain, C-ordered, little-endian arrays
// ejk uses. Files are read and written through ejk/Support/FileIO.h: a
// FIFO or a device is refused on read, written through (never replaced) on
// write, and a regular file is replaced atomically.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SUPPORT_NPY_H
#define EJK_SUPPORT_NPY_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ejk {

/// A C-ordered array as stored in a .npy file.
struct NpyArray {
  /// One of "f32", "f16", "f64", "i32", "i64", "i8", "u8", "bool", "u16".
  /// f16 elements are raw IEEE binary16 bits (see ejk/Support/Float16.h);
  /// bool elements are bytes 0 or 1.
  std::string dtype;
  /// Extents, outermost first; empty for a 0-d (scalar) array.
  std::vector<int64_t> shape;
  /// numElements() * npyDtypeSize(dtype) bytes, little-endian, row-major.
  std::vector<uint8_t> data;

  /// The product of the extents (1 for a scalar); -1 if an extent is
  /// negative or the product overflows int64.
  int64_t numElements() const;
};

/// Bytes per element of NpyArray::dtype \p dtype; 0 when it is not one.
size_t npyDtypeSize(const std::string &dtype);

/// Reads \p path (format versions 1.0, 2.0 and 3.0) into \p out. On failure
/// returns false with a message naming the file and the problem: an
/// unsupported dtype, big-endian data, fortran_order=True, a malformed
/// header, or data that does not match the shape.
bool readNpy(const std::string &path, NpyArray &out, std::string &error);

/// Writes \p array to \p path as format version 1.0 (2.0 only when the
/// header needs more than 64 KiB) with writeFileReplacing
/// (ejk/Support/FileIO.h): a regular file is replaced atomically, a FIFO
/// or character device (/dev/null) written through; on failure \p path is
/// left as it was and no temp file remains.
bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error);

} // namespace ejk

#endif // EJK_SUPPORT_NPY_H
