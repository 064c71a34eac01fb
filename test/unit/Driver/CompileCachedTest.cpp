//===- CompileCachedTest.cpp - compiling through the artifact cache -------===//
//
// Real compiles of a small flash attention kernel: the key ignores what does
// not change the code, a corrupt entry is rebuilt and never loaded, an
// unusable cache falls back to a temporary directory, and processes that
// compile the same kernel at once leave one good entry.
//
//===----------------------------------------------------------------------===//

#include "CacheTestUtil.h"

#include "ejk/Driver/Tooling.h"
#include "ejk/Runtime/ejk_runtime.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <vector>

using namespace mlir;
using namespace mlir::ejk;
using ::ejk::test::readFile;
using ::ejk::test::TempDir;
using ::ejk::test::writeFile;

namespace {

const char *kAttention = R"mlir(
func.func @attn(%q: tensor<1x16x1x32xf32>, %k: tensor<1x16x1x32xf32>, %v: tensor<1x16x1x32xf32>) -> tensor<1x16x1x32xf32> {
  %o = ejk.flash_attention %q, %k, %v
      : tensor<1x16x1x32xf32>, tensor<1x16x1x32xf32>, tensor<1x16x1x32xf32> -> tensor<1x16x1x32xf32>
  return %o : tensor<1x16x1x32xf32>
}
)mlir";

/// The same kernel written differently: other SSA names, layout, comments
/// and locations. It must share the key.
const char *kAttentionReformatted = R"mlir(
// A comment that changes nothing.
func.func @attn(%query: tensor<1x16x1x32xf32>, %key: tensor<1x16x1x32xf32>,
                %value: tensor<1x16x1x32xf32>) -> tensor<1x16x1x32xf32> {
  %out = ejk.flash_attention %query, %key, %value : tensor<1x16x1x32xf32>, tensor<1x16x1x32xf32>, tensor<1x16x1x32xf32> -> tensor<1x16x1x32xf32> loc("somewhere.py":3:4)
  return %out : tensor<1x16x1x32xf32>
}
)mlir";

/// A different kernel: causal.
const char *kCausal = R"mlir(
func.func @attn(%q: tensor<1x16x1x32xf32>, %k: tensor<1x16x1x32xf32>, %v: tensor<1x16x1x32xf32>) -> tensor<1x16x1x32xf32> {
  %o = ejk.flash_attention %q, %k, %v {causal}
      : tensor<1x16x1x32xf32>, tensor<1x16x1x32xf32>, tensor<1x16x1x32xf32> -> tensor<1x16x1x32xf32>
  return %o : tensor<1x16x1x32xf32>
}
)mlir";

/// Compiles \p ir through \p cache in a context of its own.
FailureOr<CachedArtifact> compile(const char *ir, const ArtifactCache &cache) {
  MLIRContext context(MLIRContext::Threading::DISABLED);
  registerEjkDialects(context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(ir, &context);
  if (!module)
    return failure();
  return compileCached(*module, CompileOptions(), cache);
}

/// Loads the artifact with the runtime: the proof that it is usable.
bool loads(const std::string &manifest) {
  ejk_device *device = nullptr;
  ejk_module *module = nullptr;
  bool ok = ejk_device_create("cpu", &device) == EJK_OK &&
            ejk_module_load(device, manifest.c_str(), &module) == EJK_OK;
  ejk_module_destroy(module);
  ejk_device_destroy(device);
  return ok;
}

class CompileCachedTest : public ::testing::Test {
protected:
  TempDir root;
  ArtifactCache cache{root.path()};
};

} // namespace

TEST_F(CompileCachedTest, SecondCompileHitsAndFormattingDoesNotMatter) {
  FailureOr<CachedArtifact> first = compile(kAttention, cache);
  ASSERT_TRUE(succeeded(first));
  EXPECT_FALSE(first->hit);
  EXPECT_TRUE(first->warnings.empty());
  EXPECT_TRUE(first->temporaryDirectory.empty());
  EXPECT_EQ(first->manifestPath,
            cache.directory() + "/" + first->key + "/kernel.json");
  EXPECT_GT(first->timings.codegen, 0.0);
  EXPECT_TRUE(loads(first->manifestPath));

  FailureOr<CachedArtifact> second = compile(kAttention, cache);
  ASSERT_TRUE(succeeded(second));
  EXPECT_TRUE(second->hit);
  EXPECT_EQ(second->key, first->key);
  EXPECT_EQ(second->manifestPath, first->manifestPath);
  EXPECT_EQ(second->compileSeconds, 0.0);
  EXPECT_TRUE(loads(second->manifestPath));

  FailureOr<CachedArtifact> reformatted = compile(kAttentionReformatted, cache);
  ASSERT_TRUE(succeeded(reformatted));
  EXPECT_TRUE(reformatted->hit);
  EXPECT_EQ(reformatted->key, first->key);

  FailureOr<CachedArtifact> causal = compile(kCausal, cache);
  ASSERT_TRUE(succeeded(causal));
  EXPECT_FALSE(causal->hit);
  EXPECT_NE(causal->key, first->key);
  EXPECT_EQ(cache.stats().entries, 2u);
}

