//===- ArtifactCacheTest.cpp - the artifact store, without compiling ------===//
//
// Entries here are small hand-made files, so every path of the store (hit,
// miss, corruption, foreign entries, eviction, permissions, races between
// processes) is exercised in milliseconds. CompileCachedTest.cpp covers the
// same with real compiles.
//
//===----------------------------------------------------------------------===//

#include "CacheTestUtil.h"

#include "llvm/Support/Error.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <set>
#include <thread>
#include <vector>

using namespace mlir::ejk;
using ::ejk::test::modeOf;
using ::ejk::test::readFile;
using ::ejk::test::runInChild;
using ::ejk::test::TempDir;
using ::ejk::test::writeFile;

namespace {

ArtifactKey keyFor(const std::string &ir,
                   const std::string &fingerprint = "fp") {
  return makeArtifactKey(ir, "cpu", fingerprint, "vector-bits=0\n");
}

/// Stores an entry with a fake library of \p libraryBytes bytes; returns the
/// entry directory ("" on failure, with a test failure recorded).
std::string store(const ArtifactCache &cache, const ArtifactKey &key,
                  size_t libraryBytes = 1000, char fill = 'x') {
  llvm::Expected<std::string> staging = cache.createStagingDirectory();
  if (!staging) {
    ADD_FAILURE() << llvm::toString(staging.takeError());
    return "";
  }
  writeFile(*staging + "/kernel.so", std::string(libraryBytes, fill));
  writeFile(*staging + "/kernel.json", "{\"library\": \"kernel.so\"}");
  llvm::Expected<std::string> entry = cache.publish(key, *staging);
  if (!entry) {
    ADD_FAILURE() << llvm::toString(entry.takeError());
    return "";
  }
  return *entry;
}

/// Lookup that must be rejected with a reason containing \p why.
void expectRejected(const ArtifactCache &cache, const ArtifactKey &key,
                    const std::string &why) {
  std::string whyNot;
  EXPECT_FALSE(cache.lookup(key, &whyNot).has_value());
  EXPECT_NE(whyNot.find(why), std::string::npos) << whyNot;
}

class ArtifactCacheTest : public ::testing::Test {
protected:
  TempDir root;
  ArtifactCache cache{root.path()};
};

} // namespace

