//===- TuningDatabase.cpp - the persistent tuning database ----------------===//

#include "ejk/Store/Tuning/TuningDatabase.h"
#include "ejk/Support/FileIO.h"

#include "ejk/Store/Tuning/JsonUtil.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace ejk;
using namespace ejk::jsonutil;

#ifndef EJK_VERSION_STRING
#define EJK_VERSION_STRING "unknown"
#endif

static constexpr const char *kFormat = "ejk-tuning-db";
static constexpr int kVersion = 1;

std::string ejk::formatConfig(const ConfigValues &config) {
  std::string text;
  for (const auto &[name, value] : config)
    text += (text.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return text;
}

std::string ejk::defaultCacheDirectory() {
  if (const char *dir = std::getenv("EJK_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/ejk";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/ejk";
  return "./.ejk-cache";
}

std::string ejk::compilerVersion() { return EJK_VERSION_STRING; }

std::string ejk::currentDate() {
  std::time_t now = std::time(nullptr);
  std::tm utc;
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

/// mkdir -p.
static bool makeDirectories(const std::string &path, std::string &error) {
  std::string partial;
  std::stringstream stream(path);
  if (!path.empty() && path[0] == '/')
    partial = "/";
  for (std::string part; std::getline(stream, part, '/');) {
    if (part.empty())
      continue;
    partial += part + "/";
    if (::mkdir(partial.c_str(), 0777) != 0 && errno != EEXIST) {
      error =
          "cannot create directory '" + partial + "': " + std::strerror(errno);
      return false;
    }
  }
  return true;
}

static std::string parentOf(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

bool ejk::writeFileAtomically(const std::string &path,
                              const std::string &contents, std::string &error) {
  std::string temp = path + ".tmp-XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    error = "cannot create a temp file next to '" + path +
            "': " + std::strerror(errno);
    return false;
  }
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n =
        ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      error = "cannot write '" + temp + "': " + std::strerror(errno);
      ::close(fd);
      ::unlink(temp.c_str());
      return false;
    }
    written += static_cast<size_t>(n);
  }
  // mkstemp creates 0600; a cache is as readable as any other file.
  ::fchmod(fd, 0644);
  if (::close(fd) != 0 || ::rename(temp.c_str(), path.c_str()) != 0) {
    error = "cannot replace '" + path + "': " + std::strerror(errno);
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

FileLock::~FileLock() {
  if (fd >= 0) {
    ::flock(fd, LOCK_UN);
    ::close(fd);
  }
}

bool FileLock::acquire(const std::string &path, std::string &error) {
  fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = "cannot open lock file '" + path + "': " + std::strerror(errno);
    return false;
  }
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR)
      continue;
    error = "cannot lock '" + path + "': " + std::strerror(errno);
    ::close(fd);
    fd = -1;
    return false;
  }
  return true;
}

/// Reads `path`; a missing file is not an error (`exists` is then false).
/// Reads the database file through the shared non-blocking reader (a FIFO
/// or a device in its place is an error, never a hang); a missing file is
/// no database (`exists` false), not an error.
static bool readWholeFile(const std::string &path, std::string &text,
                          bool &exists, std::string &error) {
  ReadFailure failure = ReadFailure::None;
  exists = true;
  if (readRegularFile(path, text, error, ReadOptions(), &failure))
    return true;
  if (failure == ReadFailure::NotFound) {
    exists = false;
    return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static bool entryFromJson(const json &object, TuningEntry &entry,
                          std::string &error) {
  if (!object.is_object()) {
    error = "an entry must be an object";
    return false;
  }
  auto config = object.find("config");
  if (config == object.end() || !configFromJson(*config, entry.config, error)) {
    if (config == object.end())
      error = "an entry has no 'config'";
    return false;
  }
  if (!numberField(object, "time_ns", entry.timeNs)) {
    error = "an entry has no numeric 'time_ns'";
    return false;
  }
  if (auto runnerUps = object.find("runner_ups"); runnerUps != object.end()) {
    if (!runnerUps->is_array()) {
      error = "'runner_ups' must be an array";
      return false;
    }
    for (const json &item : *runnerUps) {
      TimedConfig timed;
      if (!item.is_object() || !item.contains("config") ||
          !configFromJson(item["config"], timed.config, error) ||
          !numberField(item, "time_ns", timed.timeNs)) {
        error = "a runner-up needs a 'config' and a numeric 'time_ns'";
        return false;
      }
      entry.runnerUps.push_back(std::move(timed));
    }
  }
  entry.compilerVersion = stringField(object, "compiler_version");
  entry.date = stringField(object, "date");
  return true;
}

static json entryToJson(const TuningEntry &entry) {
  json object = json::object();
  object["config"] = configToJson(entry.config);
  object["time_ns"] = entry.timeNs;
  json runnerUps = json::array();
  for (const TimedConfig &timed : entry.runnerUps)
    runnerUps.push_back(
        {{"config", configToJson(timed.config)}, {"time_ns", timed.timeNs}});
  object["runner_ups"] = std::move(runnerUps);
  object["compiler_version"] = entry.compilerVersion;
  object["date"] = entry.date;
  return object;
}

std::string TuningDatabase::serialize(const DeviceFingerprint &fingerprint,
                                      const TuningEntries &entries) {
  json root = json::object();
  root["format"] = kFormat;
  root["version"] = kVersion;
  root["fingerprint_hash"] = fingerprint.hash();
  root["fingerprint"] = fingerprint.text();
  json object = json::object();
  for (const auto &[key, entry] : entries)
    object[key] = entryToJson(entry);
  root["entries"] = std::move(object);
  return root.dump(2) + "\n";
}

/// Parses the file format; `error` says what is wrong with `text`.
static bool parseDatabase(const std::string &text,
                          DeviceFingerprint &fingerprint,
                          TuningEntries &entries, std::string &error) {
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) {
    error = "not valid JSON";
    return false;
  }
  if (stringField(root, "format") != kFormat) {
    error = std::string("not an ejk tuning database (no \"format\": \"") +
            kFormat + "\")";
    return false;
  }
  auto version = root.find("version");
  if (version == root.end() || !version->is_number_integer() ||
      version->get<int64_t>() != kVersion) {
    error = "unsupported tuning database version (expected " +
            std::to_string(kVersion) + ")";
    return false;
  }
  std::string fingerprintError;
  if (!DeviceFingerprint::parse(stringField(root, "fingerprint"), fingerprint,
                                fingerprintError)) {
    error = "bad fingerprint: " + fingerprintError;
    return false;
  }
  if (stringField(root, "fingerprint_hash") != fingerprint.hash()) {
    error = "'fingerprint_hash' does not match its fingerprint";
    return false;
  }
  auto object = root.find("entries");
  if (object == root.end() || !object->is_object()) {
    error = "no 'entries' object";
    return false;
  }
  for (auto it = object->begin(); it != object->end(); ++it) {
    TuningEntry entry;
    std::string entryError;
    if (!entryFromJson(it.value(), entry, entryError)) {
      error = "entry '" + it.key() + "': " + entryError;
      return false;
    }
    entries[it.key()] = std::move(entry);
  }
  return true;
}

bool TuningDatabase::readFile(const std::string &file,
                              DeviceFingerprint &fingerprint,
                              TuningEntries &entries, std::string &error) {
  std::string text, why;
  bool exists = false;
  if (!readWholeFile(file, text, exists, why) || !exists) {
    error = exists ? why : "cannot read '" + file + "'";
    return false;
  }
  if (!parseDatabase(text, fingerprint, entries, why)) {
    error = "'" + file + "': " + why;
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// The database
//===----------------------------------------------------------------------===//

TuningDatabase::TuningDatabase(std::string cacheDir,
                               DeviceFingerprint fingerprint)
    : directory(std::move(cacheDir) + "/tuning"),
      filePath(directory + "/" + fingerprint.hash() + ".json"),
      device(std::move(fingerprint)) {}

/// Renames `path` to the first free `<path>.corrupt-N`.
static std::string setAside(const std::string &path) {
  for (int n = 1; n < 10000; ++n) {
    std::string target = path + ".corrupt-" + std::to_string(n);
    struct stat info;
    if (::stat(target.c_str(), &info) == 0)
      continue;
    if (::rename(path.c_str(), target.c_str()) == 0)
      return target;
    break;
  }
  return "";
}

void TuningDatabase::load(std::vector<std::string> &warnings,
                          bool holdingLock) {
  cached = TuningEntries();
  std::string text, why;
  bool exists = false;
  if (!readWholeFile(filePath, text, exists, why)) {
    warnings.push_back("tuning database: " + why + "; using no tuned configs");
    return;
  }
  if (!exists)
    return;
  DeviceFingerprint fingerprint;
  TuningEntries entries;
  bool ok = parseDatabase(text, fingerprint, entries, why);
  if (ok && fingerprint.text() != device.text()) {
    ok = false;
    why = "it belongs to another device (fingerprint " + fingerprint.hash() +
          ", expected " + device.hash() + ")";
  }
  if (ok) {
    cached = std::move(entries);
    return;
  }
  // Re-check under the lock before moving the file: a writer may have
  // replaced it with a good one since it was read.
  if (!holdingLock) {
    std::string lockError;
    FileLock lock;
    if (lock.acquire(filePath + ".lock", lockError))
      return load(warnings, /*holdingLock=*/true);
  }
  std::string moved = setAside(filePath);
  warnings.push_back("tuning database '" + filePath + "' is unusable (" + why +
                     "); " +
                     (moved.empty() ? std::string("could not set it aside")
                                    : "set aside as '" + moved + "'") +
                     "; using no tuned configs");
}

const TuningEntries &TuningDatabase::entries(std::vector<std::string> &warnings,
                                             bool reload) {
  if (!cached || reload)
    load(warnings, /*holdingLock=*/false);
  return *cached;
}

std::optional<TuningEntry>
TuningDatabase::lookup(const std::string &problemKey,
                       std::vector<std::string> &warnings) {
  const TuningEntries &all = entries(warnings);
  auto it = all.find(problemKey);
  if (it == all.end())
    return std::nullopt;
  return it->second;
}

bool TuningDatabase::store(const TuningEntries &updates, std::string &error,
                           std::vector<std::string> &warnings) {
  if (!makeDirectories(directory, error))
    return false;
  FileLock lock;
  if (!lock.acquire(filePath + ".lock", error))
    return false;
  // Another process may have stored entries since this one last read.
  load(warnings, /*holdingLock=*/true);
  TuningEntries merged = *cached;
  for (const auto &[key, entry] : updates)
    merged[key] = entry;
  if (!writeFileAtomically(filePath, serialize(device, merged), error))
    return false;
  cached = std::move(merged);
  return true;
}

bool TuningDatabase::exportTo(const std::string &file, std::string &error,
                              std::vector<std::string> &warnings) {
  std::string dir = parentOf(file);
  if (!makeDirectories(dir, error))
    return false;
  return writeFileAtomically(file, serialize(device, entries(warnings)), error);
}
