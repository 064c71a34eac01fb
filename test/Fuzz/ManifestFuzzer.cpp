//===- ManifestFuzzer.cpp - fuzz the runtime's manifest parser ------------===//
//
// Input bytes are a manifest's JSON text. parseManifest must reject what is
// invalid with a message and accept only what the runtime can use without
// indexing out of range: every accepted manifest is checked here against the
// promises Manifest.h makes.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

using namespace ejk::runtime;

namespace {

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "ejk-fuzz-manifest: %s\n", what.c_str());
  std::abort();
}

void checkEntry(const EntryDesc &entry) {
  if (entry.numInputs + entry.numOutputs > entry.buffers.size())
    fail("entry '" + entry.name + "': more inputs and outputs than buffers");
  for (const DispatchDesc &dispatch : entry.dispatches) {
    for (size_t binding : dispatch.bindings)
      if (binding >= entry.buffers.size())
        fail("entry '" + entry.name + "': binding out of range");
    int64_t product = 1;
    for (int64_t extent : dispatch.grid) {
      if (extent < 1)
        fail("entry '" + entry.name + "': grid extent < 1");
      if (product > std::numeric_limits<int64_t>::max() / extent)
        fail("entry '" + entry.name + "': grid product overflows");
      product *= extent;
    }
    if (dispatch.pushConstants.size() % 4 != 0)
      fail("entry '" + entry.name + "': push constants not a multiple of 4");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  Manifest manifest;
  Status status = parseManifest(text, "manifest 'fuzz'", manifest);
  if (!status.ok()) {
    if (status.message().empty())
      fail("parseManifest failed without a message");
    return 0;
  }
  for (const EntryDesc &entry : manifest.entries)
    checkEntry(entry);
  return 0;
}
