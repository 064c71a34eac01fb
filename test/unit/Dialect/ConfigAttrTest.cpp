//===- ConfigAttrTest.cpp - #ejk.config construction and text form -------===//

#include "DialectTestUtil.h"

#include "ejk/Dialect/Ejk/EjkAttrs.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ejk;
using namespace mlir::ejk::test;

namespace {

class ConfigAttrTest : public ::testing::Test {
protected:
  ConfigAttrTest() { loadTestDialects(context); }

  /// The entry names of `config`, in storage order.
  static std::vector<std::string> names(ConfigAttr config) {
    std::vector<std::string> result;
    for (NamedAttribute entry : config.getEntries())
      result.push_back(entry.getName().str());
    return result;
  }

  ConfigAttr emptyConfig() {
    return ConfigAttr::get(&context, ArrayRef<std::pair<StringRef, int64_t>>());
  }

  /// getChecked on a raw dictionary, as a C++ caller would build it.
  ConfigAttr getChecked(ArrayRef<NamedAttribute> entries) {
    return ConfigAttr::getChecked(
        [&] { return emitError(UnknownLoc::get(&context)); }, &context,
        DictionaryAttr::get(&context, entries));
  }

  MLIRContext context;
  Builder builder{&context};
};

TEST_F(ConfigAttrTest, GetSortsEntriesByName) {
  ConfigAttr config = ConfigAttr::get(
      &context, {{"num_subgroups", 2}, {"block_q", 16}, {"block_k", 64}});
  EXPECT_EQ(names(config),
            (std::vector<std::string>{"block_k", "block_q", "num_subgroups"}));
  for (NamedAttribute entry : config.getEntries())
    EXPECT_TRUE(cast<IntegerAttr>(entry.getValue()).getType().isInteger(64));
}

TEST_F(ConfigAttrTest, EqualEntriesGiveTheSameAttribute) {
  ConfigAttr a = ConfigAttr::get(&context, {{"block_q", 16}, {"block_k", 64}});
  ConfigAttr b = ConfigAttr::get(&context, {{"block_k", 64}, {"block_q", 16}});
  ConfigAttr c = ConfigAttr::get(&context, {{"block_q", 16}, {"block_k", 32}});
  ConfigAttr d = ConfigAttr::get(&context, {{"block_q", 16}});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.getAsOpaquePointer(), b.getAsOpaquePointer());
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
  EXPECT_EQ(emptyConfig(), emptyConfig());
}

TEST_F(ConfigAttrTest, Lookup) {
  ConfigAttr config =
      ConfigAttr::get(&context, {{"block_q", 16}, {"block_k", 64}});
  EXPECT_EQ(config.lookup("block_q"), std::optional<int64_t>(16));
  EXPECT_EQ(config.lookup("block_k"), std::optional<int64_t>(64));
  EXPECT_EQ(config.lookup("num_subgroups"), std::nullopt);
  EXPECT_EQ(config.lookup(""), std::nullopt);
  EXPECT_EQ(config.lookupOr("block_q", 7), 16);
  EXPECT_EQ(config.lookupOr("num_subgroups", 7), 7);
  EXPECT_EQ(emptyConfig().lookup("block_q"), std::nullopt);
}

TEST_F(ConfigAttrTest, WithReplacesOrAddsAndKeepsTheOriginal) {
  ConfigAttr config =
      ConfigAttr::get(&context, {{"block_q", 16}, {"block_k", 64}});

  ConfigAttr replaced = config.with("block_k", 32);
  EXPECT_EQ(replaced,
            ConfigAttr::get(&context, {{"block_q", 16}, {"block_k", 32}}));
  EXPECT_EQ(config.lookup("block_k"), std::optional<int64_t>(64));

  ConfigAttr added = config.with("num_subgroups", 4);
  EXPECT_EQ(names(added),
            (std::vector<std::string>{"block_k", "block_q", "num_subgroups"}));
  EXPECT_EQ(added.lookup("num_subgroups"), std::optional<int64_t>(4));
  EXPECT_EQ(added.lookup("block_q"), std::optional<int64_t>(16));

  // Setting a value it already has gives back the same attribute.
  EXPECT_EQ(config.with("block_q", 16), config);
  EXPECT_EQ(emptyConfig().with("block_q", 8),
            ConfigAttr::get(&context, {{"block_q", 8}}));
}

