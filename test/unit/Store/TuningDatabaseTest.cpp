//===- TuningDatabaseTest.cpp - the persistent tuning database ------------===//

#include "TuningTestUtil.h"

#include "ejk/Store/Tuning/TuningDatabase.h"

#include "gtest/gtest.h"

#include <sys/wait.h>
#include <unistd.h>

using namespace ejk;
using namespace ejk::test;

namespace {

TuningEntry entry(int64_t blockQ, int64_t blockK, double timeNs) {
  TuningEntry e;
  e.config = {{"block_q", blockQ}, {"block_k", blockK}};
  e.timeNs = timeNs;
  e.runnerUps = {{{{"block_q", 8}, {"block_k", 64}}, timeNs * 1.5}};
  e.compilerVersion = compilerVersion();
  e.date = currentDate();
  return e;
}

TEST(TuningDatabaseTest, FileIsNamedByTheFingerprintHash) {
  TempDir dir;
  TuningDatabase db(dir.path, testFingerprint());
  EXPECT_EQ(db.path(),
            dir.path + "/tuning/" + testFingerprint().hash() + ".json");
}

TEST(TuningDatabaseTest, RoundTrip) {
  TempDir dir;
  std::string error;
  std::vector<std::string> warnings;
  {
    TuningDatabase db(dir.path, testFingerprint());
    ASSERT_TRUE(db.store(
        {{"key-a", entry(16, 128, 1000)}, {"key-b", entry(32, 64, 2500.5)}},
        error, warnings))
        << error;
  }
  TuningDatabase db(dir.path, testFingerprint());
  std::optional<TuningEntry> a = db.lookup("key-a", warnings);
  std::optional<TuningEntry> b = db.lookup("key-b", warnings);
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(a->config, (ConfigValues{{"block_k", 128}, {"block_q", 16}}));
  EXPECT_EQ(a->timeNs, 1000);
  ASSERT_EQ(a->runnerUps.size(), 1u);
  EXPECT_EQ(a->runnerUps[0].config,
            (ConfigValues{{"block_k", 64}, {"block_q", 8}}));
  EXPECT_EQ(a->runnerUps[0].timeNs, 1500);
  EXPECT_EQ(a->compilerVersion, compilerVersion());
  EXPECT_EQ(a->date.size(), std::string("2026-11-22T07:00:00Z").size());
  EXPECT_EQ(b->timeNs, 2500.5);
  EXPECT_FALSE(db.lookup("key-c", warnings));
}

TEST(TuningDatabaseTest, MissingFileHoldsNothing) {
  TempDir dir;
  std::vector<std::string> warnings;
  TuningDatabase db(dir.path, testFingerprint());
  EXPECT_TRUE(db.entries(warnings).empty());
  EXPECT_TRUE(warnings.empty());
  EXPECT_FALSE(exists(db.path()));
}

TEST(TuningDatabaseTest, StoreMergesWhatOthersStoredMeanwhile) {
  TempDir dir;
  std::string error;
  std::vector<std::string> warnings;
  TuningDatabase first(dir.path, testFingerprint());
  TuningDatabase second(dir.path, testFingerprint());
  // `second` reads the empty file before `first` writes.
  EXPECT_TRUE(second.entries(warnings).empty());
  ASSERT_TRUE(first.store({{"k1", entry(16, 64, 10)}}, error, warnings));
  ASSERT_TRUE(second.store({{"k2", entry(8, 64, 20)}}, error, warnings));
  TuningDatabase reader(dir.path, testFingerprint());
  EXPECT_EQ(reader.entries(warnings).size(), 2u);
  // A store replaces the entry of the same key.
  ASSERT_TRUE(first.store({{"k2", entry(32, 256, 5)}}, error, warnings));
  EXPECT_EQ(reader.entries(warnings, /*reload=*/true).at("k2").timeNs, 5);
  EXPECT_EQ(reader.entries(warnings).at("k1").timeNs, 10);
}

TEST(TuningDatabaseTest, ConcurrentWritersFromSeveralProcessesLoseNothing) {
  TempDir dir;
  constexpr int kProcesses = 4, kKeysEach = 25;
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Each store is its own read-merge-write under the lock.
      TuningDatabase db(dir.path, testFingerprint());
      std::string error;
      std::vector<std::string> warnings;
      for (int k = 0; k < kKeysEach; ++k)
        if (!db.store({{"p" + std::to_string(p) + "-k" + std::to_string(k),
                        entry(16, 64, p * 100 + k + 1)}},
                      error, warnings))
          ::_exit(1);
      ::_exit(warnings.empty() ? 0 : 2);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::vector<std::string> warnings;
  TuningDatabase db(dir.path, testFingerprint());
  const TuningEntries &all = db.entries(warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(all.size(), static_cast<size_t>(kProcesses * kKeysEach));
  for (int p = 0; p < kProcesses; ++p)
    for (int k = 0; k < kKeysEach; ++k) {
      auto it = all.find("p" + std::to_string(p) + "-k" + std::to_string(k));
      ASSERT_NE(it, all.end());
      EXPECT_EQ(it->second.timeNs, p * 100 + k + 1);
    }
}

TEST(TuningDatabaseTest, CorruptFileIsReportedAndSetAside) {
  TempDir dir;
  TuningDatabase db(dir.path, testFingerprint());
  std::string error;
  std::vector<std::string> warnings;
  ASSERT_TRUE(db.store({{"k", entry(16, 64, 1)}}, error, warnings));
  writeText(db.path(), "{ this is not json");
  TuningDatabase reader(dir.path, testFingerprint());
  EXPECT_FALSE(reader.lookup("k", warnings));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("is unusable (not valid JSON); set aside as '" +
                             db.path() + ".corrupt-1'"),
            std::string::npos)
      << warnings[0];
  EXPECT_EQ(readText(db.path() + ".corrupt-1"), "{ this is not json");
  EXPECT_FALSE(exists(db.path()));
  // The next corrupt file does not overwrite the first one set aside.
  writeText(db.path(), "[]");
  warnings.clear();
  EXPECT_TRUE(reader.entries(warnings, /*reload=*/true).empty());
  EXPECT_TRUE(exists(db.path() + ".corrupt-2"));
  EXPECT_EQ(readText(db.path() + ".corrupt-1"), "{ this is not json");
  // Storing works again afterwards.
  ASSERT_TRUE(reader.store({{"k2", entry(8, 32, 2)}}, error, warnings));
  TuningDatabase again(dir.path, testFingerprint());
  EXPECT_TRUE(again.lookup("k2", warnings));
}

TEST(TuningDatabaseTest, WellFormedJsonWithBadValuesIsCorrupt) {
  TempDir dir;
  TuningDatabase db(dir.path, testFingerprint());
  std::string text =
      TuningDatabase::serialize(testFingerprint(), {{"k", entry(16, 64, 1)}});
  // A config value of the wrong type must not crash the reader.
  size_t at = text.find("\"block_q\": 16");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 13, "\"block_q\": \"x\"");
  std::vector<std::string> warnings;
  ASSERT_EQ(std::system(("mkdir -p '" + dir.path + "/tuning'").c_str()), 0);
  writeText(db.path(), text);
  EXPECT_FALSE(db.lookup("k", warnings));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("config entry 'block_q' is not a positive "
                             "integer"),
            std::string::npos)
      << warnings[0];
}