TEST(ArtifactKeyTest, EveryPartChangesTheKey) {
  ArtifactKey base = makeArtifactKey("ir", "cpu", "fp", "opts");
  EXPECT_EQ(base.hash.size(), 32u);
  EXPECT_EQ(base.hash.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(base.hash, makeArtifactKey("ir", "cpu", "fp", "opts").hash);
  EXPECT_EQ(base.compilerVersion, compilerVersion().str());
  EXPECT_NE(base.hash, makeArtifactKey("ir2", "cpu", "fp", "opts").hash);
  EXPECT_NE(base.hash, makeArtifactKey("ir", "vulkan", "fp", "opts").hash);
  EXPECT_NE(base.hash, makeArtifactKey("ir", "cpu", "fp2", "opts").hash);
  EXPECT_NE(base.hash, makeArtifactKey("ir", "cpu", "fp", "opts2").hash);
  // Fields are delimited: moving a character between them changes the key.
  EXPECT_NE(makeArtifactKey("ab", "cpu", "fp", "c").hash,
            makeArtifactKey("b", "cpu", "fp", "ca").hash);
}

TEST(ArtifactKeyTest, CompilerVersionNamesTheSources) {
  EXPECT_NE(compilerVersion().find("+src."), llvm::StringRef::npos);
}

TEST_F(ArtifactCacheTest, MissThenHit) {
  ArtifactKey key = keyFor("kernel-a");
  std::string whyNot;
  EXPECT_FALSE(cache.lookup(key, &whyNot).has_value());
  EXPECT_EQ(whyNot, ""); // A plain miss is not a problem.
  std::string entry = store(cache, key);
  ASSERT_EQ(entry, cache.directory() + "/" + key.hash);
  std::optional<std::string> hit = cache.lookup(key, &whyNot);
  ASSERT_TRUE(hit.has_value()) << whyNot;
  EXPECT_EQ(*hit, entry);
  EXPECT_EQ(readFile(*hit + "/kernel.so"), std::string(1000, 'x'));
  EXPECT_FALSE(cache.lookup(keyFor("kernel-b")).has_value());
}

TEST_F(ArtifactCacheTest, EntriesArePrivateWhateverTheUmask) {
  mode_t old = umask(0);
  std::string entry = store(cache, keyFor("kernel"));
  umask(old);
  EXPECT_EQ(modeOf(cache.directory()), 0700u);
  EXPECT_EQ(modeOf(entry), 0700u);
  EXPECT_EQ(modeOf(entry + "/kernel.so"), 0600u);
  EXPECT_EQ(modeOf(entry + "/kernel.json"), 0600u);
  EXPECT_EQ(modeOf(entry + "/entry.json"), 0600u);
}

TEST_F(ArtifactCacheTest, TruncatedLibraryIsRejectedAndReplaced) {
  ArtifactKey key = keyFor("kernel");
  std::string entry = store(cache, key);
  ASSERT_EQ(truncate((entry + "/kernel.so").c_str(), 10), 0);
  expectRejected(cache, key, "'kernel.so' has 10 bytes, expected 1000");
  // The next store replaces the bad entry.
  store(cache, key, 1000, 'y');
  ASSERT_TRUE(cache.lookup(key).has_value());
  EXPECT_EQ(readFile(entry + "/kernel.so"), std::string(1000, 'y'));
}

TEST_F(ArtifactCacheTest, FlippedByteIsRejected) {
  ArtifactKey key = keyFor("kernel");
  std::string entry = store(cache, key);
  std::string bytes = readFile(entry + "/kernel.so");
  bytes[500] ^= 1;
  writeFile(entry + "/kernel.so", bytes);
  expectRejected(cache, key, "'kernel.so' does not match its hash");
}

TEST_F(ArtifactCacheTest, BadManifestIsRejected) {
  ArtifactKey key = keyFor("kernel");
  std::string entry = store(cache, key);
  std::string manifest = readFile(entry + "/kernel.json");
  manifest[0] = '[';
  writeFile(entry + "/kernel.json", manifest);
  expectRejected(cache, key, "'kernel.json' does not match its hash");
}

TEST_F(ArtifactCacheTest, BadEntryDescriptionIsRejected) {
  ArtifactKey key = keyFor("kernel");
  std::string entry = store(cache, key);
  writeFile(entry + "/entry.json", "{ not json");
  expectRejected(cache, key, "entry.json is not JSON");
  writeFile(entry + "/entry.json", "{\"format\": \"something else\"}");
  expectRejected(cache, key, "not an ejk cache entry");
}

TEST_F(ArtifactCacheTest, MissingAndExtraFilesAreRejected) {
  ArtifactKey key = keyFor("kernel");
  std::string entry = store(cache, key);
  writeFile(entry + "/payload.so", "surprise");
  chmod((entry + "/payload.so").c_str(), 0600);
  expectRejected(cache, key, "unexpected file 'payload.so'");
  unlink((entry + "/payload.so").c_str());
  ASSERT_TRUE(cache.lookup(key).has_value());
  unlink((entry + "/kernel.so").c_str());
  expectRejected(cache, key, "cannot open");
}

TEST_F(ArtifactCacheTest, ForeignEntriesAreRejected) {
  ArtifactKey key = keyFor("kernel", "fingerprint-of-this-machine");
  store(cache, key);
  // An entry under the same name made for another device or by another
  // compiler (a copied cache directory) is never used.
  ArtifactKey otherDevice = key;
  otherDevice.fingerprint = "fingerprint-of-another-machine";
  expectRejected(cache, otherDevice,
                 "compiled for device fingerprint "
                 "'fingerprint-of-this-machine', not "
                 "'fingerprint-of-another-machine'");
  ArtifactKey otherCompiler = key;
  otherCompiler.compilerVersion = "0.0.1+src.0000";
  expectRejected(cache, otherCompiler, "compiled by compiler version");
  ArtifactKey otherTarget = key;
  otherTarget.target = "vulkan";
  expectRejected(cache, otherTarget, "compiled for target 'cpu'");
  ASSERT_TRUE(cache.lookup(key).has_value());
}

TEST_F(ArtifactCacheTest, EntryUnderAnotherKeyIsRejected) {
  ArtifactKey a = keyFor("a"), b = keyFor("b");
  std::string entryA = store(cache, a);
  std::string pathB = cache.directory() + "/" + b.hash;
  ASSERT_EQ(rename(entryA.c_str(), pathB.c_str()), 0);
  expectRejected(cache, b, "it is the entry of key '" + a.hash + "'");
}

TEST_F(ArtifactCacheTest, EntriesOthersCanWriteAreRejected) {
  ArtifactKey key = keyFor("kernel");
  std::string entry = store(cache, key);
  chmod((entry + "/kernel.so").c_str(), 0666);
  expectRejected(cache, key, "not a private regular file");
  chmod((entry + "/kernel.so").c_str(), 0600);
  chmod(entry.c_str(), 0755);
  expectRejected(cache, key, "accessible to other users");
  chmod(entry.c_str(), 0700);
  ASSERT_TRUE(cache.lookup(key).has_value());
  chmod(cache.directory().c_str(), 0777);
  expectRejected(cache, key, "accessible to other users");
  llvm::Error error = cache.prepare();
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("accessible to other users"),
            std::string::npos);
}

