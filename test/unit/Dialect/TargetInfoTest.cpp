//===- TargetInfoTest.cpp - The ejk.target dictionary --------------------===//

#include "DialectTestUtil.h"

#include "ejk/Dialect/Ejk/TargetInfo.h"

#include "mlir/IR/Builders.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::test;

namespace {

void expectSameTarget(const TargetInfo &a, const TargetInfo &b) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.vectorBits, b.vectorBits);
  EXPECT_EQ(a.numCores, b.numCores);
  EXPECT_EQ(a.l1Bytes, b.l1Bytes);
  EXPECT_EQ(a.l2Bytes, b.l2Bytes);
  EXPECT_EQ(a.subgroupSize, b.subgroupSize);
  EXPECT_EQ(a.sharedMemoryBytes, b.sharedMemoryBytes);
  EXPECT_EQ(a.maxWorkgroupInvocations, b.maxWorkgroupInvocations);
  EXPECT_EQ(a.hasCooperativeMatrix, b.hasCooperativeMatrix);
  // Only a Vulkan target records these.
  if (a.isVulkan()) {
    EXPECT_EQ(a.spirvVersion, b.spirvVersion);
    EXPECT_EQ(a.maxWorkgroupSize, b.maxWorkgroupSize);
    EXPECT_EQ(a.vulkanFeatures, b.vulkanFeatures);
    EXPECT_EQ(a.smCount, b.smCount);
  }
}

/// A target whose every field differs from the defaults.
TargetInfo unusualTarget(TargetInfo::Kind kind) {
  TargetInfo info;
  info.kind = kind;
  info.vectorBits = 512;
  info.numCores = 96;
  info.l1Bytes = 48 * 1024;
  info.l2Bytes = int64_t(2) << 30; // Beyond 32 bits on purpose.
  info.subgroupSize = 64;
  info.sharedMemoryBytes = 100 * 1024;
  info.maxWorkgroupInvocations = 256;
  info.hasCooperativeMatrix = true;
  info.spirvVersion = 15;
  info.maxWorkgroupSize = {256, 128, 32};
  info.smCount = 132;
  std::string unknown;
  (void)info.setVulkanFeatures({"storage16", "float16", "subgroup_shuffle"},
                               unknown);
  return info;
}

class TargetInfoTest : public ::testing::Test {
protected:
  TargetInfoTest() { loadTestDialects(context); }

  /// The encoding of the generic CPU with `name` replaced by `value`, or
  /// removed when `value` is null.
  DictionaryAttr genericCpuWith(StringRef name, Attribute value) {
    NamedAttrList entries(targetInfoToAttr(&context, TargetInfo::genericCpu()));
    if (value)
      entries.set(name, value);
    else
      entries.erase(name);
    return entries.getDictionary(&context);
  }

  MLIRContext context;
  Builder builder{&context};
};

TEST_F(TargetInfoTest, RoundTrip) {
  TargetInfo vulkanCoop = TargetInfo::genericVulkan();
  vulkanCoop.hasCooperativeMatrix = true;
  for (const TargetInfo &info :
       {TargetInfo::genericCpu(), TargetInfo::genericVulkan(), vulkanCoop,
        unusualTarget(TargetInfo::Kind::Cpu),
        unusualTarget(TargetInfo::Kind::Vulkan)}) {
    DictionaryAttr attr = targetInfoToAttr(&context, info);
    FailureOr<TargetInfo> decoded = targetInfoFromAttr(attr);
    ASSERT_TRUE(succeeded(decoded)) << printAttr(attr);
    expectSameTarget(*decoded, info);
    // Encoding is canonical: the decoded target encodes to the same attr.
    EXPECT_EQ(targetInfoToAttr(&context, *decoded), attr);
  }
}

