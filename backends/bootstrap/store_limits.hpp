// The store server's resource limits (SPEC §8 "Store security"). They bound what any peer,
// authenticated or not, can make the store's host allocate or hold open; the defaults suit a
// bootstrap store, whose values are addresses and small blobs. The environment variables
// named here are read by backends/env (store_settings.hpp) and applied by the store's host.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace weft::backends::bootstrap {

// The body of a frame (wire.hpp) may be at most this long, in both directions.
inline constexpr uint32_t kDefaultMaxMessage = 64u << 20;  // WEFT_STORE_MAX_MESSAGE
// Bytes of keys and values the store holds at most.
inline constexpr uint64_t kDefaultMaxStoredBytes = uint64_t{1} << 30;  // WEFT_STORE_MAX_BYTES

struct ServerLimits {
  // WEFT_STORE_MAX_MESSAGE. An authenticated peer's longer request is read past and answered
  // with an error naming the limit; an unauthenticated peer's is closed.
  uint32_t max_message = kDefaultMaxMessage;
  // WEFT_STORE_MAX_BYTES: a write that would store more is refused (kOutOfMemory).
  uint64_t max_stored_bytes = kDefaultMaxStoredBytes;
  // WEFT_STORE_MAX_CONNECTIONS: authenticated connections at once; 0 = 4 * world size + 64.
  uint32_t max_connections = 0;
  // Connections still in their handshake. A newcomer beyond this drops the oldest of them, so
  // strangers can hold at most this many descriptors and never lock the job's ranks out.
  uint32_t max_unauthenticated = 64;
  // An unauthenticated connection is closed when its handshake has not finished in this time.
  std::chrono::milliseconds handshake_timeout{5000};
  // Body bytes an unauthenticated peer may send in one frame (a handshake frame needs < 100).
  uint32_t max_handshake_message = 256;
  // Backpressure: while more than this many reply bytes wait unread on a connection, the
  // server reads no further requests from it (its own replies can never get it closed).
  size_t reply_backlog = 4u << 20;
  // Events (pushed, not requested) are refused to a connection whose unread backlog is above
  // reply_backlog + max_message + this: it is closed as not reading. A PUBLISHed value may be
  // at most max_event_value bytes.
  size_t event_backlog = 16u << 20;
  uint32_t max_event_value = 64u << 10;

  // The connection limit in force for a world of `world_size` ranks.
  uint32_t ConnectionLimit(int32_t world_size) const {
    if (max_connections != 0) return max_connections;
    return static_cast<uint32_t>(4 * static_cast<int64_t>(world_size) + 64);
  }
};

}  // namespace weft::backends::bootstrap
