// Errors inside Weft are values. A Status carries one of the ABI's codes and a message that
// names the offending argument; the api/ layer turns it into a weft_status_t and the
// thread-local last-error text, so no exception ever crosses the ABI.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace weft {

// Mirrors the WEFT_* codes of <weft/status.h>. Kept separate so that code below api/ does not
// need the C header; a static_assert in api/ pins the two together.
enum class Code : int32_t {
  kOk = 0,
  kInProgress = 1,
  kInvalidArgument = -1,
  kInvalidUsage = -2,
  kUnsupported = -3,
  kNotAvailable = -4,
  kVersionMismatch = -5,
  kOutOfMemory = -6,
  kTimeout = -7,
  kPeerFailure = -8,
  kAborted = -9,
  kSystem = -10,
  kBackend = -11,
  kPlugin = -12,
  kInternal = -13,
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
inline Status InvalidUsage(std::string m) { return {Code::kInvalidUsage, std::move(m)}; }
inline Status Unsupported(std::string m) { return {Code::kUnsupported, std::move(m)}; }
inline Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }

// Returns early from the enclosing function when `expr` (a Status) is not ok.
#define WEFT_RETURN_IF_ERROR(expr)                       \
  do {                                                   \
    ::weft::Status weft_status_tmp_ = (expr);            \
    if (!weft_status_tmp_.ok()) return weft_status_tmp_; \
  } while (0)

}  // namespace weft
