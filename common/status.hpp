// Errors inside Weft are values. A Status carries one of the ABI's codes and a message that
// names the offending argument; the api/ layer turns it into a weft_status_t and the
// thread-local last-error text, so no exception ever crosses the ABI.
#pragma once

#include <cstdint>
#include <memory>
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
  Status(Code code, std::string message) {
    if (code == Code::kOk) return;
    if (message.empty())
      bare_ = code;  // no allocation (kInProgress from a poll, say)
    else
      rep_ = std::make_unique<Rep>(Rep{code, std::move(message)});
  }
  Status(const Status& o)
      : bare_(o.bare_), rep_(o.rep_ ? std::make_unique<Rep>(*o.rep_) : nullptr) {}
  Status(Status&&) noexcept = default;
  Status& operator=(const Status& o) {
    if (this != &o) {
      bare_ = o.bare_;
      rep_ = o.rep_ ? std::make_unique<Rep>(*o.rep_) : nullptr;
    }
    return *this;
  }
  Status& operator=(Status&&) noexcept = default;

  static Status Ok() { return {}; }
  bool ok() const { return bare_ == Code::kOk && rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : bare_; }
  const std::string& message() const {
    static const std::string kNone;
    return rep_ ? rep_->message : kNone;
  }

 private:
  // Two words, both empty when ok: the success path of every call returns Statuses through
  // many frames, and a code with an inline string is five words to move and destroy at each.
  // A code without a message needs no allocation either.
  struct Rep {
    Code code;
    std::string message;
  };
  Code bare_ = Code::kOk;
  std::unique_ptr<Rep> rep_;
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
