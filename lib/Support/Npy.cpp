//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//
//
// The format (numpy.lib.format): the magic "\x93NUMPY", a major and minor
// version byte, the header length (uint16 in 1.0, uint32 in 2.0 and 3.0,
// little-endian), then a Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// padded with spaces and ending in '\n', then the raw data.
//
//===----------------------------------------------------------------------===//

#include "ejk/Support/Npy.h"

#include "ejk/Support/FileIO.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <new>

// The data is copied as is, so the host must share the files' byte order.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "Npy.cpp assumes a little-endian host");

namespace ejk {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
/// numpy aligns the data to this many bytes from the start of the file.
constexpr size_t kHeaderAlignment = 64;

struct DtypeInfo {
  const char *name;
  /// The type code without its byte-order mark.
  const char *code;
  size_t size;
};

constexpr DtypeInfo kDtypes[] = {
    {"f32", "f4", 4}, {"f16", "f2", 2},  {"f64", "f8", 8},
    {"i32", "i4", 4}, {"i64", "i8", 8},  {"i8", "i1", 1},
    {"u8", "u1", 1},  {"bool", "b1", 1}, {"u16", "u2", 2},
};

const DtypeInfo *findDtype(const std::string &name) {
  for (const DtypeInfo &info : kDtypes)
    if (name == info.name)
      return &info;
  return nullptr;
}

std::string supportedDescrs() {
  std::string text;
  for (const DtypeInfo &info : kDtypes) {
    if (!text.empty())
      text += ", ";
    text += std::string(info.size == 1 ? "|" : "<") + info.code;
  }
  return text;
}

/// Maps a descr such as '<f4' to an NpyArray dtype.
bool parseDescr(const std::string &descr, std::string &dtype,
                std::string &error) {
  if (descr.size() < 2) {
    error = "unsupported dtype '" + descr + "'";
    return false;
  }
  char order = descr[0];
  std::string code = descr.substr(1);
  const DtypeInfo *found = nullptr;
  for (const DtypeInfo &info : kDtypes)
    if (code == info.code)
      found = &info;
  if (!found ||
      (order != '<' && order != '>' && order != '|' && order != '=')) {
    error = "unsupported dtype '" + descr +
            "' (supported: " + supportedDescrs() + ")";
    return false;
  }
  // '=' is native order, little-endian on every host this builds for; '|'
  // (not applicable) is what numpy writes for one-byte types.
  if (order == '>' && found->size > 1) {
    error = "big-endian data ('" + descr +
            "') is not supported; convert it with "
            "arr.astype(arr.dtype.newbyteorder('<'))";
    return false;
  }
  if (order == '|' && found->size > 1) {
    error = "dtype '" + descr + "' lacks a byte order";
    return false;
  }
  dtype = found->name;
  return true;
}

/// What a header says.
struct Header {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  bool hasDescr = false, hasFortranOrder = false, hasShape = false;
};

/// A recursive-descent reader for the header's dict literal. It accepts the
/// subset numpy writes: string keys; string, True/False and integer-tuple
/// values.
class HeaderParser {
public:
  explicit HeaderParser(const std::string &text) : text_(text) {}

