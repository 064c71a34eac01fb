//===- OverlayPolicyTest.cpp - overlays and the policy switches -----------===//

#include "TuningTestUtil.h"

#include "ejk/Store/Tuning/ConfigOverlay.h"
#include "ejk/Store/Tuning/Policy.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace ejk;
using namespace ejk::test;

namespace {

const std::string kKey = "ejk.flash_attention;q=1x64x2x32xf32;causal=0";

TEST(ConfigOverlayTest, ExactKeyBeatsOpName) {
  ConfigOverlay overlay;
  std::string error;
  ASSERT_TRUE(ConfigOverlay::parse(
      R"({"configs": {"ejk.flash_attention": {"block_q": 8, "block_k": 32},
                      ")" +
          kKey + R"(": {"block_q": 16, "block_k": 64}}})",
      overlay, error))
      << error;
  EXPECT_EQ(*overlay.lookup(kKey),
            (ConfigValues{{"block_q", 16}, {"block_k", 64}}));
  EXPECT_EQ(*overlay.lookup("ejk.flash_attention;q=other"),
            (ConfigValues{{"block_q", 8}, {"block_k", 32}}));
  EXPECT_FALSE(overlay.lookup("ejk.selective_scan;x=1"));
}

TEST(ConfigOverlayTest, BadFilesAreClearErrors) {
  ConfigOverlay overlay;
  std::string error;
  EXPECT_FALSE(ConfigOverlay::parse("{", overlay, error));
  EXPECT_EQ(error, "not valid JSON");
  EXPECT_FALSE(
      ConfigOverlay::parse(R"({"ejk.flash_attention": {}})", overlay, error));
  EXPECT_EQ(error, "expected an object with a \"configs\" object");
  EXPECT_FALSE(ConfigOverlay::parse(
      R"({"configs": {"ejk.flash_attention": {"block_q": 0}}})", overlay,
      error));
  EXPECT_EQ(error, "config of 'ejk.flash_attention': entry 'block_q' is not "
                   "a positive integer");
  EXPECT_FALSE(
      ConfigOverlay::readFile("/nonexistent/overlay.json", overlay, error));
  EXPECT_EQ(error, "cannot read config overlay '/nonexistent/overlay.json'");
}

TEST(ConfigOverlayTest, ScopesNestInnermostFirst) {
  ConfigOverlay outer, inner;
  outer.set(kKey, {{"block_q", 8}});
  outer.set("ejk.other", {{"x", 1}});
  inner.set(kKey, {{"block_q", 32}});
  EXPECT_FALSE(ConfigOverlayScope::lookupActive(kKey));
  {
    ConfigOverlayScope a(outer);
    EXPECT_EQ(ConfigOverlayScope::lookupActive(kKey)->at("block_q"), 8);
    {
      ConfigOverlayScope b(inner);
      EXPECT_EQ(ConfigOverlayScope::lookupActive(kKey)->at("block_q"), 32);
      // What the inner scope lacks, the outer answers.
      EXPECT_EQ(ConfigOverlayScope::lookupActive("ejk.other;k")->at("x"), 1);
    }
    EXPECT_EQ(ConfigOverlayScope::lookupActive(kKey)->at("block_q"), 8);
  }
  EXPECT_FALSE(ConfigOverlayScope::lookupActive(kKey));
}

/// Sets an environment variable for the test's duration.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (saved)
      ::setenv(name, saved->c_str(), 1);
    else
      ::unsetenv(name);
  }

private:
  const char *name;
  std::optional<std::string> saved;
};

TEST(PolicyTest, AutotunePolicyFromEnv) {
  AutotunePolicy policy;
  std::string error;
  {
    ScopedEnv env("EJK_AUTOTUNE_POLICY", nullptr);
    ASSERT_TRUE(autotunePolicyFromEnv(AutotunePolicy::Autotune, policy, error));
    EXPECT_EQ(policy, AutotunePolicy::Autotune);
    ASSERT_TRUE(
        autotunePolicyFromEnv(AutotunePolicy::Heuristics, policy, error));
    EXPECT_EQ(policy, AutotunePolicy::Heuristics);
  }
  {
    ScopedEnv env("EJK_AUTOTUNE_POLICY", "autotune");
    ASSERT_TRUE(
        autotunePolicyFromEnv(AutotunePolicy::Heuristics, policy, error));
    EXPECT_EQ(policy, AutotunePolicy::Autotune);
  }
  {
    ScopedEnv env("EJK_AUTOTUNE_POLICY", "fast");
    EXPECT_FALSE(
        autotunePolicyFromEnv(AutotunePolicy::Heuristics, policy, error));
    EXPECT_EQ(error, "EJK_AUTOTUNE_POLICY: invalid autotune policy 'fast' "
                     "(expected 'autotune' or 'heuristics')");
  }
}

TEST(PolicyTest, LogAutotuneFromEnv) {
  bool enabled = true;
  std::string error;
  {
    ScopedEnv env("EJK_LOG_AUTOTUNE", nullptr);
    ASSERT_TRUE(logAutotuneFromEnv(enabled, error));
    EXPECT_FALSE(enabled);
  }
  {
    ScopedEnv env("EJK_LOG_AUTOTUNE", "1");
    ASSERT_TRUE(logAutotuneFromEnv(enabled, error));
    EXPECT_TRUE(enabled);
  }
  {
    ScopedEnv env("EJK_LOG_AUTOTUNE", "yes");
    EXPECT_FALSE(logAutotuneFromEnv(enabled, error));
    EXPECT_EQ(error, "EJK_LOG_AUTOTUNE: invalid value 'yes' (expected 1, "
                     "true, 0 or false)");
  }
}

TEST(PolicyTest, CacheDirectoryDefaults) {
  {
    ScopedEnv cache("EJK_CACHE_DIR", "/x/cache");
    EXPECT_EQ(defaultCacheDirectory(), "/x/cache");
  }
  ScopedEnv cache("EJK_CACHE_DIR", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/x/xdg");
    EXPECT_EQ(defaultCacheDirectory(), "/x/xdg/ejk");
  }
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  ScopedEnv home("HOME", "/x/home");
  EXPECT_EQ(defaultCacheDirectory(), "/x/home/.cache/ejk");
}

} // namespace
