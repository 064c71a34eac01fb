//===- RulesTestFixture.h - what the families' rules tests share -*- C++
//-*-===//
//
// The rules tests (LinearRulesTest.cpp, DeltaRulesTest.cpp, MoeRulesTest.cpp,
// MoeVulkanRulesTest.cpp, StateSpaceRulesTest.cpp) each parse one tunable op
// and ask its interface for keys, spaces, heuristics and verdicts. This is
// their fixture and the targets more than one of them uses.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_TEST_UNIT_OPS_RULESTESTFIXTURE_H
#define EJK_TEST_UNIT_OPS_RULESTESTFIXTURE_H

#include "../Dialect/DialectTestUtil.h"

#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>

namespace mlir::ejk::test {

/// The generic CPU with 512-bit vectors and `cores` cores.
inline TargetInfo avx512Cpu(unsigned cores = 2) {
  TargetInfo target = TargetInfo::genericCpu();
  target.vectorBits = 512;
  target.numCores = cores;
  return target;
}

/// The generic Vulkan device with subgroups of `subgroupSize` that shuffle.
inline TargetInfo vulkanWithShuffles(unsigned subgroupSize) {
  TargetInfo target = TargetInfo::genericVulkan();
  target.subgroupSize = subgroupSize;
  target.vulkanFeatures = {"subgroup_basic", "subgroup_shuffle"};
  return target;
}

/// A test of one tunable op's rules: the op parsed from IR (the module
/// kept alive), the verifier's reason as a string, configs built inline.
class TunableOpTest : public ::testing::Test {
protected:
  TunableOpTest() { loadTestDialects(context); }

  /// The single tunable op of `ir` (null if it does not parse).
  TunableOpInterface parse(const std::string &ir) {
    module = parseModule(context, ir);
    TunableOpInterface found;
    if (module)
      module->walk([&](TunableOpInterface op) { found = op; });
    return found;
  }

  /// "ok", or why `target` rejects `config` for `op`.
  std::string reason(TunableOpInterface op, ConfigAttr config,
                     const TargetInfo &target) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (succeeded(op.verifyConfig(config, target, os)))
      return "ok";
    return text;
  }

  ConfigAttr config(ArrayRef<std::pair<StringRef, int64_t>> values) {
    return ConfigAttr::get(&context, values);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

} // namespace mlir::ejk::test

#endif // EJK_TEST_UNIT_OPS_RULESTESTFIXTURE_H
