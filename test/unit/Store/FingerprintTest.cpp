//===- FingerprintTest.cpp - device fingerprints are stable ---------------===//

#include "TuningTestUtil.h"

#include "gtest/gtest.h"

using namespace ejk;
using namespace ejk::test;

namespace {

TEST(FingerprintTest, HostFingerprintIsStable) {
  DeviceFingerprint a = hostCpuFingerprint(), b = hostCpuFingerprint();
  EXPECT_EQ(a.kind, "cpu");
  EXPECT_EQ(a.text(), b.text());
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.hash().size(), 16u);
  EXPECT_EQ(a.hash().find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_FALSE(a.get("vector_bits").empty());
  EXPECT_FALSE(a.get("cores").empty());
}

TEST(FingerprintTest, TextRoundTripsThroughParse) {
  DeviceFingerprint host = hostCpuFingerprint(), parsed;
  std::string error;
  ASSERT_TRUE(DeviceFingerprint::parse(host.text(), parsed, error)) << error;
  EXPECT_EQ(parsed.text(), host.text());
  EXPECT_EQ(parsed.hash(), host.hash());
}

TEST(FingerprintTest, CommentsAndBlankLinesDoNotChangeTheHash) {
  DeviceFingerprint fp = testFingerprint(), parsed;
  std::string error;
  ASSERT_TRUE(DeviceFingerprint::parse(
      "# hash " + fp.hash() + "\n\n" + fp.text(), parsed, error))
      << error;
  EXPECT_EQ(parsed.hash(), fp.hash());
}

TEST(FingerprintTest, EveryFieldChangesTheHash) {
  DeviceFingerprint fp = testFingerprint();
  for (const auto &[key, value] : testFingerprint().fields) {
    DeviceFingerprint changed = fp;
    changed.fields[key] = value + "x";
    EXPECT_NE(changed.hash(), fp.hash()) << key;
  }
  DeviceFingerprint vulkan = fp;
  vulkan.kind = "vulkan";
  EXPECT_NE(vulkan.hash(), fp.hash());
}

TEST(FingerprintTest, ParseErrorsNameTheLine) {
  DeviceFingerprint fp;
  std::string error;
  EXPECT_FALSE(DeviceFingerprint::parse("kind=cpu\ncores\n", fp, error));
  EXPECT_EQ(error, "fingerprint line 2 is not key=value: 'cores'");
  EXPECT_FALSE(DeviceFingerprint::parse("kind=cpu\na=1\na=2\n", fp, error));
  EXPECT_EQ(error, "fingerprint line 3 repeats key 'a'");
  EXPECT_FALSE(DeviceFingerprint::parse("cores=2\n", fp, error));
  EXPECT_EQ(error, "fingerprint has no kind=cpu or kind=vulkan line");
}

} // namespace
