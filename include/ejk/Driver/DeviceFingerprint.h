//===- DeviceFingerprint.h - the device a tool compiles for -----*- C++ -*-===//
//
// Where ejkc and ejk-run get the fingerprint of the device they compile
// for: the Vulkan device the runtime would run on, or a saved fingerprint
// file (ahead-of-time compilation for a device that is not here).
//
//===----------------------------------------------------------------------===//

#ifndef EJK_DRIVER_DEVICEFINGERPRINT_H
#define EJK_DRIVER_DEVICEFINGERPRINT_H

#include "ejk/Support/Fingerprint.h"

#include <string>

namespace mlir::ejk {

/// The fingerprint of the Vulkan device `ejk_device_create("vulkan")` picks
/// (EJK_VULKAN_DEVICE selects one). Fails with the runtime's message (no
/// loader, no device, no match) in `error`.
bool vulkanDeviceFingerprint(::ejk::DeviceFingerprint &fingerprint,
                             std::string &error);

/// Whether `fingerprint` is a device of this machine that the runtime
/// opens: the host CPU, or the Vulkan device `vulkanDeviceFingerprint`
/// describes.
bool isDeviceOfThisMachine(const ::ejk::DeviceFingerprint &fingerprint);

/// Reads a fingerprint file (the text form of ejk/Support/Fingerprint.h).
bool readFingerprintFile(const std::string &path,
                         ::ejk::DeviceFingerprint &fingerprint,
                         std::string &error);

/// The fingerprint of `target` ("cpu" or "vulkan"): from `file` when it is
/// not empty (its kind must be the target), else of this machine's device.
bool fingerprintForTarget(const std::string &target, const std::string &file,
                          ::ejk::DeviceFingerprint &fingerprint,
                          std::string &error);

} // namespace mlir::ejk

#endif // EJK_DRIVER_DEVICEFINGERPRINT_H
