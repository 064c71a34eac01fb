//===- Manifest.h - The JSON description of an artifact ---------*- C++ -*-===//
//
// An artifact's manifest lists its entry points: the buffers each takes
// (inputs, then outputs, then runtime-allocated temporaries) and the
// dispatches that run in order over them. Parsing validates all of it, so a
// module that loads never indexes out of range at invoke time.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_MANIFEST_H
#define EJK_LIB_RUNTIME_MANIFEST_H

#include "Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ejk::runtime {

/// The format and version this runtime reads.
constexpr const char *kManifestFormat = "ejk-artifact";
constexpr int64_t kManifestVersion = 1;
/// A manifest file larger than this is refused before it is read: the
/// compiler's are a few KiB.
constexpr uint64_t kMaxManifestBytes = uint64_t(64) << 20;

enum class BufferRole { Input, Output, Temporary };

struct BufferDesc {
  BufferRole role = BufferRole::Input;
  ejk_dtype dtype = EJK_DTYPE_F32;
  std::vector<int64_t> shape;
  /// Elements times element size; checked to fit size_t.
  size_t byteSize = 0;
};

struct DispatchDesc {
  std::string symbol;
  /// Workgroups along x, y, z; each >= 1, product within int64.
  int64_t grid[3] = {1, 1, 1};
  /// Indices into the entry's buffers, all in range.
  std::vector<size_t> bindings;
  /// Cost estimates from the compiler (0 when absent).
  uint64_t flops = 0;
  uint64_t bytes = 0;

  // Target "vulkan" only (see docs/runtime.md).
  /// The SPIR-V file (relative to the manifest's directory unless absolute)
  /// and its GLCompute entry point; both required.
  std::string spirv;
  std::string entryPoint;
  /// The workgroup size the SPIR-V declares; 0s when not given.
  uint32_t workgroupSize[3] = {0, 0, 0};
  /// Workgroup (shared) memory the kernel uses; 0 when not given.
  uint64_t sharedMemoryBytes = 0;
  /// The subgroup size the kernel was built for; 0 when it does not depend
  /// on one (not given).
  uint64_t subgroupSize = 0;
  /// Push-constant bytes, a multiple of 4 (empty: none).
  std::vector<uint8_t> pushConstants;
  /// Device features the kernel needs ("float16", "cooperative_matrix"...).
  std::vector<std::string> requirements;
};

struct EntryDesc {
  std::string name;
  /// Inputs, then outputs, then temporaries.
  std::vector<BufferDesc> buffers;
  size_t numInputs = 0;
  size_t numOutputs = 0;
  std::vector<DispatchDesc> dispatches;

  /// The buffer of input (\p isOutput false) or output number \p index.
  const BufferDesc &arg(bool isOutput, size_t index) const {
    return buffers[(isOutput ? numInputs : 0) + index];
  }
};

struct Manifest {
  int64_t version = 0;
  std::string target;
  std::string compilerVersion;
  /// As written in the manifest (relative to its directory unless absolute);
  /// required for target "cpu", "" when a "vulkan" manifest has none.
  std::string library;
  std::vector<EntryDesc> entries;
};

/// Parses and validates manifest \p text. Messages start with \p origin
/// (e.g. "manifest '/path/a.json'") and name the entry and field at fault.
Status parseManifest(const std::string &text, const std::string &origin,
                     Manifest &out);

/// Reads and parses the manifest file at \p path: EJK_ERROR_NOT_FOUND when
/// it does not exist, EJK_ERROR_IO when it cannot be read, is not a regular
/// file (a FIFO or a device is refused without blocking) or is larger than
/// kMaxManifestBytes.
Status readManifestFile(const std::string &path, Manifest &out);

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_MANIFEST_H
