//===- Status.h - Internal status and the thread's last error ---*- C++ -*-===//
//
// Inside the runtime every fallible step returns a Status (a C status code
// plus a message); the C API layer turns it into the code it returns and the
// text ejk_last_error() shows.
//
//===----------------------------------------------------------------------===//

#ifndef EJK_LIB_RUNTIME_STATUS_H
#define EJK_LIB_RUNTIME_STATUS_H

#include "ejk/Runtime/ejk_runtime.h"

#include <string>
#include <utility>

namespace ejk::runtime {

/// EJK_OK, or an error code with a message that names what was wrong.
class Status {
public:
  /// A successful status.
  Status() = default;
  Status(ejk_status code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status success() { return Status(); }
  static Status invalidArgument(std::string message) {
    return Status(EJK_ERROR_INVALID_ARGUMENT, std::move(message));
  }
  static Status notFound(std::string message) {
    return Status(EJK_ERROR_NOT_FOUND, std::move(message));
  }
  static Status io(std::string message) {
    return Status(EJK_ERROR_IO, std::move(message));
  }
  static Status format(std::string message) {
    return Status(EJK_ERROR_FORMAT, std::move(message));
  }
  static Status unavailable(std::string message) {
    return Status(EJK_ERROR_UNAVAILABLE, std::move(message));
  }
  static Status internal(std::string message) {
    return Status(EJK_ERROR_INTERNAL, std::move(message));
  }

  bool ok() const { return code_ == EJK_OK; }
  /// True when ok, so that `if (Status s = f(); !s) return s;` reads well.
  explicit operator bool() const { return ok(); }
  ejk_status code() const { return code_; }
  const std::string &message() const { return message_; }

  /// Prefixes the message with \p context ("<context>: <message>").
  Status &withContext(const std::string &context) {
    if (!ok())
      message_ = context + ": " + message_;
    return *this;
  }

private:
  ejk_status code_ = EJK_OK;
  std::string message_;
};

/// Records \p status as the calling thread's last error (a success clears
/// it) and returns its code: the tail of every C API function.
ejk_status report(const Status &status);

/// The calling thread's last error text.
const char *lastError();

/// The static name of \p code.
/// The name of status \p code (an ejk_status value, or any int:
/// "EJK_ERROR_UNKNOWN" outside the enum).
const char *statusName(int code);

} // namespace ejk::runtime

#endif // EJK_LIB_RUNTIME_STATUS_H
