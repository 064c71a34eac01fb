//===- Status.cpp - Internal status and the thread's last error -----------===//

#include "Status.h"

#include <cstring>

namespace ejk::runtime {

namespace {
/// One message per thread, so that concurrent callers never see each other's
/// failures.
thread_local std::string lastErrorText;
} // namespace

ejk_status report(const Status &status) {
  // A success leaves the last failure in place, as errno does: a caller may
  // make a cleanup call between a failure and reading its message.
  if (!status.ok())
    lastErrorText = status.message();
  return status.code();
}

const char *lastError() { return lastErrorText.c_str(); }

const char *statusName(int code) {
  switch (code) {
  case EJK_OK:
    return "EJK_OK";
  case EJK_ERROR_INVALID_ARGUMENT:
    return "EJK_ERROR_INVALID_ARGUMENT";
  case EJK_ERROR_NOT_FOUND:
    return "EJK_ERROR_NOT_FOUND";
  case EJK_ERROR_IO:
    return "EJK_ERROR_IO";
  case EJK_ERROR_FORMAT:
    return "EJK_ERROR_FORMAT";
  case EJK_ERROR_UNAVAILABLE:
    return "EJK_ERROR_UNAVAILABLE";
  case EJK_ERROR_INTERNAL:
    return "EJK_ERROR_INTERNAL";
  }
  return "EJK_ERROR_UNKNOWN";
}

} // namespace ejk::runtime
