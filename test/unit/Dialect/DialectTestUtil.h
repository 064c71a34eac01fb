//===- DialectTestUtil.h - Helpers for the ejk dialect tests ----*- C++ -*-===//
//
// A context with the dialects the tests parse, a diagnostic collector, and a
// generator for flash_attention test IR, shared by the dialect's unit tests.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_TEST_UNIT_DIALECT_DIALECTTESTUTIL_H
#define EJK_TEST_UNIT_DIALECT_DIALECTTESTUTIL_H

#include "ejk/Dialect/Ejk/EjkOps.h"
#include "ejk/Ops/Registry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::ejk::test {

/// Loads the dialects the tests' IR uses, with every op family's models.
inline void loadTestDialects(MLIRContext &context) {
  DialectRegistry registry;
  registry.insert<EjkDialect, func::FuncDialect>();
  registerAllOpFamilies(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

/// The text form of `attr`, e.g. "#ejk.config<block_q = 16>".
inline std::string printAttr(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

/// Collects the diagnostics emitted in a context while it is alive, instead
/// of printing them.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diag) {
          messages.push_back(diag.str());
          return success();
        }) {}

  /// The messages so far, oldest first.
  const std::vector<std::string> &getMessages() const { return messages; }

  /// All messages, one per line, for failure output.
  std::string joined() const { return llvm::join(messages, "\n"); }

private:
  std::vector<std::string> messages;
  ScopedDiagnosticHandler handler;
};

/// The parts of an `ejk.flash_attention` that the tests vary. The defaults
/// are a GQA 8:2 f16 problem with no options.
struct FlashSpec {
  int64_t batch = 2;
  int64_t seqQ = 64;
  int64_t seqK = 128;
  int64_t numHeads = 8;
  int64_t numKvHeads = 2;
  int64_t headDim = 64;
  int64_t valueDim = 64;
  std::string elementType = "f16";
  bool causal = false;
  std::optional<std::pair<int64_t, int64_t>> slidingWindow;
  /// The attribute text, e.g. "30.0".
  std::optional<std::string> logitsSoftCap;
  std::optional<std::string> softmaxScale;
  /// [batch | 1, num_heads | 1] of the bias; absent: no bias.
  std::optional<std::pair<int64_t, int64_t>> biasBroadcast;
  bool mask = false;
  bool segmentIds = false;
  std::optional<int64_t> dropoutSeed;
  bool lse = false;
  /// e.g. "#ejk.config<block_q = 16, block_k = 64>"; empty: none.
  std::string config;
};

inline std::string tensorType(ArrayRef<int64_t> shape, StringRef element) {
  std::string text = "tensor<";
  for (int64_t extent : shape)
    text += std::to_string(extent) + "x";
  return text + element.str() + ">";
}

/// A module with one function holding the flash_attention `spec` describes.
inline std::string flashAttentionIR(const FlashSpec &spec) {
  std::string q = tensorType(
      {spec.batch, spec.seqQ, spec.numHeads, spec.headDim}, spec.elementType);
  std::string k = tensorType(
      {spec.batch, spec.seqK, spec.numKvHeads, spec.headDim}, spec.elementType);
  std::string v =
      tensorType({spec.batch, spec.seqK, spec.numKvHeads, spec.valueDim},
                 spec.elementType);
  std::string out = tensorType(
      {spec.batch, spec.seqQ, spec.numHeads, spec.valueDim}, spec.elementType);
  std::string args = "%q: " + q + ", %k: " + k + ", %v: " + v;
  std::string operands = "%q, %k, %v";
  if (spec.biasBroadcast) {
    std::string bias =
        tensorType({spec.biasBroadcast->first, spec.biasBroadcast->second,
                    spec.seqQ, spec.seqK},
                   "f32");
    args += ", %bias: " + bias;
    operands += " bias(%bias : " + bias + ")";
  }
  if (spec.mask) {
    std::string mask = tensorType({1, 1, spec.seqQ, spec.seqK}, "i1");
    args += ", %mask: " + mask;
    operands += " mask(%mask : " + mask + ")";
  }
  if (spec.segmentIds) {
    std::string qs = tensorType({spec.batch, spec.seqQ}, "i32");
    std::string ks = tensorType({spec.batch, spec.seqK}, "i32");
    args += ", %qs: " + qs + ", %ks: " + ks;
    operands +=
        " q_segment_ids(%qs : " + qs + ") kv_segment_ids(%ks : " + ks + ")";
  }
  std::vector<std::string> attrs;
  if (spec.causal)
    attrs.push_back("causal");
  if (spec.slidingWindow)
    attrs.push_back("sliding_window = array<i64: " +
                    std::to_string(spec.slidingWindow->first) + ", " +
                    std::to_string(spec.slidingWindow->second) + ">");
  if (spec.logitsSoftCap)
    attrs.push_back("logits_soft_cap = " + *spec.logitsSoftCap + " : f32");
  if (spec.softmaxScale)
    attrs.push_back("softmax_scale = " + *spec.softmaxScale + " : f32");
  if (spec.dropoutSeed)
    attrs.push_back("dropout_prob = 0.1 : f32, dropout_seed = " +
                    std::to_string(*spec.dropoutSeed) + " : i64");
  if (!spec.config.empty())
    attrs.push_back("config = " + spec.config);
  std::string results = spec.lse ? "%o, %lse" : "%o";
  std::string resultTypes = out;
  if (spec.lse)
    resultTypes +=
        ", " + tensorType({spec.batch, spec.numHeads, spec.seqQ}, "f32");
  return "func.func @f(" + args + ") {\n  " + results +
         " = ejk.flash_attention " + operands + " {" + llvm::join(attrs, ", ") +
         "} : " + q + ", " + k + ", " + v + " -> " + resultTypes +
         "\n  return\n}\n";
}

/// Parses `source` (verifying it) into a module; null on failure, with the
/// diagnostics reported as a test failure.
inline OwningOpRef<ModuleOp> parseModule(MLIRContext &context,
                                         StringRef source) {
  DiagnosticCollector diagnostics(&context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, ParserConfig(&context));
  EXPECT_TRUE(module) << "failed to parse:\n"
                      << source.str() << "\n"
                      << diagnostics.joined();
  return module;
}

/// The flash_attention ops of `module`, in order.
inline std::vector<FlashAttentionOp> flashOps(ModuleOp module) {
  std::vector<FlashAttentionOp> ops;
  module.walk([&](FlashAttentionOp op) { ops.push_back(op); });
  return ops;
}

} // namespace mlir::ejk::test

#endif // EJK_TEST_UNIT_DIALECT_DIALECTTESTUTIL_H
