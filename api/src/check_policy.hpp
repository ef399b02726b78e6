// When the public collectives and point-to-point calls verify their arguments across the
// members before they run (docs/collective_checks.md): always on a backend that could
// terminate or overrun on a disagreement, else on operations large enough that the check is
// cheap next to them, or on every operation when the user asks for it.
#pragma once

#include <cstdint>
#include <functional>

#include "common/result.hpp"

namespace weft::api {

struct CheckPolicy {
  enum class Mode {
    kAuto,  // WEFT_CHECK_COLLECTIVES unset: collectives of at least min_bytes
    kAll,   // =1: every collective and point-to-point call
    kOff,   // =0: only where the backend needs it
  };
  // Where one 64-byte all-gather costs about 3% of the collective with UCX on one host
  // (docs/collective_checks.md has the figures).
  static constexpr uint64_t kDefaultMinBytes = uint64_t{1} << 20;

  Mode mode = Mode::kAuto;
  uint64_t min_bytes = kDefaultMinBytes;

  // Whether a collective moving `bytes` on this rank is checked; `size_safe`: the backend
  // turns disagreements into errors by itself (WEFT_BK_CAP_SIZE_SAFE). Every member must
  // decide alike, so it depends only on settings that must be equal on every rank and the
  // size, which a correct program passes alike (one that does not may get the backend's own
  // error when one side of the threshold checks and the other does not).
  bool CheckCollective(bool size_safe, uint64_t bytes) const {
    if (!size_safe || mode == Mode::kAll) return true;
    return mode == Mode::kAuto && bytes >= min_bytes;
  }
  // Point-to-point: a size-safe backend already fails a receive of the wrong length.
  bool CheckPointToPoint(bool size_safe) const { return !size_safe || mode == Mode::kAll; }
};

// Reads WEFT_CHECK_COLLECTIVES (a boolean; unset or empty: automatic) and
// WEFT_CHECK_COLLECTIVES_MIN_BYTES (bytes), as common/host_params.hpp declares them, from the
// process environment or `getenv`. A malformed value is an error naming the variable.
Result<CheckPolicy> ReadCheckPolicy(
    const std::function<const char*(const char*)>& getenv = nullptr);

}  // namespace weft::api
