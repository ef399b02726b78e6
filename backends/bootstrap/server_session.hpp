// One client connection on the store server: an async read loop that hands each frame to a
// SessionHandler, and a write queue so replies and pushed events never interleave on the
// wire. Lives on the server's io_context thread only; not thread-safe by design.
#pragma once

#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "backends/bootstrap/wire.hpp"

namespace weft::backends::bootstrap::detail {

class Session;

class SessionHandler {
 public:
  virtual ~SessionHandler() = default;
  virtual void OnFrame(const std::shared_ptr<Session>& session, wire::Frame frame) = 0;
  // Called once, when the connection breaks or the peer closes it (not after Close()).
  virtual void OnClosed(const std::shared_ptr<Session>& session, const std::string& reason) = 0;
};

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(boost::asio::ip::tcp::socket socket, SessionHandler& handler);

  void Start();
  void Send(const wire::Frame& frame);
  // Closes the socket without reporting OnClosed: the owner initiated it.
  void Close();
  const std::string& peer() const { return peer_; }

  // The rank this connection registered as (its liveness channel); set by the handler.
  std::optional<int32_t> rank;

 private:
  void ReadLength();
  void ReadBody(uint32_t length);
  void WriteNext();
  void Fail(const std::string& reason);

  boost::asio::ip::tcp::socket socket_;
  SessionHandler& handler_;
  std::string peer_;
  std::array<unsigned char, wire::kLengthBytes> length_{};
  std::string body_;
  std::deque<std::string> outbox_;
  bool closed_ = false;
};

}  // namespace weft::backends::bootstrap::detail
