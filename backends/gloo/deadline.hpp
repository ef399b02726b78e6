// An operation's deadline: the plugin kit's (common/plugin_kit/deadline.hpp), plus what is left
// of it in the terms Gloo wants.
#pragma once

#include <chrono>

#include "common/plugin_kit/deadline.hpp"

namespace weft::backends::gloo_plugin {

using Clock = plugin_kit::Clock;
using Deadline = plugin_kit::Deadline;

// Gloo's own "forever" (tcp::kLargeTimeDuration): long enough, and small enough that now() +
// it cannot overflow inside Gloo's condition-variable waits.
inline constexpr std::chrono::milliseconds kGlooForever = std::chrono::hours(100);

// What is left, as Gloo wants it: at least 1 ms (Gloo reads 0 as "no timeout" in places),
// kGlooForever without a deadline.
inline std::chrono::milliseconds GlooTimeout(const Deadline& d) {
  return d.Remaining(std::chrono::milliseconds(1), kGlooForever);
}

}  // namespace weft::backends::gloo_plugin
