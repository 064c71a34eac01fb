//===- Fingerprint.cpp - device fingerprints ------------------------------===//

#include "ejk/Support/Fingerprint.h"

#include "ejk/Support/FileIO.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

using namespace ejk;

std::string DeviceFingerprint::get(const std::string &key) const {
  if (key == "kind")
    return kind;
  auto it = fields.find(key);
  return it == fields.end() ? std::string() : it->second;
}

std::string DeviceFingerprint::text() const {
  std::string out = "kind=" + kind + "\n";
  for (const auto &[key, value] : fields)
    out += key + "=" + value + "\n";
  return out;
}

std::string DeviceFingerprint::hash() const {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text()) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof(buffer), "%016llx",
                static_cast<unsigned long long>(h));
  return buffer;
}

bool DeviceFingerprint::parse(const std::string &text, DeviceFingerprint &out,
                              std::string &error) {
  DeviceFingerprint result;
  std::istringstream stream(text);
  std::string line;
  int number = 0;
  while (std::getline(stream, line)) {
    ++number;
    // '#' lines are comments, e.g. the hash `ejk-run --print-fingerprint`
    // shows above the fields.
    if (line.empty() || line[0] == '#')
      continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0) {
      error = "fingerprint line " + std::to_string(number) +
              " is not key=value: '" + line + "'";
      return false;
    }
    std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "kind")
      result.kind = value;
    else if (!result.fields.emplace(key, value).second) {
      error = "fingerprint line " + std::to_string(number) + " repeats key '" +
              key + "'";
      return false;
    }
  }
  if (result.kind != "cpu" && result.kind != "vulkan") {
    error = "fingerprint has no kind=cpu or kind=vulkan line";
    return false;
  }
  out = std::move(result);
  return true;
}

/// Value of the first `key : value` line of /proc/cpuinfo.
static std::string cpuinfoField(const std::string &cpuinfo,
                                const std::string &key) {
  std::istringstream stream(cpuinfo);
  std::string line;
  while (std::getline(stream, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos)
      continue;
    std::string name = line.substr(0, colon);
    name.erase(name.find_last_not_of(" \t") + 1);
    if (name != key)
      continue;
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    return value;
  }
  return "";
}

static std::string readFile(const std::string &path) {
  // /proc files report st_size 0: readRegularFile reads to the end, bounded.
  ReadOptions options;
  options.maxBytes = uint64_t(16) << 20;
  std::string text, error;
  if (!readRegularFile(path, text, error, options))
    return "";
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  return text;
}

DeviceFingerprint ejk::hostCpuFingerprint() {
  DeviceFingerprint fp;
  fp.kind = "cpu";
  std::string cpuinfo = readFile("/proc/cpuinfo");
  auto put = [&](const std::string &key, const std::string &value) {
    if (!value.empty())
      fp.fields[key] = value;
  };
  put("vendor", cpuinfoField(cpuinfo, "vendor_id"));
  put("model_name", cpuinfoField(cpuinfo, "model name"));
  put("family", cpuinfoField(cpuinfo, "cpu family"));
  put("model", cpuinfoField(cpuinfo, "model"));
  put("stepping", cpuinfoField(cpuinfo, "stepping"));

  // Only the extensions code generation uses: other flags (mitigations,
  // hypervisor bits) differ between identical machines.
  static const char *const kIsa[] = {
      "sse4_2",      "avx",         "avx2",        "fma",      "f16c",
      "avx512f",     "avx512bw",    "avx512dq",    "avx512vl", "avx512cd",
      "avx512_bf16", "avx512_fp16", "avx512_vnni", "avx_vnni", "amx_tile",
      "amx_bf16",    "amx_int8",    "asimd",       "sve",      "sve2"};
  std::set<std::string> flags;
  std::istringstream flagStream(cpuinfoField(cpuinfo, "flags") + " " +
                                cpuinfoField(cpuinfo, "Features"));
  for (std::string flag; flagStream >> flag;)
    flags.insert(flag);
  std::string isa;
  for (const char *name : kIsa)
    if (flags.count(name))
      isa += (isa.empty() ? "" : ",") + std::string(name);
  put("isa", isa);
  put("vector_bits", flags.count("avx512f")                      ? "512"
                     : flags.count("avx2") && flags.count("fma") ? "256"
                                                                 : "128");
  put("cores",
      std::to_string(std::max(1u, std::thread::hardware_concurrency())));

  // Cache sizes of cpu0, by level (data and unified caches).
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index);
    std::string level = readFile(dir + "/level");
    std::string type = readFile(dir + "/type");
    std::string size = readFile(dir + "/size");
    if (level.empty() || size.empty())
      continue;
    if (type == "Instruction")
      continue;
    put("l" + level + "_cache", size);
  }
  return fp;
}
