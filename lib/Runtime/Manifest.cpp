//===- Manifest.cpp - The JSON description of an artifact -----------------===//

#include "Manifest.h"
#include "DType.h"

// The runtime is built without exceptions: nlohmann-json must not throw, and
// every access below checks the type first.
#define JSON_NOEXCEPTION
#include <nlohmann/json.hpp>

#include "ejk/Support/FileIO.h"

#include <limits>
#include <set>

namespace ejk::runtime {

namespace {

using Json = nlohmann::json;
using ::ejk::ReadFailure;
using ::ejk::ReadOptions;
using ::ejk::readRegularFile;

/// Reads an integral JSON number into int64; false for anything else
/// (floats, booleans, values beyond int64).
bool getInt64(const Json &value, int64_t &out) {
  if (value.is_number_unsigned()) {
    uint64_t unsignedValue = value.get<uint64_t>();
    if (unsignedValue > uint64_t(std::numeric_limits<int64_t>::max()))
      return false;
    out = int64_t(unsignedValue);
    return true;
  }
  if (value.is_number_integer()) {
    out = value.get<int64_t>();
    return true;
  }
  return false;
}

/// The member \p key of \p object, or nullptr.
const Json *findMember(const Json &object, const char *key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

std::string quote(const std::string &text) { return "'" + text + "'"; }

/// Builds messages "<origin>: <where>: <what>".
class Diagnoser {
public:
  explicit Diagnoser(std::string origin) : origin_(std::move(origin)) {}

  Status error(const std::string &where, const std::string &what) const {
    return Status::format(origin_ + ": " +
                          (where.empty() ? what : where + ": " + what));
  }

  /// Fetches required member \p key of \p object.
  Status require(const Json &object, const char *key, const std::string &where,
                 const Json *&out) const {
    out = findMember(object, key);
    if (!out)
      return error(where, std::string("missing '") + key + "'");
    return Status::success();
  }

  /// Fetches required string member \p key.
  Status requireString(const Json &object, const char *key,
                       const std::string &where, std::string &out) const {
    const Json *value = nullptr;
    if (Status status = require(object, key, where, value); !status)
      return status;
    if (!value->is_string())
      return error(where, std::string("'") + key + "' must be a string");
    out = value->get<std::string>();
    return Status::success();
  }

  /// Fetches optional non-negative integer member \p key (0 when absent).
  Status optionalCount(const Json &object, const char *key,
                       const std::string &where, uint64_t &out) const {
    out = 0;
    const Json *value = findMember(object, key);
    if (!value)
      return Status::success();
    int64_t number = 0;
    if (!getInt64(*value, number) || number < 0)
      return error(where,
                   std::string("'") + key + "' must be a non-negative integer");
    out = uint64_t(number);
    return Status::success();
  }

private:
  std::string origin_;
};

Status parseBuffer(const Diagnoser &diag, const Json &json,
                   const std::string &where, BufferDesc &buffer) {
  if (!json.is_object())
    return diag.error(where, "must be an object");

  std::string role;
  if (Status status = diag.requireString(json, "role", where, role); !status)
    return status;
  if (role == "input")
    buffer.role = BufferRole::Input;
  else if (role == "output")
    buffer.role = BufferRole::Output;
  else if (role == "temporary")
    buffer.role = BufferRole::Temporary;
  else
    return diag.error(where, "'role' must be 'input', 'output' or "
                             "'temporary', got " +
                                 quote(role));

  std::string dtype;
  if (Status status = diag.requireString(json, "dtype", where, dtype); !status)
    return status;
  if (!parseDtype(dtype, buffer.dtype))
    return diag.error(where, "unknown 'dtype' " + quote(dtype) +
                                 " (expected one of " + dtypeSpellings() + ")");

  const Json *shape = nullptr;
  if (Status status = diag.require(json, "shape", where, shape); !status)
    return status;
  if (!shape->is_array())
    return diag.error(where, "'shape' must be an array of integers");
  if (shape->size() > EJK_MAX_RANK)
    return diag.error(
        where, "'shape' has rank " + std::to_string(shape->size()) +
                   ", more than the maximum " + std::to_string(EJK_MAX_RANK));
  // Size the product in elements first, then in bytes, watching for
  // overflow at each step: a huge shape must fail here, not in malloc.
  uint64_t bytes = dtypeSize(buffer.dtype);
  for (size_t i = 0; i < shape->size(); ++i) {
    int64_t extent = 0;
    if (!getInt64((*shape)[i], extent) || extent < 0)
      return diag.error(where, "'shape' dim " + std::to_string(i) +
                                   " must be a non-negative integer");
    buffer.shape.push_back(extent);
    if (extent != 0 &&
        bytes > std::numeric_limits<size_t>::max() / uint64_t(extent))
      return diag.error(where, "the byte size of 'shape' overflows");
    bytes *= uint64_t(extent);
  }
  buffer.byteSize = size_t(bytes);
  return Status::success();
}

/// The fields of a dispatch for target "vulkan". "spirv" and "entry_point"
/// are required, but checked when a Vulkan device loads the module, so that
/// loading on the wrong device reports the target first.
Status parseVulkanDispatch(const Diagnoser &diag, const Json &json,
                           const std::string &where, DispatchDesc &dispatch) {
  for (auto [key, field] : {std::pair{"spirv", &dispatch.spirv},
                            std::pair{"entry_point", &dispatch.entryPoint}}) {
    if (!findMember(json, key))
      continue;
    if (Status status = diag.requireString(json, key, where, *field); !status)
      return status;
    if (field->empty())
      return diag.error(where, std::string("'") + key + "' is empty");
  }
  if (const Json *size = findMember(json, "workgroup_size")) {
    if (!size->is_array() || size->size() != 3)
      return diag.error(where, "'workgroup_size' must be an array of 3 "
                               "integers");
    for (size_t i = 0; i < 3; ++i) {
      int64_t extent = 0;
      if (!getInt64((*size)[i], extent) || extent < 1 || extent > 0xffffffffll)
        return diag.error(where, "'workgroup_size' dim " + std::to_string(i) +
                                     " must be an integer in [1, 2^32)");
      dispatch.workgroupSize[i] = uint32_t(extent);
    }
  }
  if (Status status = diag.optionalCount(json, "shared_memory_bytes", where,
                                         dispatch.sharedMemoryBytes);
      !status)
    return status;
  if (Status status = diag.optionalCount(json, "subgroup_size", where,
                                         dispatch.subgroupSize);
      !status)
    return status;
  if (const Json *bytes = findMember(json, "push_constants")) {
    if (!bytes->is_array())
      return diag.error(where, "'push_constants' must be an array of bytes");
    for (size_t i = 0; i < bytes->size(); ++i) {
      int64_t byte = 0;
      if (!getInt64((*bytes)[i], byte) || byte < 0 || byte > 255)
        return diag.error(where, "'push_constants' element " +
                                     std::to_string(i) +
                                     " must be an integer in [0, 255]");
      dispatch.pushConstants.push_back(uint8_t(byte));
    }
    if (dispatch.pushConstants.size() % 4 != 0)
      return diag.error(where,
                        "'push_constants' has " +
                            std::to_string(dispatch.pushConstants.size()) +
                            " bytes, not a multiple of 4");
  }
  if (const Json *needs = findMember(json, "requires")) {
    if (!needs->is_array())
      return diag.error(where, "'requires' must be an array of strings");
    for (const Json &name : *needs) {
      if (!name.is_string())
        return diag.error(where, "'requires' must be an array of strings");
      dispatch.requirements.push_back(name.get<std::string>());
    }
  }
  return Status::success();
}

Status parseDispatch(const Diagnoser &diag, const Json &json,
                     const std::string &where, size_t numBuffers, bool vulkan,
                     DispatchDesc &dispatch) {
  if (!json.is_object())
    return diag.error(where, "must be an object");
  if (Status status =
          diag.requireString(json, "symbol", where, dispatch.symbol);
      !status)
    return status;
  if (dispatch.symbol.empty())
    return diag.error(where, "'symbol' is empty");
  std::string named = where + " (" + quote(dispatch.symbol) + ")";

  const Json *grid = nullptr;
  if (Status status = diag.require(json, "grid", named, grid); !status)
    return status;
  if (!grid->is_array() || grid->size() != 3)
    return diag.error(named, "'grid' must be an array of 3 integers");
  uint64_t workgroups = 1;
  for (size_t i = 0; i < 3; ++i) {
    int64_t extent = 0;
    if (!getInt64((*grid)[i], extent) || extent < 1)
      return diag.error(named, "'grid' dim " + std::to_string(i) +
                                   " must be an integer >= 1");
    if (workgroups >
        uint64_t(std::numeric_limits<int64_t>::max()) / uint64_t(extent))
      return diag.error(named, "'grid' has more than 2^63 workgroups");
    workgroups *= uint64_t(extent);
    dispatch.grid[i] = extent;
  }

  const Json *bindings = nullptr;
  if (Status status = diag.require(json, "bindings", named, bindings); !status)
    return status;
  if (!bindings->is_array())
    return diag.error(named, "'bindings' must be an array of buffer indices");
  for (size_t i = 0; i < bindings->size(); ++i) {
    int64_t index = 0;
    if (!getInt64((*bindings)[i], index))
      return diag.error(named,
                        "binding " + std::to_string(i) + " must be an integer");
    if (index < 0 || uint64_t(index) >= numBuffers)
      return diag.error(named, "binding " + std::to_string(i) + " is " +
                                   std::to_string(index) +
                                   ", but the entry has " +
                                   std::to_string(numBuffers) + " buffers");
    dispatch.bindings.push_back(size_t(index));
  }

  if (Status status = diag.optionalCount(json, "flops", named, dispatch.flops);
      !status)
    return status;
  if (Status status = diag.optionalCount(json, "bytes", named, dispatch.bytes);
      !status)
    return status;
  return vulkan ? parseVulkanDispatch(diag, json, named, dispatch)
                : Status::success();
}

Status parseEntry(const Diagnoser &diag, const Json &json, size_t index,
                  bool vulkan, EntryDesc &entry) {
  std::string where = "entry " + std::to_string(index);
  if (!json.is_object())
    return diag.error(where, "must be an object");
  if (Status status = diag.requireString(json, "name", where, entry.name);
      !status)
    return status;
  if (entry.name.empty())
    return diag.error(where, "'name' is empty");
  where = "entry " + quote(entry.name);

  const Json *buffers = nullptr;
  if (Status status = diag.require(json, "buffers", where, buffers); !status)
    return status;
  if (!buffers->is_array())
    return diag.error(where, "'buffers' must be an array");
  for (size_t i = 0; i < buffers->size(); ++i) {
    BufferDesc buffer;
    std::string bufferWhere = where + " buffer " + std::to_string(i);
    if (Status status = parseBuffer(diag, (*buffers)[i], bufferWhere, buffer);
        !status)
      return status;
    // The order is the calling convention: inputs map to invoke's inputs
    // by position, outputs likewise.
    if (!entry.buffers.empty() && buffer.role < entry.buffers.back().role)
      return diag.error(bufferWhere,
                        "buffers must be listed inputs first, then outputs, "
                        "then temporaries");
    if (buffer.role == BufferRole::Input)
      ++entry.numInputs;
    else if (buffer.role == BufferRole::Output)
      ++entry.numOutputs;
    entry.buffers.push_back(std::move(buffer));
  }

  const Json *dispatches = nullptr;
  if (Status status = diag.require(json, "dispatches", where, dispatches);
      !status)
    return status;
  if (!dispatches->is_array())
    return diag.error(where, "'dispatches' must be an array");
  for (size_t i = 0; i < dispatches->size(); ++i) {
    DispatchDesc dispatch;
    if (Status status = parseDispatch(diag, (*dispatches)[i],
                                      where + " dispatch " + std::to_string(i),
                                      entry.buffers.size(), vulkan, dispatch);
        !status)
      return status;
    entry.dispatches.push_back(std::move(dispatch));
  }
  return Status::success();
}

} // namespace

Status parseManifest(const std::string &text, const std::string &origin,
                     Manifest &out) {
  out = Manifest();
  Diagnoser diag(origin);
  Json root = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded())
    return diag.error("", "not valid JSON");
  if (!root.is_object())
    return diag.error("", "the top level must be a JSON object");