TEST(TuningDatabaseTest, FingerprintsAreIsolated) {
  TempDir dir;
  std::string error;
  std::vector<std::string> warnings;
  DeviceFingerprint mine = testFingerprint("mine");
  DeviceFingerprint other = testFingerprint("other");
  TuningDatabase a(dir.path, mine), b(dir.path, other);
  ASSERT_NE(a.path(), b.path());
  ASSERT_TRUE(a.store({{"k", entry(16, 64, 1)}}, error, warnings));
  EXPECT_FALSE(b.lookup("k", warnings));
  EXPECT_TRUE(warnings.empty());
  // A file of another device under this device's name (copied by hand) is
  // foreign: reported, set aside, never used.
  writeText(b.path(), readText(a.path()));
  TuningDatabase fresh(dir.path, other);
  EXPECT_FALSE(fresh.lookup("k", warnings));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("belongs to another device"), std::string::npos)
      << warnings[0];
  EXPECT_TRUE(exists(b.path() + ".corrupt-1"));
  EXPECT_TRUE(a.lookup("k", warnings));
}

TEST(TuningDatabaseTest, ExportAndImport) {
  TempDir dir;
  std::string error;
  std::vector<std::string> warnings;
  TuningDatabase db(dir.path + "/here", testFingerprint());
  ASSERT_TRUE(db.store({{"k", entry(16, 64, 7)}}, error, warnings));
  std::string file = dir.path + "/out/export.json";
  ASSERT_TRUE(db.exportTo(file, error, warnings)) << error;
  DeviceFingerprint fingerprint;
  TuningEntries entries;
  ASSERT_TRUE(TuningDatabase::readFile(file, fingerprint, entries, error))
      << error;
  EXPECT_EQ(fingerprint.text(), testFingerprint().text());
  ASSERT_EQ(entries.count("k"), 1u);
  // Import into another cache: the same device's file there gets it.
  TuningDatabase there(dir.path + "/there", fingerprint);
  ASSERT_TRUE(there.store(entries, error, warnings));
  EXPECT_EQ(there.lookup("k", warnings)->timeNs, 7);
}

TEST(TuningDatabaseTest, ReadFileNamesTheProblem) {
  TempDir dir;
  DeviceFingerprint fingerprint;
  TuningEntries entries;
  std::string error;
  writeText(dir.path + "/x.json", "{\"format\": \"something-else\"}");
  EXPECT_FALSE(TuningDatabase::readFile(dir.path + "/x.json", fingerprint,
                                        entries, error));
  EXPECT_EQ(error, "'" + dir.path +
                       "/x.json': not an ejk tuning database (no \"format\": "
                       "\"ejk-tuning-db\")");
  EXPECT_FALSE(TuningDatabase::readFile(dir.path + "/missing.json", fingerprint,
                                        entries, error));
  EXPECT_EQ(error, "cannot read '" + dir.path + "/missing.json'");
}

TEST(TuningDatabaseTest, FormatConfig) {
  EXPECT_EQ(formatConfig({{"block_q", 16}, {"block_k", 128}}),
            "block_k=128,block_q=16");
}

} // namespace
