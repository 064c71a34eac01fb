//===- HandleTable.cpp - The C API's generation-checked handles -----------===//
//
// A handle is (generation << 32) | (slot << 3) | 0b101. The low bits make
// it odd, so it is never a valid object pointer and a pointer passed by
// mistake almost never decodes to a live slot; the generation grows each
// time a slot is reused, so a stale handle never names the slot's next
// object.
//
//===----------------------------------------------------------------------===//

#include "HandleTable.h"

#include <mutex>
#include <new>
#include <vector>

namespace ejk::runtime {

namespace {

static_assert(sizeof(uintptr_t) >= 8,
              "handles encode a 32-bit generation and a slot in a pointer");

constexpr uintptr_t kTag = 0x5, kTagMask = 0x7;
constexpr uint32_t kMaxSlots = 1u << 29;

struct Slot {
  /// Odd while the slot is live, even while it is free: a handle's
  /// generation is always odd, so it never matches a free slot.
  uint32_t generation = 0;
  HandleKind kind = HandleKind::Device;
  std::shared_ptr<void> object;
};

struct Table {
  std::mutex mutex;
  std::vector<Slot> slots;
  std::vector<uint32_t> freeSlots;
};

/// Never destroyed: handles may be released from static destructors of
/// the application after this library's would have run.
Table &table() {
  static Table *instance = new Table();
  return *instance;
}

bool decode(const void *handle, uint32_t &index, uint32_t &generation) {
  uintptr_t value = reinterpret_cast<uintptr_t>(handle);
  if ((value & kTagMask) != kTag)
    return false;
  index = uint32_t((value >> 3) & (kMaxSlots - 1));
  generation = uint32_t(uint64_t(value) >> 32);
  return generation % 2 == 1;
}

/// The live slot \p handle names, or null. The caller holds the mutex.
Slot *find(Table &t, const void *handle) {
  uint32_t index = 0, generation = 0;
  if (!decode(handle, index, generation) || index >= t.slots.size())
    return nullptr;
  Slot &slot = t.slots[index];
  return slot.generation == generation ? &slot : nullptr;
}

} // namespace

const char *handleKindName(HandleKind kind) {
  switch (kind) {
  case HandleKind::Device:
    return "device";
  case HandleKind::Module:
    return "module";
  case HandleKind::Buffer:
    return "buffer";
  case HandleKind::Invocation:
    return "invocation";
  }
  return "unknown";
}

void *HandleTable::insert(HandleKind kind, std::shared_ptr<void> object) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  uint32_t index = 0;
  try {
    if (!t.freeSlots.empty()) {
      index = t.freeSlots.back();
      t.freeSlots.pop_back();
    } else {
      if (t.slots.size() >= kMaxSlots)
        return nullptr;
      index = uint32_t(t.slots.size());
      t.slots.emplace_back();
      // Reserve the free list's room now, so that erase never allocates.
      t.freeSlots.reserve(t.slots.size());
    }
  } catch (const std::bad_alloc &) {
    return nullptr;
  }
  Slot &slot = t.slots[index];
  // Free slots hold an even generation; the next odd one is this handle's.
  ++slot.generation;
  slot.kind = kind;
  slot.object = std::move(object);
  uintptr_t value =
      (uintptr_t(slot.generation) << 32) | (uintptr_t(index) << 3) | kTag;
  return reinterpret_cast<void *>(value);
}

std::shared_ptr<void> HandleTable::lookup(const void *handle, HandleKind kind,
                                          std::optional<HandleKind> *actual) {
  Table &t = table();
  std::lock_guard<std::mutex> lock(t.mutex);
  Slot *slot = find(t, handle);
  if (!slot)
    return nullptr;
  if (slot->kind != kind) {
    if (actual)
      *actual = slot->kind;
    return nullptr;
  }
  return slot->object;
}

bool HandleTable::erase(const void *handle, HandleKind kind) {
  std::shared_ptr<void> object;
  {
    Table &t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    Slot *slot = find(t, handle);
    if (!slot || slot->kind != kind)
      return false;
    ++slot->generation;
    object = std::move(slot->object);
    t.freeSlots.push_back(uint32_t(slot - t.slots.data()));
  }
  // The object is released outside the lock: its destructor may wait for
  // work (a device's threads) that itself looks handles up.
  return true;
}

} // namespace ejk::runtime
