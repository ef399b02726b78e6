#include "backends/bootstrap/client_frames.hpp"

#include <algorithm>

namespace weft::backends::bootstrap::detail {
namespace {

constexpr size_t kReadChunk = 64u << 10;

}  // namespace

Result<wire::Frame> RecvFrame(ClientSocket& socket, uint32_t max_body, Clock::time_point deadline) {
  unsigned char prefix[wire::kLengthBytes];
  WEFT_RETURN_IF_ERROR(socket.RecvExact(reinterpret_cast<char*>(prefix), sizeof(prefix), deadline));
  WEFT_ASSIGN_OR_RETURN(uint32_t length, wire::DecodeLength(prefix));
  if (length > max_body) {
    return Status{Code::kPeerFailure, "the store sent a frame of " + std::to_string(length) +
                                          " bytes, over this rank's message limit of " +
                                          std::to_string(max_body) +
                                          " (WEFT_STORE_MAX_MESSAGE must be equal on every rank)"};
  }
  std::string body;
  while (body.size() < length) {
    const size_t have = body.size();
    body.resize(have + std::min<size_t>(length - have, kReadChunk));
    WEFT_RETURN_IF_ERROR(socket.RecvExact(body.data() + have, body.size() - have, deadline));
  }
  return wire::DecodeBody(body);
}

Status CheckFrameSize(const wire::Frame& frame, uint32_t max_body, const std::string& what) {
  const uint64_t size = wire::EncodedBodySize(frame);
  if (size <= max_body) return Status::Ok();
  return InvalidArgument("bootstrap store: " + what + " is a message of " + std::to_string(size) +
                         " bytes, over the limit of " + std::to_string(max_body) +
                         " bytes (WEFT_STORE_MAX_MESSAGE)");
}

}  // namespace weft::backends::bootstrap::detail
