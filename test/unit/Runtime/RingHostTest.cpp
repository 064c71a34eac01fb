//===- RingHostTest.cpp - ring attention's host arithmetic ----------------===//
//
// lib/Runtime/Mpi/RingHost.cpp is compiled into this test (its library,
// libejk_runtime_mpi, hides its symbols; the file needs no MPI): the
// f16/bf16 conversions the merge and the result use (F16C where the CPU has
// it) against the scalar ones in ejk/Support/Float16.h, and the merge of a
// 16-bit block against the merge of the same block widened to f32.
//
//===----------------------------------------------------------------------===//

#include "RingHost.h"

#include "ejk/Support/Float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace ejk::ring;

namespace {

std::vector<unsigned char> bytesOf(const std::vector<uint16_t> &bits) {
  std::vector<unsigned char> bytes(bits.size() * 2);
  std::memcpy(bytes.data(), bits.data(), bytes.size());
  return bytes;
}

TEST(RingHostTest, EveryHalfWidensAsTheScalarConversion) {
  // All 65536 patterns, plus 3 so that the last ones take the tail loop.
  std::vector<uint16_t> bits(65536 + 3);
  for (size_t i = 0; i < bits.size(); ++i)
    bits[i] = uint16_t(i);
  std::vector<float> wide(bits.size());
  toFloats(bytesOf(bits).data(), EJK_DTYPE_F16, wide.data(),
           int64_t(bits.size()));
  for (size_t i = 0; i < bits.size(); ++i) {
    float want = ejk::halfToFloat(bits[i]);
    if (std::isnan(want))
      EXPECT_TRUE(std::isnan(wide[i])) << "half 0x" << std::hex << bits[i];
    else
      EXPECT_EQ(wide[i], want) << "half 0x" << std::hex << bits[i];
  }
}

TEST(RingHostTest, FloatsRoundToHalvesAsTheScalarConversion) {
  // Ties (odd and even), subnormals, the overflow edge, infinities, random.
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f + 1.0f / 2048,
                               1.0f + 3.0f / 2048,
                               5.9604645e-8f,
                               2.9802322e-8f,
                               8.940697e-8f,
                               6.1035156e-5f,
                               65504.0f,
                               65519.0f,
                               65520.0f,
                               1e9f,
                               -1e9f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity()};
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 100.0f);
  for (int i = 0; i < 4099; ++i)
    values.push_back(normal(rng));
  for (ejk_dtype dtype : {EJK_DTYPE_F16, EJK_DTYPE_BF16}) {
    std::vector<unsigned char> narrow(values.size() * 2);
    fromFloats(values.data(), dtype, narrow.data(), int64_t(values.size()));
    for (size_t i = 0; i < values.size(); ++i) {
      uint16_t got;
      std::memcpy(&got, narrow.data() + 2 * i, 2);
      uint16_t want = dtype == EJK_DTYPE_F16 ? ejk::floatToHalf(values[i])
                                             : ejk::floatToBFloat16(values[i]);
      EXPECT_EQ(got, want) << "value " << values[i] << " dtype " << dtype;
    }
  }
}

TEST(RingHostTest, HalfBlockMergesAsItsF32Widening) {
  // Batch 2, 6 rows, 3 heads, 20 values a row: a block of rows [2, 6)
  // merged into a running result, once as f16 and once widened to f32.
  const int64_t batch = 2, seq = 6, heads = 3, dv = 20, begin = 2, rows = 4;
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  std::vector<float> accO(size_t(batch * seq * heads * dv)),
      accL(size_t(batch * heads * seq));
  for (float &x : accO)
    x = normal(rng);
  for (float &x : accL)
    x = normal(rng);
  accL[1] = -std::numeric_limits<float>::infinity(); // An empty row so far.
  std::vector<uint16_t> half(size_t(batch * rows * heads * dv));
  std::vector<float> wide(half.size()), partL(size_t(batch * heads * rows));
  for (size_t i = 0; i < half.size(); ++i) {
    half[i] = ejk::floatToHalf(normal(rng));
    wide[i] = ejk::halfToFloat(half[i]);
  }
  for (float &x : partL)
    x = normal(rng);
  partL[2] = -std::numeric_limits<float>::infinity(); // An empty block row.
  std::vector<float> o16 = accO, l16 = accL, o32 = accO, l32 = accL;
  std::vector<unsigned char> halfBytes = bytesOf(half);
  mergeBlock(o16, l16, halfBytes.data(), partL.data(),
             {batch, seq, heads, dv, EJK_DTYPE_F16, 3}, begin, rows);
  mergeBlock(o32, l32, reinterpret_cast<const unsigned char *>(wide.data()),
             partL.data(), {batch, seq, heads, dv, EJK_DTYPE_F32, 2}, begin,
             rows);
  EXPECT_EQ(o16, o32);
  EXPECT_EQ(l16, l32);
  // The rows outside the block are untouched, the block's rows changed.
  EXPECT_EQ(o16[0], accO[0]);
  EXPECT_NE(o16[size_t((begin * heads) * dv)],
            accO[size_t((begin * heads) * dv)]);
}

} // namespace
