//===- RegistryTest.cpp - every tunable op has both targets' models -------===//
//
// A family that forgets its line in lib/Ops/Registry.cpp, or a target it
// forgets to give an op, fails here in CI rather than at a user's run.
//
//===----------------------------------------------------------------------===//

#include "../Dialect/DialectTestUtil.h"

#include "ejk/Ops/OpModel.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::ejk;

/// Whether the dialect promises TunableOpInterface for `name` (or it is
/// attached). OperationName::hasPromiseOrImplementsInterface does not
/// compile against MLIR 22's headers, so ask the dialect directly.
static bool promisesTunable(RegisteredOperationName name) {
  return name.hasInterface<TunableOpInterface>() ||
         name.getDialect().hasPromisedInterface(
             name.getTypeID(), TunableOpInterface::getInterfaceID());
}

namespace {
class RegistryTest : public ::testing::Test {
protected:
  RegistryTest() { test::loadTestDialects(context); }
  MLIRContext context;
};
} // namespace

/// Ops that compile on the CPU only for now; the tiling driver says so on
/// Vulkan. None today.
static bool isCpuOnly(StringRef) { return false; }

TEST_F(RegistryTest, EveryPromisedTunableOpHasModelsForBothTargets) {
  int promised = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != EjkDialect::getDialectNamespace() ||
        !promisesTunable(name))
      continue;
    ++promised;
    SCOPED_TRACE(name.getStringRef().str());
    EXPECT_TRUE(name.hasInterface<TunableOpInterface>())
        << "the family did not attach TunableOpInterface";
    const OpModel *model = lookupOpModel(name.getStringRef());
    ASSERT_NE(model, nullptr) << "no OpModel registered";
    EXPECT_NE(model->kernelFor(TargetInfo::Kind::Cpu), nullptr);
    if (isCpuOnly(name.getStringRef()))
      EXPECT_EQ(model->kernelFor(TargetInfo::Kind::Vulkan), nullptr)
          << "has a Vulkan kernel now: drop it from isCpuOnly";
    else
      EXPECT_NE(model->kernelFor(TargetInfo::Kind::Vulkan), nullptr);
  }
  // flash_attention, selective_scan and ssd today; the count only grows.
  EXPECT_GE(promised, 3);
}

TEST_F(RegistryTest, EveryModelBelongsToAPromisedOp) {
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != EjkDialect::getDialectNamespace())
      continue;
    if (lookupOpModel(name.getStringRef())) {
      EXPECT_TRUE(promisesTunable(name))
          << name.getStringRef().str()
          << " has a model but the dialect does not promise the interface";
    }
  }
}
