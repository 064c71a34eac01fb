//===- TuningDatabase.h - the persistent tuning database --------*- C++ -*-===//
//
// Tuned configs survive the process in one JSON file per device fingerprint,
// `<cache>/tuning/<fingerprint hash>.json`, keyed by the op's problem key.
// MLIR-free, so the runner side and the tests use it without the compiler.
//
// Writers take an exclusive flock on `<file>.lock`, re-read the file, merge
// their entries in and replace the file through a temp file + rename, so
// readers never see a half-written file and concurrent tuners lose nothing.
// A file that does not parse, or that belongs to another fingerprint, is
// reported, renamed to `<file>.corrupt-N` and treated as empty: a damaged
// cache costs a re-tune, never a failed compile.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_STORE_TUNING_TUNINGDATABASE_H
#define EJK_STORE_TUNING_TUNINGDATABASE_H

#include "ejk/Support/Fingerprint.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ejk {

/// A config as plain data: entry name -> value (the `#ejk.config` entries).
using ConfigValues = std::map<std::string, int64_t>;

/// "block_k=128,block_q=16": the compact text form used in tables and
/// messages.
std::string formatConfig(const ConfigValues &config);

/// A config and its measured kernel time.
struct TimedConfig {
  ConfigValues config;
  double timeNs = 0;
};

/// What the database holds for one problem key.
struct TuningEntry {
  /// The winner and its median kernel time.
  ConfigValues config;
  double timeNs = 0;
  /// The other correct candidates, fastest first.
  std::vector<TimedConfig> runnerUps;
  /// The compiler that tuned it and when (ISO 8601, UTC).
  std::string compilerVersion;
  std::string date;
};

/// Entries by problem key.
using TuningEntries = std::map<std::string, TuningEntry>;

/// `$EJK_CACHE_DIR`, else `$XDG_CACHE_HOME/ejk`, else `$HOME/.cache/ejk`
/// (else "./.ejk-cache" when even HOME is unset).
std::string defaultCacheDirectory();

/// The compiler version recorded in new entries.
std::string compilerVersion();

/// The current UTC time as 2026-11-22T07:00:00Z.
std::string currentDate();

/// The tuning database of one device.
class TuningDatabase {
public:
  /// The database of `fingerprint` under `<cacheDir>/tuning/`.
  TuningDatabase(std::string cacheDir, DeviceFingerprint fingerprint);

  /// `<cacheDir>/tuning/<fingerprint hash>.json`.
  const std::string &path() const { return filePath; }
  const DeviceFingerprint &fingerprint() const { return device; }

  /// The entries on disk. Read once and kept; `reload` reads again. A
  /// missing file holds no entries; a corrupt or foreign one is reported in
  /// `warnings`, set aside and holds none.
  const TuningEntries &entries(std::vector<std::string> &warnings,
                               bool reload = false);

  /// The entry of `problemKey`, if any.
  std::optional<TuningEntry> lookup(const std::string &problemKey,
                                    std::vector<std::string> &warnings);

  /// Merges `updates` into the file (an update replaces the entry of the
  /// same key; other entries are kept), under the lock. Fails with a
  /// message when the directory or the file cannot be written; the file on
  /// disk is then unchanged.
  bool store(const TuningEntries &updates, std::string &error,
             std::vector<std::string> &warnings);

  /// Writes the entries to `file` in the database format (with this
  /// device's fingerprint), atomically.
  bool exportTo(const std::string &file, std::string &error,
                std::vector<std::string> &warnings);

  /// Reads a database file (an export, or a file of another cache) into
  /// its fingerprint and entries. Fails with a message naming the file and
  /// the problem.
  static bool readFile(const std::string &file, DeviceFingerprint &fingerprint,
                       TuningEntries &entries, std::string &error);

  /// Serializes `entries` of `fingerprint` to the file format.
  static std::string serialize(const DeviceFingerprint &fingerprint,
                               const TuningEntries &entries);

private:
  /// Loads the file into `cached`; called with or without the lock.
  void load(std::vector<std::string> &warnings, bool holdingLock);

  std::string directory;
  std::string filePath;
  DeviceFingerprint device;
  std::optional<TuningEntries> cached;
};

/// Writes `contents` to `path` through a unique temp file in the same
/// directory and a rename. Fails with a message; `path` is then unchanged.
bool writeFileAtomically(const std::string &path, const std::string &contents,
                         std::string &error);

/// An exclusive flock on a lock file, released by the destructor.
class FileLock {
public:
  FileLock() = default;
  ~FileLock();
  FileLock(const FileLock &) = delete;
  FileLock &operator=(const FileLock &) = delete;
  /// Creates `path` if needed and blocks until the lock is held.
  bool acquire(const std::string &path, std::string &error);

private:
  int fd = -1;
};

} // namespace ejk

#endif // EJK_STORE_TUNING_TUNINGDATABASE_H