TEST_F(CompileCachedTest, CorruptEntryIsRebuiltNeverLoaded) {
  FailureOr<CachedArtifact> first = compile(kAttention, cache);
  ASSERT_TRUE(succeeded(first));
  std::string library = cache.directory() + "/" + first->key + "/kernel.so";
  std::string good = readFile(library);
  // Truncate the shared object: loading it could crash the process.
  writeFile(library, good.substr(0, good.size() / 2));

  FailureOr<CachedArtifact> second = compile(kAttention, cache);
  ASSERT_TRUE(succeeded(second));
  EXPECT_FALSE(second->hit);
  ASSERT_EQ(second->warnings.size(), 1u);
  EXPECT_NE(second->warnings[0].find("not used"), std::string::npos)
      << second->warnings[0];
  EXPECT_EQ(readFile(library), good); // rebuilt, same code
  FailureOr<CachedArtifact> third = compile(kAttention, cache);
  ASSERT_TRUE(succeeded(third));
  EXPECT_TRUE(third->hit);
  EXPECT_TRUE(loads(third->manifestPath));
}

TEST_F(CompileCachedTest, UnusableCacheCompilesIntoATemporaryDirectory) {
  ArtifactCache nowhere("/proc/ejk-no-such-dir");
  FailureOr<CachedArtifact> artifact = compile(kAttention, nowhere);
  ASSERT_TRUE(succeeded(artifact));
  EXPECT_FALSE(artifact->hit);
  ASSERT_EQ(artifact->warnings.size(), 1u);
  EXPECT_NE(artifact->warnings[0].find("artifact cache not used"),
            std::string::npos);
  ASSERT_FALSE(artifact->temporaryDirectory.empty());
  EXPECT_TRUE(loads(artifact->manifestPath));
  llvm::sys::fs::remove_directories(artifact->temporaryDirectory);
}

TEST_F(CompileCachedTest, ZeroBoundCompilesWithoutStoring) {
  ArtifactCache off(root.path(), /*maxBytes=*/0);
  FailureOr<CachedArtifact> artifact = compile(kAttention, off);
  ASSERT_TRUE(succeeded(artifact));
  EXPECT_TRUE(artifact->warnings.empty());
  ASSERT_FALSE(artifact->temporaryDirectory.empty());
  EXPECT_EQ(off.stats().entries, 0u);
  llvm::sys::fs::remove_directories(artifact->temporaryDirectory);
}

TEST_F(CompileCachedTest, BadInputFailsWithoutTouchingTheCache) {
  const char *bad = R"mlir(
func.func @attn(%q: tensor<1x16x1x32xf32>) -> tensor<1x16x1x32xf32> {
  %o = ejk.flash_attention %q, %q, %q {config = #ejk.config<block_q = 3, block_k = 5>}
      : tensor<1x16x1x32xf32>, tensor<1x16x1x32xf32>, tensor<1x16x1x32xf32> -> tensor<1x16x1x32xf32>
  return %o : tensor<1x16x1x32xf32>
}
)mlir";
  MLIRContext context(MLIRContext::Threading::DISABLED);
  registerEjkDialects(context);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(bad, &context);
  if (!module)
    GTEST_SKIP() << "the config is rejected by the parser: " << diagnostics;
  EXPECT_TRUE(failed(compileCached(*module, CompileOptions(), cache)));
  EXPECT_FALSE(diagnostics.empty());
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_EQ(cache.stats().temporaries, 0u);
}

/// A hand-tiled entry whose buffers' byte size overflows size_t: the
/// runtime refuses its manifest ("the byte size of 'shape' overflows").
const char *kRefusedByTheRuntime = R"mlir(
module {
  func.func private @k_dispatch_0(%a: memref<4611686018427387904x4xf32>, %b: memref<4611686018427387904x4xf32>)
      attributes {ejk.dispatch, ejk.grid = array<i64: 1, 1, 1>} {
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0, %c0] : memref<4611686018427387904x4xf32>
    memref.store %x, %b[%c0, %c0] : memref<4611686018427387904x4xf32>
    return
  }
  func.func @k(%a: memref<4611686018427387904x4xf32>, %b: memref<4611686018427387904x4xf32>)
      attributes {ejk.entry, ejk.num_inputs = 1 : i64} {
    ejk.dispatch @k_dispatch_0(%a, %b) : memref<4611686018427387904x4xf32>, memref<4611686018427387904x4xf32>
    return
  }
}
)mlir";

TEST_F(CompileCachedTest, ArtifactTheRuntimeRefusesIsACompileError) {
  // It used to be stored and exported as a success, and refused only when
  // loaded.
  MLIRContext context(MLIRContext::Threading::DISABLED);
  registerEjkDialects(context);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str() + "\n";
    return success();
  });
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kRefusedByTheRuntime, &context);
  ASSERT_TRUE(module) << diagnostics;
  EXPECT_TRUE(failed(compileCached(*module, CompileOptions(), cache)));
  EXPECT_NE(diagnostics.find("the runtime would refuse this artifact: the "
                             "artifact's manifest: entry 'k' buffer 0: the "
                             "byte size of 'shape' overflows"),
            std::string::npos)
      << diagnostics;
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_EQ(cache.stats().temporaries, 0u);
}

TEST_F(CompileCachedTest, ConcurrentCompilersOfOneKeyLeaveOneGoodEntry) {
  constexpr int kProcesses = 3;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      FailureOr<CachedArtifact> artifact = compile(kAttention, cache);
      bool ok = succeeded(artifact) && artifact->warnings.empty() &&
                artifact->temporaryDirectory.empty() &&
                loads(artifact->manifestPath);
      _exit(ok ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ArtifactCacheStats stats = cache.stats();
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.temporaries, 0u);
  FailureOr<CachedArtifact> after = compile(kAttention, cache);
  ASSERT_TRUE(succeeded(after));
  EXPECT_TRUE(after->hit);
  EXPECT_TRUE(loads(after->manifestPath));
}