TEST_F(TargetInfoTest, EncodingNamesEveryField) {
  DictionaryAttr attr =
      targetInfoToAttr(&context, unusualTarget(TargetInfo::Kind::Vulkan));
  EXPECT_EQ(attr.getAs<StringAttr>("kind").getValue(), "vulkan");
  EXPECT_EQ(attr.getAs<IntegerAttr>("vector_bits").getInt(), 512);
  EXPECT_EQ(attr.getAs<IntegerAttr>("num_cores").getInt(), 96);
  EXPECT_EQ(attr.getAs<IntegerAttr>("l1_bytes").getInt(), 48 * 1024);
  EXPECT_EQ(attr.getAs<IntegerAttr>("l2_bytes").getInt(), int64_t(2) << 30);
  EXPECT_EQ(attr.getAs<IntegerAttr>("subgroup_size").getInt(), 64);
  EXPECT_EQ(attr.getAs<IntegerAttr>("shared_memory_bytes").getInt(),
            100 * 1024);
  EXPECT_EQ(attr.getAs<IntegerAttr>("max_workgroup_invocations").getInt(), 256);
  EXPECT_TRUE(attr.getAs<BoolAttr>("cooperative_matrix").getValue());
  EXPECT_EQ(attr.getAs<StringAttr>("spirv_version").getValue(), "1.5");
  EXPECT_EQ(attr.getAs<DenseI64ArrayAttr>("max_workgroup_size").asArrayRef(),
            ArrayRef<int64_t>({256, 128, 32}));
  EXPECT_EQ(attr.getAs<ArrayAttr>("vulkan_features").size(), 3u);
  EXPECT_EQ(attr.getAs<IntegerAttr>("sm_count").getInt(), 132);
  EXPECT_EQ(attr.size(), 13u);
  // An unknown SM count (0, the default) is left out.
  EXPECT_FALSE(targetInfoToAttr(&context, TargetInfo::genericVulkan())
                   .contains("sm_count"));
  // A CPU target leaves the Vulkan keys out.
  EXPECT_EQ(
      targetInfoToAttr(&context, unusualTarget(TargetInfo::Kind::Cpu)).size(),
      9u);
  EXPECT_EQ(targetInfoToAttr(&context, TargetInfo::genericCpu())
                .getAs<StringAttr>("kind")
                .getValue(),
            "cpu");
}

TEST_F(TargetInfoTest, RejectsNullAndEmpty) {
  EXPECT_TRUE(failed(targetInfoFromAttr(DictionaryAttr())));
  EXPECT_TRUE(failed(targetInfoFromAttr(DictionaryAttr::get(&context, {}))));
}

TEST_F(TargetInfoTest, RejectsBadKind) {
  EXPECT_TRUE(failed(targetInfoFromAttr(genericCpuWith("kind", nullptr))));
  for (Attribute kind : {Attribute(builder.getStringAttr("tpu")),
                         Attribute(builder.getStringAttr("CPU")),
                         Attribute(builder.getStringAttr("")),
                         Attribute(builder.getI64IntegerAttr(0)),
                         Attribute(builder.getUnitAttr())})
    EXPECT_TRUE(failed(targetInfoFromAttr(genericCpuWith("kind", kind))))
        << printAttr(kind);
}

TEST_F(TargetInfoTest, RejectsMissingOrBadIntegers) {
  for (StringRef name :
       {"vector_bits", "num_cores", "l1_bytes", "l2_bytes", "subgroup_size",
        "shared_memory_bytes", "max_workgroup_invocations"}) {
    EXPECT_TRUE(failed(targetInfoFromAttr(genericCpuWith(name, nullptr))))
        << name.str() << " missing";
    for (Attribute value : {Attribute(builder.getI64IntegerAttr(0)),
                            Attribute(builder.getI64IntegerAttr(-256)),
                            Attribute(builder.getStringAttr("256")),
                            Attribute(builder.getF32FloatAttr(256.0f)),
                            Attribute(builder.getBoolAttr(true))})
      EXPECT_TRUE(failed(targetInfoFromAttr(genericCpuWith(name, value))))
          << name.str() << " = " << printAttr(value);
    // The smallest valid value is accepted, so the checks above fail for the
    // value and not for something else.
    EXPECT_TRUE(succeeded(
        targetInfoFromAttr(genericCpuWith(name, builder.getI64IntegerAttr(1)))))
        << name.str();
  }
}

TEST_F(TargetInfoTest, RejectsMissingOrNonBoolCooperativeMatrix) {
  EXPECT_TRUE(failed(
      targetInfoFromAttr(genericCpuWith("cooperative_matrix", nullptr))));
  for (Attribute value : {Attribute(builder.getI64IntegerAttr(1)),
                          Attribute(builder.getStringAttr("true")),
                          Attribute(builder.getUnitAttr())})
    EXPECT_TRUE(
        failed(targetInfoFromAttr(genericCpuWith("cooperative_matrix", value))))
        << printAttr(value);
  FailureOr<TargetInfo> info = targetInfoFromAttr(
      genericCpuWith("cooperative_matrix", builder.getBoolAttr(true)));
  ASSERT_TRUE(succeeded(info));
  EXPECT_TRUE(info->hasCooperativeMatrix);
}