  bool parse(Header &header, std::string &error) {
    skipSpace();
    if (!consume('{'))
      return fail("expected '{'", error);
    for (;;) {
      skipSpace();
      if (consume('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail("expected a quoted key", error);
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after '" + key + "'", error);
      skipSpace();
      if (key == "descr") {
        if (peek() == '[')
          return fail("structured dtypes are not supported", error);
        if (!parseString(header.descr))
          return fail("'descr' must be a string", error);
        header.hasDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(header.fortranOrder))
          return fail("'fortran_order' must be True or False", error);
        header.hasFortranOrder = true;
      } else if (key == "shape") {
        if (!parseShape(header.shape))
          return fail("'shape' must be a tuple of non-negative integers "
                      "below 2^63",
                      error);
        header.hasShape = true;
      } else {
        return fail("unexpected key '" + key + "'", error);
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail("expected ',' or '}'", error);
    }
    skipSpace();
    if (pos_ != text_.size())
      return fail("unexpected text after the dict", error);
    if (!header.hasDescr || !header.hasFortranOrder || !header.hasShape)
      return fail("the header must have 'descr', 'fortran_order' and 'shape'",
                  error);
    return true;
  }

private:
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool consume(char c) {
    if (peek() != c)
      return false;
    ++pos_;
    return true;
  }
  bool consumeWord(const char *word) {
    size_t length = std::strlen(word);
    if (text_.compare(pos_, length, word) != 0)
      return false;
    pos_ += length;
    return true;
  }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool fail(const std::string &message, std::string &error) const {
    error =
        "malformed header at offset " + std::to_string(pos_) + ": " + message;
    return false;
  }

  bool parseString(std::string &out) {
    char quote = peek();
    if (quote != '\'' && quote != '"')
      return false;
    ++pos_;
    size_t end = text_.find(quote, pos_);
    if (end == std::string::npos)
      return false;
    out = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return true;
  }

  bool parseBool(bool &out) {
    if (consumeWord("True")) {
      out = true;
      return true;
    }
    if (consumeWord("False")) {
      out = false;
      return true;
    }
    return false;
  }

  /// A decimal integer within int64. The bound is checked before each
  /// step, so no extent, however long, wraps around.
  bool parseInt(int64_t &out) {
    size_t start = pos_;
    constexpr uint64_t kMax = uint64_t(std::numeric_limits<int64_t>::max());
    uint64_t value = 0;
    while (peek() >= '0' && peek() <= '9') {
      uint64_t digit = uint64_t(peek() - '0');
      if (value > (kMax - digit) / 10)
        return false;
      value = value * 10 + digit;
      ++pos_;
    }
    if (pos_ == start)
      return false;
    // Python 2 wrote longs with a suffix: (3L, 4L).
    consume('L');
    out = int64_t(value);
    return true;
  }

  bool parseShape(std::vector<int64_t> &shape) {
    shape.clear();
    if (!consume('('))
      return false;
    for (;;) {
      skipSpace();
      if (consume(')'))
        return true;
      int64_t extent = 0;
      if (!parseInt(extent))
        return false;
      shape.push_back(extent);
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      return consume(')');
    }
  }

  const std::string &text_;
  size_t pos_ = 0;
};

/// Multiplies \p shape by \p elementSize into \p bytes; false on overflow or
/// a negative extent.
bool byteSize(const std::vector<int64_t> &shape, size_t elementSize,
              uint64_t &bytes) {
  bytes = elementSize;
  for (int64_t extent : shape) {
    if (extent < 0)
      return false;
    if (extent != 0 && bytes > uint64_t(std::numeric_limits<int64_t>::max()) /
                                   uint64_t(extent))
      return false;
    bytes *= uint64_t(extent);
  }
  return true;
}

std::string quotePath(const std::string &path) { return "'" + path + "'"; }

/// Validates \p array and builds everything of its file before the data.
bool serializeHeader(const NpyArray &array, std::string &bytes,
                     std::string &error) {
  const DtypeInfo *info = findDtype(array.dtype);
  if (!info) {
    error = "unknown dtype '" + array.dtype +
            "' (expected f32, f16, f64, i32, i64, i8, u8, bool or u16)";
    return false;
  }
  uint64_t expected = 0;
  if (!byteSize(array.shape, info->size, expected)) {
    error = "invalid shape (a negative extent or an overflowing size)";
    return false;
  }
  if (expected != array.data.size()) {
    error = "the shape needs " + std::to_string(expected) +
            " bytes of data, the array holds " +
            std::to_string(array.data.size());
    return false;
  }

  std::string dict = std::string("{'descr': '") +
                     (info->size == 1 ? "|" : "<") + info->code +
                     "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < array.shape.size(); ++i) {
    if (i != 0)
      dict += ", ";
    dict += std::to_string(array.shape[i]);
  }
  // A 1-tuple needs its trailing comma in Python.
  dict += array.shape.size() == 1 ? ",), }" : "), }";

  // Version 1.0 has a 16-bit header length; larger headers need 2.0.
  size_t prefix = kMagicSize + 2 + 2;
  size_t padded = (prefix + dict.size() + 1 + kHeaderAlignment - 1) /
                  kHeaderAlignment * kHeaderAlignment;
  bool version2 = padded - prefix > 0xffff;
  if (version2) {
    prefix = kMagicSize + 2 + 4;
    padded = (prefix + dict.size() + 1 + kHeaderAlignment - 1) /
             kHeaderAlignment * kHeaderAlignment;
  }
  size_t headerLength = padded - prefix;
  dict.append(headerLength - dict.size() - 1, ' ');
  dict += '\n';

  bytes.clear();
  bytes.append(kMagic, kMagicSize);
  bytes += char(version2 ? 2 : 1);
  bytes += char(0);
  for (size_t i = 0; i < (version2 ? 4u : 2u); ++i)
    bytes += char((headerLength >> (8 * i)) & 0xff);
  bytes += dict;
  return true;
}

} // namespace

int64_t NpyArray::numElements() const {
  uint64_t count = 0;
  if (!byteSize(shape, 1, count))
    return -1;
  return int64_t(count);
}

size_t npyDtypeSize(const std::string &dtype) {
  const DtypeInfo *info = findDtype(dtype);
  return info ? info->size : 0;
}

/// Reads exactly \p size bytes at the current offset of \p fd.
static bool readExactly(int fd, void *data, size_t size) {
  char *bytes = static_cast<char *>(data);
  while (size > 0) {
    ssize_t n = ::read(fd, bytes, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    bytes += n;
    size -= size_t(n);
  }
  return true;
}

bool readNpy(const std::string &path, NpyArray &out, std::string &error) {
  out = NpyArray();
  // A FIFO or a device is refused at once (openRegularFile never blocks);
  // the size is bounded by the file's, checked below.
  struct stat info;
  ReadOptions options;
  options.maxBytes = std::numeric_limits<uint64_t>::max();
  int fd = openRegularFile(path, options, info, error);
  if (fd < 0)
    return false;
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::string where = quotePath(path) + ": ";
  uint64_t fileSize = uint64_t(info.st_size);

  unsigned char prefix[kMagicSize + 2];
  if (!readExactly(fd, prefix, sizeof(prefix)) ||
      std::memcmp(prefix, kMagic, kMagicSize) != 0) {
    error = where + "not a .npy file (bad magic)";
    return false;
  }
  unsigned major = prefix[kMagicSize], minor = prefix[kMagicSize + 1];
  if (major < 1 || major > 3 || minor != 0) {
    error = where + "unsupported .npy format version " + std::to_string(major) +
            "." + std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)";
    return false;
  }
  size_t lengthBytes = major == 1 ? 2 : 4;
  unsigned char lengthData[4] = {0, 0, 0, 0};
  if (!readExactly(fd, lengthData, lengthBytes)) {
    error = where + "truncated header";
    return false;
  }
  uint64_t headerLength = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    headerLength |= uint64_t(lengthData[i]) << (8 * i);

  // Bound the header by the file size before allocating it: a corrupt length
  // must not turn into a 4 GiB allocation.
  uint64_t dataOffset = kMagicSize + 2 + lengthBytes + headerLength;
  if (dataOffset > fileSize) {
    error = where + "truncated header (" + std::to_string(headerLength) +
            " bytes declared, file has " + std::to_string(fileSize) + " bytes)";
    return false;
  }
  std::string headerText(size_t(headerLength), '\0');
  if (!readExactly(fd, &headerText[0], headerText.size())) {
    error = where + "truncated header";
    return false;
  }

  Header header;
  std::string headerError;
  if (!HeaderParser(headerText).parse(header, headerError)) {
    error = where + headerError;
    return false;
  }
  std::string dtype;
  if (!parseDescr(header.descr, dtype, headerError)) {
    error = where + headerError;
    return false;
  }
  if (header.fortranOrder) {
    error = where + "fortran_order=True arrays are not supported; save "
                    "np.ascontiguousarray(arr) instead";
    return false;
  }
  uint64_t dataSize = 0;
  if (!byteSize(header.shape, npyDtypeSize(dtype), dataSize)) {
    error = where + "the shape's byte size overflows";
    return false;
  }
  uint64_t available = fileSize - dataOffset;
  if (available != dataSize) {
    error = where + (available < dataSize ? "truncated data: " : "") +
            "the shape needs " + std::to_string(dataSize) +
            " bytes of data, the file has " + std::to_string(available);
    return false;
  }

  // The size matches the file's, which exists: only memory can run out.
  try {
    out.data.resize(size_t(dataSize));
  } catch (const std::bad_alloc &) {
    out = NpyArray();
    error = where + "out of memory for " + std::to_string(dataSize) +
            " bytes of data";
    return false;
  }
  out.dtype = dtype;
  out.shape = header.shape;
  if (dataSize != 0 && !readExactly(fd, out.data.data(), out.data.size())) {
    out = NpyArray();
    error = where + "read error in the data";
    return false;
  }
  return true;
}

bool writeNpy(const std::string &path, const NpyArray &array,
              std::string &error) {
  std::string where = quotePath(path) + ": ";
  std::string header;
  std::string serializeError;
  if (!serializeHeader(array, header, serializeError)) {
    error = where + serializeError;
    return false;
  }

  // A regular file is replaced atomically; /dev/null or a FIFO is written
  // through, never replaced by a file.
  std::string why;
  if (!writeFileReplacing(path,
                          {ByteRange{header.data(), header.size()},
                           ByteRange{array.data.data(), array.data.size()}},
                          why)) {
    error = why;
    return false;
  }
  return true;
}

} // namespace ejk