TEST_F(ConfigAttrTest, GetCheckedAcceptsPositiveI64) {
  DiagnosticCollector diagnostics(&context);
  ConfigAttr config = getChecked(
      {builder.getNamedAttr("block_q", builder.getI64IntegerAttr(1)),
       builder.getNamedAttr("block_k", builder.getI64IntegerAttr(1 << 20))});
  ASSERT_TRUE(config) << diagnostics.joined();
  EXPECT_TRUE(diagnostics.getMessages().empty());
  EXPECT_EQ(config,
            ConfigAttr::get(&context, {{"block_q", 1}, {"block_k", 1 << 20}}));
}

TEST_F(ConfigAttrTest, GetCheckedRejectsNonI64) {
  // Integers of another width, floats and strings are all rejected with the
  // same message; the parser cannot build them, so only C++ reaches it.
  std::vector<Attribute> values = {
      builder.getI32IntegerAttr(4), builder.getIndexAttr(4),
      builder.getF32FloatAttr(4.0f), builder.getStringAttr("4"),
      builder.getBoolAttr(true)};
  for (Attribute value : values) {
    DiagnosticCollector diagnostics(&context);
    ConfigAttr config = getChecked({builder.getNamedAttr("x", value)});
    EXPECT_FALSE(config) << printAttr(value);
    EXPECT_EQ(diagnostics.getMessages(),
              std::vector<std::string>{
                  "#ejk.config entry 'x' must be a 64-bit integer"})
        << printAttr(value);
  }
}

TEST_F(ConfigAttrTest, GetCheckedRejectsNonPositive) {
  for (int64_t value : {int64_t(0), int64_t(-1), INT64_MIN}) {
    DiagnosticCollector diagnostics(&context);
    ConfigAttr config = getChecked(
        {builder.getNamedAttr("block_k", builder.getI64IntegerAttr(64)),
         builder.getNamedAttr("block_q", builder.getI64IntegerAttr(value))});
    EXPECT_FALSE(config) << value;
    EXPECT_EQ(diagnostics.getMessages(),
              std::vector<std::string>{
                  "#ejk.config entry 'block_q' must be positive, got " +
                  std::to_string(value)});
  }
}

TEST_F(ConfigAttrTest, ParsePrintRoundTrip) {
  DiagnosticCollector diagnostics(&context);
  Attribute parsed =
      parseAttribute("#ejk.config<block_q = 16, block_k = 64>", &context);
  ASSERT_TRUE(parsed) << diagnostics.joined();
  auto config = dyn_cast<ConfigAttr>(parsed);
  ASSERT_TRUE(config);
  EXPECT_EQ(config,
            ConfigAttr::get(&context, {{"block_q", 16}, {"block_k", 64}}));

  // Printed sorted, and the printed text parses back to the same attribute.
  std::string text = printAttr(config);
  EXPECT_EQ(text, "#ejk.config<block_k = 64, block_q = 16>");
  EXPECT_EQ(parseAttribute(text, &context), config);

  for (StringRef source :
       {"#ejk.config<>", "#ejk.config<chunk_size = 9223372036854775807>",
        "#ejk.config<num_subgroups = 1, block_q = 128, block_k = 32>"}) {
    Attribute attr = parseAttribute(source, &context);
    ASSERT_TRUE(isa_and_nonnull<ConfigAttr>(attr)) << source.str() << "\n"
                                                   << diagnostics.joined();
    EXPECT_EQ(parseAttribute(printAttr(attr), &context), attr)
        << printAttr(attr);
  }
  EXPECT_TRUE(diagnostics.getMessages().empty()) << diagnostics.joined();
}

TEST_F(ConfigAttrTest, ParseRejectsBadEntries) {
  struct Case {
    StringRef source;
    std::string message;
  };
  for (const Case &c : std::vector<Case>{
           {"#ejk.config<block_q = 0>",
            "#ejk.config entry 'block_q' must be positive, got 0"},
           {"#ejk.config<block_q = 16, block_q = 32>",
            "duplicate #ejk.config entry 'block_q'"},
       }) {
    DiagnosticCollector diagnostics(&context);
    EXPECT_FALSE(parseAttribute(c.source, &context)) << c.source.str();
    ASSERT_FALSE(diagnostics.getMessages().empty()) << c.source.str();
    EXPECT_EQ(diagnostics.getMessages().front(), c.message);
  }
}

} // namespace
