#include "backends/bootstrap/server_session.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <utility>

namespace weft::backends::bootstrap::detail {
namespace asio = boost::asio;
using boost::system::error_code;

namespace {

std::string PeerName(const asio::ip::tcp::socket& socket) {
  error_code ec;
  auto ep = socket.remote_endpoint(ec);
  if (ec) return "unknown peer";
  return ep.address().to_string() + ":" + std::to_string(ep.port());
}

// A peer whose host vanishes sends no FIN; keepalive turns that into a read error within
// seconds instead of the kernel's two hours. Best effort: failures are ignored.
void TuneSocket(asio::ip::tcp::socket& socket) {
  error_code ec;
  socket.set_option(asio::ip::tcp::no_delay(true), ec);
  socket.set_option(asio::socket_base::keep_alive(true), ec);
  socket.set_option(asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPIDLE>(5), ec);
  socket.set_option(asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPINTVL>(1), ec);
  socket.set_option(asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPCNT>(3), ec);
}

std::string Describe(const error_code& ec) {
  if (ec == asio::error::eof) return "connection closed by the peer";
  return ec.message();
}

}  // namespace

Session::Session(asio::ip::tcp::socket socket, SessionHandler& handler)
    : socket_(std::move(socket)), handler_(handler), peer_(PeerName(socket_)) {}

void Session::Start() {
  TuneSocket(socket_);
  ReadLength();
}

void Session::ReadLength() {
  asio::async_read(socket_, asio::buffer(length_),
                   [self = shared_from_this()](const error_code& ec, size_t) {
                     if (ec) return self->Fail(Describe(ec));
                     auto length = wire::DecodeLength(self->length_.data());
                     if (!length.ok()) return self->Fail(length.status().message());
                     self->ReadBody(*length);
                   });
}

void Session::ReadBody(uint32_t length) {
  body_.resize(length);
  asio::async_read(socket_, asio::buffer(body_),
                   [self = shared_from_this()](const error_code& ec, size_t) {
                     if (ec) return self->Fail(Describe(ec));
                     auto frame = wire::DecodeBody(self->body_);
                     if (!frame.ok()) return self->Fail(frame.status().message());
                     // Large values should not stay pinned by an idle connection.
                     std::string().swap(self->body_);
                     self->handler_.OnFrame(self, std::move(frame).value());
                     if (!self->closed_) self->ReadLength();
                   });
}

void Session::Send(const wire::Frame& frame) {
  if (closed_) return;
  outbox_.push_back(wire::Encode(frame));
  if (outbox_.size() == 1) WriteNext();
}

void Session::WriteNext() {
  asio::async_write(socket_, asio::buffer(outbox_.front()),
                    [self = shared_from_this()](const error_code& ec, size_t) {
                      if (ec) return self->Fail(Describe(ec));
                      self->outbox_.pop_front();
                      if (!self->outbox_.empty() && !self->closed_) self->WriteNext();
                    });
}

void Session::Fail(const std::string& reason) {
  if (closed_) return;
  Close();
  handler_.OnClosed(shared_from_this(), reason);
}

void Session::Close() {
  if (closed_) return;
  closed_ = true;
  error_code ec;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  // The outbox stays: an aborted async_write may still reference its front buffer.
  socket_.close(ec);
}

}  // namespace weft::backends::bootstrap::detail
