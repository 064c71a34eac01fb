//===- Fingerprint.h - device fingerprints ----------------------*- C++ -*-===//
//
// A fingerprint identifies the device that code is compiled or tuned for.
// Caches (compiled artifacts, the tuning database) are keyed by its hash, so
// a cache moved to other hardware never serves code or configs made for
// something else. MLIR-free: the runtime and the runner compute it too.
//
// Text form (also the file form that `--fingerprint FILE` reads): one
// `key=value` per line, keys sorted, `kind` first:
//
//   kind=cpu
//   cores=2
//   isa=avx,avx2,avx512f,fma,...
//   ...
//
//===----------------------------------------------------------------------===//

#ifndef EJK_SUPPORT_FINGERPRINT_H
#define EJK_SUPPORT_FINGERPRINT_H

#include <map>
#include <string>

namespace ejk {

struct DeviceFingerprint {
  /// "cpu" or "vulkan".
  std::string kind;
  /// Every other field, by name.
  std::map<std::string, std::string> fields;

  /// The value of `key`, or "" when absent.
  std::string get(const std::string &key) const;
  /// The stable text form described above.
  std::string text() const;
  /// 16 lowercase hex digits: FNV-1a (64-bit) of text().
  std::string hash() const;

  /// Parses the text form (lines starting with '#' are comments). Fails,
  /// with a message naming the line, on anything else.
  static bool parse(const std::string &text, DeviceFingerprint &out,
                    std::string &error);
};

/// The fingerprint of the CPU this process runs on: vendor, model name,
/// family/model/stepping, the ISA extensions code generation cares about,
/// the widest vector width, logical cores and cache sizes (from
/// /proc/cpuinfo and /sys; fields that cannot be read are left out).
DeviceFingerprint hostCpuFingerprint();

} // namespace ejk

#endif // EJK_SUPPORT_FINGERPRINT_H
