//===- SourceIndex.cpp - artifacts by source file and flags ---------------===//
//
// An index file is one header line, `ejk-source-index 1 <sha256>`, where the
// hash covers the JSON body that follows: a torn or edited file is a miss,
// never a wrong signature (which would size the buffers of the run).
//
//===----------------------------------------------------------------------===//

#include "ejk/Store/Artifacts/SourceIndex.h"

#include "ejk/Runtime/ejk_runtime.h"
#include "ejk/Store/Tuning/TuningDatabase.h"
#include "ejk/Support/FileIO.h"
#include "ejk/Support/Sha256.h"

#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

using namespace ejk;

namespace {
constexpr const char *kHeader = "ejk-source-index 1 ";

std::string indexDirectory(const std::string &artifactsDir) {
  return artifactsDir + "/" + kSourceIndexDirectory;
}

bool isSourceKeyName(const std::string &name) {
  return name.size() == 64 &&
         name.find_first_not_of("0123456789abcdef") == std::string::npos;
}

/// Adds a length-prefixed field, so that no two different inputs hash the
/// same byte stream.
void addField(Sha256 &hasher, const std::string &field) {
  hasher.update(std::to_string(field.size()) + ":");
  hasher.update(field);
}

/// Adds the contents of \p path, or a marker when it does not exist. A
/// FIFO or a device is an error, never a blocking read: the front then
/// leaves the file to the compiling tool.
bool addFile(Sha256 &hasher, const std::string &path, std::string &error) {
  std::string contents;
  ReadFailure failure = ReadFailure::None;
  if (!readRegularFile(path, contents, error, ReadOptions(), &failure)) {
    if (failure != ReadFailure::NotFound)
      return false;
    error.clear();
    addField(hasher, "absent");
    return true;
  }
  addField(hasher, "file " + sha256Hex(contents));
  return true;
}

nlohmann::json toJson(const std::vector<TensorSpec> &specs, bool inputs) {
  nlohmann::json list = nlohmann::json::array();
  for (const TensorSpec &spec : specs) {
    nlohmann::json item = {{"dtype", spec.dtype}, {"shape", spec.shape}};
    if (inputs) {
      item["random"] = {::ejk::distributionKindName(spec.random.kind),
                        spec.random.first, spec.random.second};
      if (!spec.random.name.empty())
        item["random"].push_back(spec.random.name);
    }
    list.push_back(std::move(item));
  }
  return list;
}

bool fromJson(const nlohmann::json &list, bool inputs,
              std::vector<TensorSpec> &specs) {
  if (!list.is_array())
    return false;
  for (const nlohmann::json &item : list) {
    if (!item.is_object() || !item.contains("dtype") ||
        !item["dtype"].is_string() || !item.contains("shape") ||
        !item["shape"].is_array())
      return false;
    TensorSpec spec;
    spec.dtype = item["dtype"].get<std::string>();
    for (const nlohmann::json &d : item["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0)
        return false;
      spec.shape.push_back(d.get<int64_t>());
    }
    if (inputs) {
      const nlohmann::json *random =
          item.contains("random") ? &item["random"] : nullptr;
      // [kind, first, second] and, when the op names the operand, its name.
      if (!random || !random->is_array() ||
          (random->size() != 3 && random->size() != 4) ||
          !(*random)[0].is_string() || !(*random)[1].is_number() ||
          !(*random)[2].is_number() ||
          (random->size() == 4 && !(*random)[3].is_string()))
        return false;
      if (random->size() == 4)
        spec.random.name = (*random)[3].get<std::string>();
      if (!::ejk::parseDistributionKind((*random)[0].get<std::string>(),
                                        spec.random.kind))
        return false;
      spec.random.first = (*random)[1].get<float>();
      spec.random.second = (*random)[2].get<float>();
    }
    specs.push_back(std::move(spec));
  }
  return true;
}
} // namespace

bool ejk::runtimeDeviceFingerprint(const std::string &target,
                                   DeviceFingerprint &fingerprint,
                                   std::string &error) {
  if (target == "cpu") {
    fingerprint = hostCpuFingerprint();
    return true;
  }
  ejk_device *device = nullptr;
  if (ejk_device_create(target.c_str(), &device) != EJK_OK) {
    error = ejk_last_error();
    return false;
  }
  size_t length = 0;
  std::string text;
  bool ok = ejk_device_fingerprint(device, nullptr, 0, &length) == EJK_OK;
  if (ok) {
    text.resize(length + 1);
    ok = ejk_device_fingerprint(device, text.data(), text.size(), &length) ==
         EJK_OK;
    text.resize(length);
  }
  if (!ok)
    error = ejk_last_error();
  ejk_device_destroy(device);
  if (!ok)
    return false;
  std::string why;
  if (!DeviceFingerprint::parse(text, fingerprint, why)) {
    error = "the " + target + " device's fingerprint does not parse: " + why;
    return false;
  }
  return true;
}

bool ejk::computeSourceKey(const SourceKeyRequest &request,
                           const DeviceFingerprint &device, std::string &key,
                           std::string &error) {
  Sha256 hasher;
  addField(hasher, "ejk-source-key-v1");
  addField(hasher, artifactCompilerVersion());
  addField(hasher, request.target);
  addField(hasher, request.entry);
  addField(hasher, std::to_string(request.vectorBits));
  addField(hasher, device.text());
  const char *policy = std::getenv("EJK_AUTOTUNE_POLICY");
  addField(hasher, policy ? std::string("policy ") + policy : "no policy");
  // The tiers that can answer before the heuristic: the overlay and the
  // device's tuning database.
  if (request.overlayPath.empty())
    addField(hasher, "no overlay");
  else if (!addFile(hasher, request.overlayPath, error))
    return false;
  TuningDatabase database(defaultCacheDirectory(), device);
  if (!addFile(hasher, database.path(), error))
    return false;
  // The input last: the file to read is named by the caller.
  if (!addFile(hasher, request.inputPath, error))
    return false;
  key = Sha256::hex(hasher.final());
  return true;
}

bool ejk::readSourceIndex(const std::string &artifactsDir,
                          const std::string &sourceKey,
                          SourceIndexRecord &record, std::string &why) {
  why.clear();
  if (artifactsDir.empty() || !isSourceKeyName(sourceKey))
    return false;
  std::string directory = indexDirectory(artifactsDir);
  std::string path = directory + "/" + sourceKey;
  struct stat info;
  if (lstat(path.c_str(), &info) != 0)
    return false;
  auto reject = [&](const std::string &reason) {
    why = "source index entry '" + path + "' not used: " + reason;
    return false;
  };
  std::string unused;
  if (!isPrivateDirectory(artifactsDir, unused) ||
      !isPrivateDirectory(directory, unused))
    return reject(unused);
  if (!S_ISREG(info.st_mode) || info.st_uid != geteuid() ||
      (info.st_mode & 077))
    return reject("not a private regular file of this user");
  std::string text;
  if (!readCacheFile(path, text, unused, 1 << 20))
    return reject(unused);
  size_t header = std::strlen(kHeader);
  size_t newline = text.find('\n');
  if (text.compare(0, header, kHeader) != 0 || newline != header + 64)
    return reject("not an index entry of this version");
  std::string body = text.substr(newline + 1);
  if (text.compare(header, 64, sha256Hex(body)) != 0)
    return reject("it does not match its hash");
  nlohmann::json json = nlohmann::json::parse(body, nullptr, false);
  auto field = [&](const char *name) -> std::string {
    auto it = json.find(name);
    return it != json.end() && it->is_string() ? it->get<std::string>() : "";
  };
  if (json.is_discarded() || !json.is_object() ||
      field("source_key") != sourceKey || !json.contains("signature") ||
      !json["signature"].is_object())
    return reject("malformed");
  record = SourceIndexRecord();
  record.sourceKey = sourceKey;
  record.artifact.hash = field("artifact_key");
  record.artifact.target = field("target");
  record.artifact.fingerprint = field("fingerprint");
  record.artifact.compilerVersion = field("compiler_version");
  record.entry = field("entry");
  const nlohmann::json &signature = json["signature"];
  if (!isArtifactKeyName(record.artifact.hash) || record.entry.empty() ||
      !signature.contains("inputs") || !signature.contains("results") ||
      !fromJson(signature["inputs"], true, record.signature.inputs) ||
      !fromJson(signature["results"], false, record.signature.results))
    return reject("malformed");
  return true;
}

bool ejk::writeSourceIndex(const std::string &artifactsDir,
                           const SourceIndexRecord &record,
                           std::string &error) {
  if (!isSourceKeyName(record.sourceKey)) {
    error = "bad source key '" + record.sourceKey + "'";
    return false;
  }
  std::string directory = indexDirectory(artifactsDir);
  if (mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) {
    error = "cannot create '" + directory + "': " + std::strerror(errno);
    return false;
  }
  if (!isPrivateDirectory(artifactsDir, error) ||
      !isPrivateDirectory(directory, error))
    return false;
  nlohmann::json json = {
      {"source_key", record.sourceKey},
      {"artifact_key", record.artifact.hash},
      {"target", record.artifact.target},
      {"fingerprint", record.artifact.fingerprint},
      {"compiler_version", record.artifact.compilerVersion},
      {"entry", record.entry},
      {"signature",
       {{"inputs", toJson(record.signature.inputs, true)},
        {"results", toJson(record.signature.results, false)}}}};
  std::string body = json.dump(1) + "\n";
  std::string text = kHeader + sha256Hex(body) + "\n" + body;

  std::string temp = directory + "/.tmp-XXXXXX";
  int fd = mkstemp(temp.data());
  if (fd < 0) {
    error =
        "cannot create a file in '" + directory + "': " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += size_t(n);
  }
  std::string path = directory + "/" + record.sourceKey;
  // mkstemp creates the file 0600.
  if (close(fd) != 0 || done != text.size() ||
      rename(temp.c_str(), path.c_str()) != 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    unlink(temp.c_str());
    return false;
  }
  return true;
}
