//===- Sha256Test.cpp - SHA-256 against known answers ---------------------===//

#include "ejk/Support/Sha256.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace ejk;

namespace {

// FIPS 180-2 appendix B and the NIST example values.
TEST(Sha256Test, StandardVectors) {
  EXPECT_EQ(sha256Hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(
      sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(
      sha256Hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
                "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

std::string pattern(size_t n) {
  std::string bytes(n, '\0');
  for (size_t i = 0; i < n; ++i)
    bytes[i] = char((i * 7 + 3) & 255);
  return bytes;
}

// Lengths around the padding boundaries (55/56 bytes: the length still fits
// in the last block or needs another; 64: a whole block), checked against
// Python's hashlib.
TEST(Sha256Test, PaddingBoundaries) {
  const std::pair<size_t, const char *> cases[] = {
      {55, "e7313d333c272e639f790978283f9eb392e843d0f29b7016828bb1daa4aac70b"},
      {56, "4324d65f3c103567f5589c710bc08f8523f929a9272e3af36fc968e52abc6c27"},
      {63, "81c80242132f230c3bd41b3e63bbcff16107339549214a99614ff26664625055"},
      {64, "39e3d7b6b5d075d37d053ad89b24b41bef4f3c29760c84447cab3f3be1882241"},
      {65, "aacca6ff74fdbb296d165a45cecfa04e5127bc008770fbbdd48006f2d2fae95e"},
      {119, "9ce7368e4daf32341631b492e80359dc9f594b48453cd0dd5bf0b19279cc177e"},
      {120, "7836b787757e95e58b3ca5aec90b1b004e8deba1e50e9675af9cabf1a13a04b5"},
  };
  for (auto [length, expected] : cases)
    EXPECT_EQ(sha256Hex(pattern(length)), expected) << length << " bytes";
}

// Feeding the same bytes in pieces of any size gives the one-shot digest.
TEST(Sha256Test, IncrementalMatchesOneShot) {
  std::string bytes = pattern(300);
  for (size_t length : {0, 1, 63, 64, 65, 127, 128, 129, 300})
    for (size_t piece : {1, 3, 63, 64, 65, 200}) {
      Sha256 hasher;
      for (size_t at = 0; at < length; at += piece)
        hasher.update(bytes.data() + at, std::min(piece, length - at));
      EXPECT_EQ(Sha256::hex(hasher.final()), sha256Hex(bytes.data(), length))
          << length << " bytes in pieces of " << piece;
    }
}

} // namespace
