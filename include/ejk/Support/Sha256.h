//===- Sha256.h - SHA-256 without LLVM --------------------------*- C++ -*-===//
//
// SHA-256 (FIPS 180-4) for the MLIR-free side: `ejk-run`'s front verifies
// cached artifacts with it before loading them, and its source-level cache
// key is a SHA-256. LLVM's hashes are not available there (linking libLLVM
// is the cost the front exists to avoid); OpenSSL's libcrypto computes it
// (target EJKSha256, so that the runtime library does not depend on it).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SUPPORT_SHA256_H
#define EJK_SUPPORT_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ejk {

/// Incremental SHA-256: update() any number of times, then final() once.
class Sha256 {
public:
  using Digest = std::array<uint8_t, 32>;

  Sha256();
  ~Sha256();
  Sha256(const Sha256 &) = delete;
  Sha256 &operator=(const Sha256 &) = delete;
  void update(const void *data, size_t size);
  void update(const std::string &text) { update(text.data(), text.size()); }
  /// The digest of everything updated so far; the object is spent after.
  Digest final();

  /// 64 lowercase hex digits of `digest`.
  static std::string hex(const Digest &digest);

private:
  /// libcrypto's EVP_MD_CTX, kept out of this header.
  void *context_;
};

/// The hex SHA-256 of `size` bytes at `data`.
std::string sha256Hex(const void *data, size_t size);
inline std::string sha256Hex(const std::string &text) {
  return sha256Hex(text.data(), text.size());
}

} // namespace ejk

#endif // EJK_SUPPORT_SHA256_H
