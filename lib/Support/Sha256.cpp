//===- Sha256.cpp - SHA-256 through OpenSSL's libcrypto -------------------===//
//
// The cache's integrity rests on this digest, so it comes from a library
// that is reviewed, tested and tuned (SHA-NI, AVX2) rather than from code of
// our own. libcrypto does not link LLVM, so the MLIR-free front may use it.
//
//===----------------------------------------------------------------------===//

#include "ejk/Support/Sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

using namespace ejk;

namespace {
/// libcrypto fails only when memory runs out; a digest that silently
/// differed would turn every cache lookup into a miss or, worse, a match on
/// garbage, so that is fatal, like a failed allocation.
void check(int ok) {
  if (ok != 1)
    std::abort();
}
} // namespace

Sha256::Sha256() : context_(EVP_MD_CTX_new()) {
  if (!context_)
    std::abort();
  check(EVP_DigestInit_ex(static_cast<EVP_MD_CTX *>(context_), EVP_sha256(),
                          nullptr));
}

Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX *>(context_)); }

void Sha256::update(const void *data, size_t size) {
  if (size != 0)
    check(EVP_DigestUpdate(static_cast<EVP_MD_CTX *>(context_), data, size));
}

Sha256::Digest Sha256::final() {
  Digest digest;
  unsigned int length = 0;
  check(EVP_DigestFinal_ex(static_cast<EVP_MD_CTX *>(context_), digest.data(),
                           &length));
  if (length != digest.size())
    std::abort();
  return digest;
}

std::string Sha256::hex(const Digest &digest) {
  static const char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(2 * digest.size());
  for (uint8_t byte : digest) {
    text += kHex[byte >> 4];
    text += kHex[byte & 15];
  }
  return text;
}

std::string ejk::sha256Hex(const void *data, size_t size) {
  Sha256 hasher;
  hasher.update(data, size);
  return Sha256::hex(hasher.final());
}
