//===- HandleTable.h - The C API's generation-checked handles ---*- C++ -*-===//
//
// A handle the C API gives out is never a pointer the runtime dereferences:
// it encodes a slot of this table and the slot's generation. Every call
// looks the handle up, so a destroyed (stale), doubly destroyed, foreign or
// garbage handle, or one of the wrong kind, is an error status instead of
// a use after free. A lookup returns shared ownership, so an object
// destroyed by another thread during a call lives until the call returns.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_HANDLETABLE_H
#define EJK_LIB_RUNTIME_HANDLETABLE_H

#include <cstdint>
#include <memory>
#include <optional>

namespace ejk::runtime {

enum class HandleKind : uint8_t { Device, Module, Buffer, Invocation };

/// "device", "module", "buffer" or "invocation".
const char *handleKindName(HandleKind kind);

/// The process-wide table of live handles. Thread-safe.
class HandleTable {
public:
  /// Registers \p object and returns its new handle (never null); null when
  /// memory or slots ran out.
  static void *insert(HandleKind kind, std::shared_ptr<void> object);

  /// The object of live handle \p handle of kind \p kind; null for a stale,
  /// unknown or garbage handle or one of another kind (\p actual then gets
  /// the kind of a live handle of the wrong kind, when it is one).
  static std::shared_ptr<void>
  lookup(const void *handle, HandleKind kind,
         std::optional<HandleKind> *actual = nullptr);

  /// Invalidates \p handle and drops the table's reference; false when it
  /// was not a live handle of kind \p kind.
  static bool erase(const void *handle, HandleKind kind);
};

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_HANDLETABLE_H
