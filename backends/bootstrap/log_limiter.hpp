// Rate limit for the store's warnings about refused connections: a stranger opening thousands
// of connections must not turn into thousands of log lines. Not thread-safe (io thread only).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "common/log.hpp"

namespace weft::backends::bootstrap::detail {

class LogLimiter {
 public:
  // Logs `line` at warn level unless kBurst lines were logged in the current window; the
  // first line of the next window says how many were left out.
  void Warn(const std::string& line) {
    const auto now = std::chrono::steady_clock::now();
    if (now - window_start_ > kWindow) {
      if (suppressed_ > 0) {
        WEFT_LOG_WARN("bootstrap store: {} more refused connections were not logged", suppressed_);
      }
      window_start_ = now;
      logged_ = 0;
      suppressed_ = 0;
    }
    if (logged_ < kBurst) {
      ++logged_;
      WEFT_LOG_WARN("{}", line);
    } else {
      ++suppressed_;
    }
  }

 private:
  static constexpr std::chrono::seconds kWindow{10};
  static constexpr size_t kBurst = 20;
  std::chrono::steady_clock::time_point window_start_{};
  size_t logged_ = 0;
  size_t suppressed_ = 0;
};

}  // namespace weft::backends::bootstrap::detail