TEST_F(TargetInfoTest, ModuleTargetReadsTheEnclosingModule) {
  OwningOpRef<ModuleOp> module = parseModule(context, flashAttentionIR({}));
  ASSERT_TRUE(module);
  TargetInfo vulkan = unusualTarget(TargetInfo::Kind::Vulkan);
  (*module)->setAttr(kTargetAttrName, targetInfoToAttr(&context, vulkan));
  DiagnosticCollector diagnostics(&context);
  for (Operation *op :
       {module->getOperation(), flashOps(*module).front().getOperation()}) {
    FailureOr<TargetInfo> info = getModuleTarget(op);
    ASSERT_TRUE(succeeded(info)) << diagnostics.joined();
    expectSameTarget(*info, vulkan);
  }
  EXPECT_TRUE(diagnostics.getMessages().empty());
}

TEST_F(TargetInfoTest, ModuleTargetMissing) {
  OwningOpRef<ModuleOp> module = parseModule(context, flashAttentionIR({}));
  ASSERT_TRUE(module);
  DiagnosticCollector diagnostics(&context);
  EXPECT_TRUE(failed(getModuleTarget(flashOps(*module).front())));
  EXPECT_EQ(diagnostics.getMessages(),
            std::vector<std::string>{"no 'ejk.target' attribute on the "
                                     "module; run ejk-select-configs first"});
}

TEST_F(TargetInfoTest, ModuleTargetMalformed) {
  OwningOpRef<ModuleOp> module = parseModule(context, flashAttentionIR({}));
  ASSERT_TRUE(module);
  (*module)->setAttr(kTargetAttrName,
                     genericCpuWith("kind", builder.getStringAttr("tpu")));
  DiagnosticCollector diagnostics(&context);
  EXPECT_TRUE(failed(getModuleTarget(flashOps(*module).front())));
  ASSERT_EQ(diagnostics.getMessages().size(), 1u);
  EXPECT_TRUE(StringRef(diagnostics.getMessages()[0])
                  .starts_with("malformed 'ejk.target' attribute {"))
      << diagnostics.getMessages()[0];
  EXPECT_NE(diagnostics.getMessages()[0].find("kind = \"tpu\""),
            std::string::npos)
      << diagnostics.getMessages()[0];

  // An attribute of the wrong kind reads as missing.
  (*module)->setAttr(kTargetAttrName, builder.getStringAttr("cpu"));
  DiagnosticCollector again(&context);
  EXPECT_TRUE(failed(getModuleTarget(*module)));
  ASSERT_EQ(again.getMessages().size(), 1u);
  EXPECT_TRUE(StringRef(again.getMessages()[0]).starts_with("no 'ejk.target'"));
}

} // namespace

TEST_F(TargetInfoTest, VulkanKeys) {
  TargetInfo vulkan = TargetInfo::genericVulkan();
  DictionaryAttr generic = targetInfoToAttr(&context, vulkan);
  // Absent Vulkan keys are the generic Vulkan 1.1 device.
  NamedAttrList entries(generic);
  entries.erase("spirv_version");
  entries.erase("max_workgroup_size");
  entries.erase("vulkan_features");
  FailureOr<TargetInfo> decoded =
      targetInfoFromAttr(entries.getDictionary(&context));
  ASSERT_TRUE(succeeded(decoded));
  expectSameTarget(*decoded, vulkan);
  EXPECT_EQ(decoded->spirvVersion, 13u);
  EXPECT_EQ(decoded->vulkanFeatures,
            SmallVector<std::string>({"subgroup_basic"}));

  // Malformed ones are errors, not defaults.
  for (auto [name, value] :
       {std::pair<StringRef, Attribute>{"spirv_version",
                                        builder.getStringAttr("one")},
        {"spirv_version", builder.getStringAttr("2.0")},
        {"spirv_version", builder.getI64IntegerAttr(13)},
        {"max_workgroup_size", builder.getDenseI64ArrayAttr({1, 1})},
        {"max_workgroup_size", builder.getDenseI64ArrayAttr({1, 0, 1})},
        {"vulkan_features", builder.getStrArrayAttr({"warp_drive"})},
        {"vulkan_features", builder.getStringAttr("float16")}}) {
    NamedAttrList bad(generic);
    bad.set(name, value);
    EXPECT_TRUE(failed(targetInfoFromAttr(bad.getDictionary(&context))))
        << name.str();
  }

  std::string unknown;
  EXPECT_TRUE(succeeded(
      vulkan.setVulkanFeatures({"storage16", "float16", "float16"}, unknown)));
  EXPECT_EQ(vulkan.vulkanFeatures,
            SmallVector<std::string>({"float16", "storage16"}));
  EXPECT_TRUE(vulkan.hasVulkanFeature("float16"));
  EXPECT_TRUE(failed(vulkan.setVulkanFeatures({"warp_drive"}, unknown)));
  EXPECT_EQ(unknown, "warp_drive");
}