  std::string format;
  if (Status status = diag.requireString(root, "format", "", format); !status)
    return status;
  if (format != kManifestFormat)
    return diag.error("", "'format' is " + quote(format) + ", expected " +
                              quote(kManifestFormat));

  const Json *version = nullptr;
  if (Status status = diag.require(root, "version", "", version); !status)
    return status;
  if (!getInt64(*version, out.version))
    return diag.error("", "'version' must be an integer");
  if (out.version != kManifestVersion)
    return diag.error("", "'version' is " + std::to_string(out.version) +
                              ", this runtime reads version " +
                              std::to_string(kManifestVersion));

  if (Status status = diag.requireString(root, "target", "", out.target);
      !status)
    return status;
  if (const Json *compilerVersion = findMember(root, "compiler_version")) {
    if (!compilerVersion->is_string())
      return diag.error("", "'compiler_version' must be a string");
    out.compilerVersion = compilerVersion->get<std::string>();
  }
  // Vulkan artifacts name a SPIR-V file per dispatch instead.
  bool vulkan = out.target == "vulkan";
  if (!vulkan || findMember(root, "library")) {
    if (Status status = diag.requireString(root, "library", "", out.library);
        !status)
      return status;
    if (out.library.empty() && !vulkan)
      return diag.error("", "'library' is empty");
  }