TEST_F(ArtifactCacheTest, SymlinkedEntryIsRejected) {
  ArtifactKey real = keyFor("real"), linked = keyFor("linked");
  std::string entry = store(cache, real);
  std::string link = cache.directory() + "/" + linked.hash;
  ASSERT_EQ(symlink(entry.c_str(), link.c_str()), 0);
  expectRejected(cache, linked, "is not a directory");
}

TEST_F(ArtifactCacheTest, EvictsLeastRecentlyUsedFirst) {
  ArtifactKey a = keyFor("a"), b = keyFor("b"), c = keyFor("c");
  ArtifactCache unbounded(root.path());
  std::string entryA = store(unbounded, a), entryB = store(unbounded, b),
              entryC = store(unbounded, c);
  uint64_t entryBytes = unbounded.stats().bytes / 3;
  ASSERT_GT(entryBytes, 1000u);
  // A is used again, so B is now the least recently used.
  ASSERT_TRUE(unbounded.lookup(a).has_value());
  EXPECT_EQ(unbounded.evict(2 * entryBytes), 1u);
  EXPECT_TRUE(unbounded.lookup(a).has_value());
  EXPECT_FALSE(unbounded.lookup(b).has_value());
  EXPECT_TRUE(unbounded.lookup(c).has_value());
  // The lookups above used A, then C: A goes next.
  EXPECT_EQ(unbounded.evict(entryBytes), 1u);
  EXPECT_FALSE(unbounded.lookup(a).has_value());
  EXPECT_TRUE(unbounded.lookup(c).has_value());
}

TEST_F(ArtifactCacheTest, PublishKeepsTheBoundButNeverTheNewEntry) {
  ArtifactCache small(root.path(), /*maxBytes=*/3500);
  ArtifactKey a = keyFor("a"), b = keyFor("b"), c = keyFor("c");
  store(small, a);
  store(small, b);
  EXPECT_EQ(small.stats().entries, 2u);
  store(small, c);
  ArtifactCacheStats stats = small.stats();
  EXPECT_EQ(stats.entries, 2u);
  EXPECT_LE(stats.bytes, 3500u);
  EXPECT_FALSE(small.lookup(a).has_value());
  EXPECT_TRUE(small.lookup(c).has_value());
  // An entry larger than the whole bound is still kept: it is in use.
  ArtifactKey huge = keyFor("huge");
  store(small, huge, 10000);
  EXPECT_TRUE(small.lookup(huge).has_value());
  EXPECT_EQ(small.stats().entries, 1u);
}

TEST_F(ArtifactCacheTest, StatsAndClear) {
  store(cache, keyFor("a"));
  store(cache, keyFor("b"));
  ArtifactCacheStats stats = cache.stats();
  EXPECT_EQ(stats.directory, cache.directory());
  EXPECT_EQ(stats.entries, 2u);
  EXPECT_GT(stats.bytes, 2000u);
  EXPECT_EQ(stats.temporaries, 0u);
  llvm::Expected<uint64_t> removed = cache.clear();
  ASSERT_TRUE(bool(removed));
  EXPECT_EQ(*removed, 2u);
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_FALSE(cache.lookup(keyFor("a")).has_value());
}

