// One client connection on the store server: an async read loop that hands each frame to a
// SessionHandler, and a write queue so replies and pushed events never interleave on the
// wire. Lives on the server's io_context thread only; not thread-safe by design.
//
// Memory: a frame's body grows with the bytes that arrive (64 KiB reads), never to the length
// its prefix announces before they do; a frame over the limit is closed (unauthenticated) or
// read past and answered with an error (authenticated). While more than
// ServerLimits::reply_backlog bytes of replies wait unread, no further request is read
// (backpressure); values are shared with the store, not copied, in the queue.
#pragma once

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "backends/bootstrap/store_limits.hpp"
#include "backends/bootstrap/wire.hpp"

namespace weft::backends::bootstrap::detail {

class Session;
using SharedBytes = std::shared_ptr<const Bytes>;

class SessionHandler {
 public:
  virtual ~SessionHandler() = default;
  virtual void OnFrame(const std::shared_ptr<Session>& session, wire::Frame frame) = 0;
  // Called once, when the connection breaks or the peer closes it (not after Close()).
  virtual void OnClosed(const std::shared_ptr<Session>& session, const std::string& reason) = 0;
};

// The handshake's progress on one connection (wire.hpp), kept by the server's StoreState.
struct AuthState {
  enum class Stage { kAwaitHello, kAwaitProof, kDone };
  Stage stage = Stage::kAwaitHello;
  std::string client_nonce;
  std::string server_nonce;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(boost::asio::ip::tcp::socket socket, SessionHandler& handler, const ServerLimits& limits);

  void Start();
  void Send(const wire::Frame& frame);
  // Sends `frame` with `value` appended as its last value, sharing the bytes.
  void SendSharing(const wire::Frame& frame, SharedBytes value);
  // Like SendSharing, for a pushed event. A peer that has let more than the event limit pile
  // up unread is not reading: it is closed (OnClosed reports why) and false returned.
  bool SendEvent(const wire::Frame& frame, SharedBytes value);
  // Closes the socket without reporting OnClosed: the owner initiated it.
  void Close();
  const std::string& peer() const { return peer_; }
  bool closed() const { return closed_; }
  bool authenticated() const { return auth.stage == AuthState::Stage::kDone; }
  // Reply and event bytes queued but not yet written to the socket.
  size_t backlog() const { return backlog_; }

  // The rank this connection registered as (its liveness channel); set by the handler.
  std::optional<int32_t> rank;
  AuthState auth;
  std::chrono::steady_clock::time_point accepted_at;

 private:
  struct Outgoing {
    std::string head;
    SharedBytes value;  // may be null
    size_t size() const { return head.size() + (value ? value->size() : 0); }
  };

  void ReadLength();
  void ReadBody(uint32_t length);
  void ReadChunk(uint32_t length);
  void SkipOversized(uint32_t length);
  void Discard(uint32_t left, wire::Frame request, uint32_t length);
  void Deliver();
  void ContinueReading();
  void Queue(Outgoing item);
  void WriteNext();
  void Fail(const std::string& reason);

  boost::asio::ip::tcp::socket socket_;
  SessionHandler& handler_;
  const ServerLimits& limits_;
  std::string peer_;
  std::array<unsigned char, wire::kLengthBytes> length_{};
  std::string body_;
  std::deque<Outgoing> outbox_;
  size_t backlog_ = 0;
  bool paused_ = false;  // a request was not read because of the backlog
  bool closed_ = false;
};

}  // namespace weft::backends::bootstrap::detail
