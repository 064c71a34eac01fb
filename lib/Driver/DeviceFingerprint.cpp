//===- DeviceFingerprint.cpp - the device a tool compiles for -------------===//

#include "ejk/Driver/DeviceFingerprint.h"

#include "ejk/Store/Artifacts/SourceIndex.h"
#include "ejk/Support/FileIO.h"

#include <fstream>
#include <sstream>

using namespace mlir;
using namespace mlir::ejk;

bool mlir::ejk::vulkanDeviceFingerprint(::ejk::DeviceFingerprint &fingerprint,
                                        std::string &error) {
  return ::ejk::runtimeDeviceFingerprint("vulkan", fingerprint, error);
}

bool mlir::ejk::isDeviceOfThisMachine(
    const ::ejk::DeviceFingerprint &fingerprint) {
  if (fingerprint.kind == "cpu")
    return fingerprint.text() == ::ejk::hostCpuFingerprint().text();
  ::ejk::DeviceFingerprint local;
  std::string error;
  return fingerprint.kind == "vulkan" &&
         vulkanDeviceFingerprint(local, error) &&
         local.text() == fingerprint.text();
}

bool mlir::ejk::readFingerprintFile(const std::string &path,
                                    ::ejk::DeviceFingerprint &fingerprint,
                                    std::string &error) {
  ::ejk::ReadOptions options;
  options.maxBytes = uint64_t(1) << 20;
  std::string text, why;
  if (!::ejk::readRegularFile(path, text, why, options)) {
    error = "cannot read fingerprint file: " + why;
    return false;
  }
  if (!::ejk::DeviceFingerprint::parse(text, fingerprint, why)) {
    error = "fingerprint file '" + path + "': " + why;
    return false;
  }
  return true;
}

bool mlir::ejk::fingerprintForTarget(const std::string &target,
                                     const std::string &file,
                                     ::ejk::DeviceFingerprint &fingerprint,
                                     std::string &error) {
  if (!file.empty()) {
    if (!readFingerprintFile(file, fingerprint, error))
      return false;
    if (fingerprint.kind != target) {
      error = "fingerprint file '" + file + "' is of a " + fingerprint.kind +
              " device, not " + target;
      return false;
    }
    return true;
  }
  if (target == "cpu") {
    fingerprint = ::ejk::hostCpuFingerprint();
    return true;
  }
  if (!vulkanDeviceFingerprint(fingerprint, error)) {
    error = "cannot compile for the Vulkan device here: " + error +
            " (give --fingerprint FILE to compile ahead of time for a "
            "device that is not here)";
    return false;
  }
  return true;
}
