// Reading one frame on the client side: the body grows with the bytes that arrive, and a
// frame longer than this rank's message limit is refused before any of it is buffered.
#pragma once

#include <cstdint>

#include "backends/bootstrap/client_socket.hpp"
#include "backends/bootstrap/wire.hpp"
#include "common/clock.hpp"

namespace weft::backends::bootstrap::detail {

// Errors: RecvExact's, wire::DecodeBody's, or kPeerFailure for a frame over `max_body`.
Result<wire::Frame> RecvFrame(ClientSocket& socket, uint32_t max_body,
                              Clock::time_point deadline = kNoDeadline);

// kInvalidArgument naming `what`, the size and the limit (WEFT_STORE_MAX_MESSAGE) when
// `frame` would be longer than `max_body`.
Status CheckFrameSize(const wire::Frame& frame, uint32_t max_body, const std::string& what);

}  // namespace weft::backends::bootstrap::detail
