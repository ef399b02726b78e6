// Vocabulary shared by the bootstrap store's server, client and wire format.
#pragma once

#include <chrono>
#include <string>

namespace weft::backends::bootstrap {

using Clock = std::chrono::steady_clock;
// Values are binary-safe byte strings (NULs allowed); std::string owns the bytes.
using Bytes = std::string;

// Key under which the server records, and pushes as an event, the failure of a registered
// rank: "failed/<rank>", value = the reason.
inline std::string FailedKey(int32_t rank) { return "failed/" + std::to_string(rank); }

// Event key a registered client delivers to its own on_event when it loses the store
// unexpectedly. Losing the store counts as the failure of its host rank (SPEC §10).
inline constexpr const char* kStoreLostKey = "failed/store";

}  // namespace weft::backends::bootstrap