TEST_F(ArtifactCacheTest, UncreatableDirectoryIsAnErrorNotACrash) {
  ArtifactCache nowhere("/proc/ejk-no-such-dir");
  llvm::Error error = nowhere.prepare();
  ASSERT_TRUE(bool(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("cannot create"),
            std::string::npos);
  EXPECT_FALSE(nowhere.lookup(keyFor("a")).has_value());
  llvm::Expected<std::string> staging = nowhere.createStagingDirectory();
  EXPECT_FALSE(bool(staging));
  llvm::consumeError(staging.takeError());
}

TEST_F(ArtifactCacheTest, ReadOnlyCacheServesHitsButStoresNothing) {
  // Root ignores permission bits, so the check runs as an unprivileged user
  // in a child process, on a cache of its own.
  int status = runInChild([&]() -> int {
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
      return 10;
    TempDir own;
    if (own.path().empty())
      return 11;
    ArtifactCache mine(own.path());
    ArtifactKey key = keyFor("kernel");
    if (store(mine, key).empty())
      return 12;
    if (chmod(mine.directory().c_str(), 0500) != 0)
      return 13;
    if (!mine.lookup(key))
      return 14; // hits still work
    llvm::Error error = mine.prepare();
    if (!error)
      return 15;
    if (llvm::toString(std::move(error)).find("not writable") ==
        std::string::npos)
      return 16;
    llvm::Expected<std::string> staging = mine.createStagingDirectory();
    if (staging)
      return 17;
    llvm::consumeError(staging.takeError());
    return 0;
  });
  EXPECT_EQ(status, 0);
}

TEST(ArtifactCacheEnvironmentTest, RootAndBoundFromTheEnvironment) {
  std::vector<std::string> warnings;
  setenv("EJK_CACHE_DIR", "/some/where", 1);
  setenv("EJK_CACHE_MAX_MB", "3", 1);
  ArtifactCache fromDir = ArtifactCache::fromEnvironment(warnings);
  EXPECT_EQ(fromDir.directory(), "/some/where/artifacts");
  EXPECT_EQ(fromDir.maxBytes(), 3ull << 20);
  EXPECT_TRUE(warnings.empty());

  unsetenv("EJK_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  setenv("EJK_CACHE_MAX_MB", "lots", 1);
  ArtifactCache fromXdg = ArtifactCache::fromEnvironment(warnings);
  EXPECT_EQ(fromXdg.directory(), "/xdg/ejk/artifacts");
  EXPECT_EQ(fromXdg.maxBytes(), ArtifactCache::kDefaultMaxBytes);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("EJK_CACHE_MAX_MB must be a number"),
            std::string::npos);

  unsetenv("XDG_CACHE_HOME");
  unsetenv("EJK_CACHE_MAX_MB");
  setenv("HOME", "/home/user", 1);
  EXPECT_EQ(ArtifactCache::fromEnvironment(warnings).directory(),
            "/home/user/.cache/ejk/artifacts");
}

TEST_F(ArtifactCacheTest, ConcurrentPublishersLoseNothingAndTearNothing) {
  // Several processes store the same keys (and keys of their own) at once
  // and look them up in between; every lookup must find either nothing or a
  // complete, verified entry.
  constexpr int kProcesses = 6, kRounds = 15;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ArtifactCache mine(root.path());
      int bad = 0;
      for (int round = 0; round < kRounds; ++round) {
        for (const std::string &ir :
             {std::string("shared-") + std::to_string(round % 3),
              "own-" + std::to_string(p) + "-" + std::to_string(round)}) {
          ArtifactKey key = keyFor(ir);
          std::string whyNot;
          if (!mine.lookup(key, &whyNot)) {
            if (!whyNot.empty())
              ++bad; // a torn or foreign entry was seen
            if (store(mine, key, 4096 + round, char('a' + round % 3)).empty())
              ++bad;
          }
          if (!mine.lookup(key, &whyNot))
            ++bad;
        }
      }
      _exit(bad == 0 && !::testing::Test::HasFailure() ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  for (int round = 0; round < 3; ++round)
    EXPECT_TRUE(cache.lookup(keyFor("shared-" + std::to_string(round))));
  for (int p = 0; p < kProcesses; ++p)
    for (int round = 0; round < kRounds; ++round)
      EXPECT_TRUE(cache.lookup(
          keyFor("own-" + std::to_string(p) + "-" + std::to_string(round))));
  ArtifactCacheStats stats = cache.stats();
  EXPECT_EQ(stats.entries, uint64_t(3 + kProcesses * kRounds));
  EXPECT_EQ(stats.temporaries, 0u);
}