  const Json *entries = nullptr;
  if (Status status = diag.require(root, "entries", "", entries); !status)
    return status;
  if (!entries->is_array())
    return diag.error("", "'entries' must be an array");
  std::set<std::string> names;
  for (size_t i = 0; i < entries->size(); ++i) {
    EntryDesc entry;
    if (Status status = parseEntry(diag, (*entries)[i], i, vulkan, entry);
        !status)
      return status;
    if (!names.insert(entry.name).second)
      return diag.error("entry " + std::to_string(i),
                        "duplicate entry name " + quote(entry.name));
    out.entries.push_back(std::move(entry));
  }
  return Status::success();
}

Status readManifestFile(const std::string &path, Manifest &out) {
  std::string origin = "manifest " + quote(path);
  // Never blocks (a FIFO or a device is refused before any read) and never
  // allocates more than the bound.
  ReadOptions options;
  options.maxBytes = kMaxManifestBytes;
  std::string text, error;
  ReadFailure failure = ReadFailure::None;
  if (!readRegularFile(path, text, error, options, &failure)) {
    if (failure == ReadFailure::NotFound)
      return Status::notFound(origin + " does not exist");
    return Status::io(origin + ": " + error);
  }
  return parseManifest(text, origin, out);
}

} // namespace ejk::runtime
