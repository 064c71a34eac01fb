//===- VulkanCompileTest.cpp - Vulkan artifacts through the cache ---------===//
//
// A hand-written tiled kernel compiled for a Vulkan device given by its
// fingerprint (no device needed): the artifact's files and manifest, the
// cache key's dependence on the device, verification of the .spv files and
// their export. When the machine has a Vulkan device, the artifact also
// loads and runs on it.
//
//===----------------------------------------------------------------------===//

#include "CacheTestUtil.h"

#include "ejk/Driver/Tooling.h"
#include "ejk/Runtime/ejk_runtime.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::ejk;
using ::ejk::test::readFile;
using ::ejk::test::TempDir;
using ::ejk::test::writeFile;

namespace {

/// out[i] = 2 * in[i] + 1 over 4 workgroups of 32 invocations.
const char *kTiled = R"mlir(
func.func private @twice_dispatch_0(%in: memref<128xf32>, %out: memref<128xf32>)
    attributes {ejk.dispatch, ejk.grid = array<i64: 4, 1, 1>,
                ejk.workgroup_size = array<i64: 32, 1, 1>} {
  %wg = ejk.workgroup_id 0
  %t = gpu.thread_id x
  %c32 = arith.constant 32 : index
  %base = arith.muli %wg, %c32 : index
  %i = arith.addi %base, %t : index
  %x = memref.load %in[%i] : memref<128xf32>
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %y = math.fma %x, %two, %one : f32
  memref.store %y, %out[%i] : memref<128xf32>
  return
}
func.func @twice(%in: memref<128xf32>, %out: memref<128xf32>)
    attributes {ejk.entry, ejk.num_inputs = 1 : i64} {
  ejk.dispatch @twice_dispatch_0(%in, %out) : memref<128xf32>, memref<128xf32>
  return
}
)mlir";

::ejk::DeviceFingerprint device(const std::string &driverVersion) {
  ::ejk::DeviceFingerprint fp;
  fp.kind = "vulkan";
  fp.fields = {{"device_name", "test gpu"},
               {"driver_version", driverVersion},
               {"spirv_version", "1.3"},
               {"subgroup_size", "8"},
               {"subgroup_operations", "basic,shuffle"},
               {"max_shared_memory", "32768"}};
  return fp;
}

FailureOr<CachedArtifact> compile(const ArtifactCache &cache,
                                  const ::ejk::DeviceFingerprint &fp) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  registerEjkDialects(context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(kTiled, &context);
  if (!module)
    return failure();
  CompileOptions options;
  options.target = "vulkan";
  options.device = fp;
  return compileCached(*module, options, cache);
}

class VulkanCompileTest : public ::testing::Test {
protected:
  TempDir root;
  ArtifactCache cache{root.path()};
};

} // namespace

TEST_F(VulkanCompileTest, ManifestAndSpirvThroughTheCache) {
  FailureOr<CachedArtifact> first = compile(cache, device("0x1"));
  ASSERT_TRUE(succeeded(first));
  EXPECT_FALSE(first->hit);
  std::string entry = cache.directory() + "/" + first->key;
  nlohmann::json manifest =
      nlohmann::json::parse(readFile(first->manifestPath), nullptr, false);
  ASSERT_FALSE(manifest.is_discarded());
  EXPECT_EQ(manifest["target"], "vulkan");
  EXPECT_FALSE(manifest.contains("library"));
  const nlohmann::json &dispatch = manifest["entries"][0]["dispatches"][0];
  EXPECT_EQ(dispatch["spirv"], "kernel_twice_dispatch_0.spv");
  EXPECT_EQ(dispatch["entry_point"], "twice_dispatch_0");
  EXPECT_EQ(dispatch["workgroup_size"], nlohmann::json({32, 1, 1}));
  EXPECT_EQ(dispatch["grid"], nlohmann::json({4, 1, 1}));
  EXPECT_EQ(dispatch["bindings"], nlohmann::json({0, 1}));
  EXPECT_EQ(dispatch["push_constants"], nlohmann::json::array());
  std::string spirv = readFile(entry + "/kernel_twice_dispatch_0.spv");
  ASSERT_GE(spirv.size(), 20u);
  EXPECT_EQ(spirv.substr(0, 4), std::string("\x03\x02\x23\x07", 4));

  // Same kernel, same device: a hit. Another driver version: another key.
  FailureOr<CachedArtifact> second = compile(cache, device("0x1"));
  ASSERT_TRUE(succeeded(second));
  EXPECT_TRUE(second->hit);
  EXPECT_EQ(second->key, first->key);
  FailureOr<CachedArtifact> other = compile(cache, device("0x2"));
  ASSERT_TRUE(succeeded(other));
  EXPECT_FALSE(other->hit);
  EXPECT_NE(other->key, first->key);

  // A damaged .spv is caught by the entry's hashes and rebuilt.
  writeFile(entry + "/kernel_twice_dispatch_0.spv", spirv.substr(0, 8));
  FailureOr<CachedArtifact> third = compile(cache, device("0x1"));
  ASSERT_TRUE(succeeded(third));
  EXPECT_FALSE(third->hit);
  ASSERT_EQ(third->warnings.size(), 1u);
  EXPECT_EQ(readFile(entry + "/kernel_twice_dispatch_0.spv"), spirv);

  // Export renames the SPIR-V after the artifact.
  TempDir out;
  llvm::Expected<std::string> exported =
      exportArtifact(third->manifestPath, out.path(), "mine");
  ASSERT_TRUE(bool(exported)) << llvm::toString(exported.takeError());
  nlohmann::json copy =
      nlohmann::json::parse(readFile(*exported), nullptr, false);
  EXPECT_EQ(copy["entries"][0]["dispatches"][0]["spirv"],
            "mine_twice_dispatch_0.spv");
  EXPECT_EQ(readFile(out.path() + "/mine_twice_dispatch_0.spv"), spirv);
}

TEST_F(VulkanCompileTest, RunsOnTheDeviceWhenThereIsOne) {
  ejk_device *gpu = nullptr;
  if (ejk_device_create("vulkan", &gpu) != EJK_OK)
    GTEST_SKIP() << "no Vulkan device: " << ejk_last_error();
  FailureOr<CachedArtifact> artifact = compile(cache, device("0x1"));
  ASSERT_TRUE(succeeded(artifact));
  ejk_module *module = nullptr;
  ASSERT_EQ(ejk_module_load(gpu, artifact->manifestPath.c_str(), &module),
            EJK_OK)
      << ejk_last_error();
  std::vector<float> in(128), out(128);
  for (int i = 0; i < 128; ++i)
    in[i] = 0.5f * i;
  ejk_buffer *input = nullptr, *output = nullptr;
  ASSERT_EQ(ejk_buffer_create(gpu, 512, &input), EJK_OK);
  ASSERT_EQ(ejk_buffer_create(gpu, 512, &output), EJK_OK);
  ASSERT_EQ(ejk_buffer_upload(input, in.data(), 512, 0), EJK_OK);
  ASSERT_EQ(ejk_invoke(module, "twice", &input, 1, &output, 1), EJK_OK)
      << ejk_last_error();
  ASSERT_EQ(ejk_buffer_download(output, out.data(), 512, 0), EJK_OK);
  for (int i = 0; i < 128; ++i)
    EXPECT_EQ(out[i], 2 * in[i] + 1) << i;
  ejk_buffer_destroy(input);
  ejk_buffer_destroy(output);
  ejk_module_destroy(module);
  ejk_device_destroy(gpu);
}
