// The client's side of the store's handshake (wire.hpp): proves that this rank knows the
// job's secret, after the store has proved that it does too, so that a rank never hands its
// proof (or anything else) to a listener that is not its job's store.
#pragma once

#include <string>
#include <string_view>

#include "backends/bootstrap/client_socket.hpp"

namespace weft::backends::bootstrap::detail {

struct HandshakeResult {
  enum class Outcome {
    kOk,
    kRetry,        // the connection broke or stalled: try a new one
    kWrongSecret,  // the store's proof does not match this rank's secret
    kRefused,      // the store authenticated this rank but refused it (its message says why)
  };
  Outcome outcome = Outcome::kOk;
  Status status;
};

// `endpoint` ("host:port") and `source` (where the key came from) are for messages.
HandshakeResult ClientHandshake(ClientSocket& socket, std::string_view key,
                                const std::string& endpoint, const std::string& source,
                                Clock::time_point deadline);

}  // namespace weft::backends::bootstrap::detail
