#include "backends/bootstrap/server_session.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <algorithm>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <utility>

namespace weft::backends::bootstrap::detail {
namespace asio = boost::asio;
using boost::system::error_code;

namespace {

// How much of a body is read at a time: what a lying length prefix can make the server
// allocate ahead of the bytes that actually arrive.
constexpr size_t kReadChunk = 64u << 10;

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

Session::Session(asio::ip::tcp::socket socket, SessionHandler& handler, const ServerLimits& limits)
    : socket_(std::move(socket)), handler_(handler), limits_(limits), peer_(PeerName(socket_)) {
  accepted_at = std::chrono::steady_clock::now();
}

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
  if (!authenticated() && length > limits_.max_handshake_message) {
    return Fail("a frame of " + std::to_string(length) + " bytes before authenticating (limit " +
                std::to_string(limits_.max_handshake_message) + ")");
  }
  if (length > limits_.max_message) return SkipOversized(length);
  body_.clear();
  ReadChunk(length);
}

void Session::ReadChunk(uint32_t length) {
  const size_t have = body_.size();
  const size_t want = std::min<size_t>(length - have, kReadChunk);
  body_.resize(have + want);
  socket_.async_read_some(
      asio::buffer(body_.data() + have, want),
      [self = shared_from_this(), length, have](const error_code& ec, size_t n) {
        if (ec) return self->Fail(Describe(ec));
        self->body_.resize(have + n);
        if (self->body_.size() < length) return self->ReadChunk(length);
        self->Deliver();
      });
}

void Session::Deliver() {
  auto frame = wire::DecodeBody(body_);
  if (!frame.ok()) return Fail(frame.status().message());
  // Large bodies should not stay pinned by an idle connection; small ones keep their buffer.
  if (body_.capacity() > kReadChunk) std::string().swap(body_);
  handler_.OnFrame(shared_from_this(), std::move(frame).value());
  ContinueReading();
}

// An authenticated peer's request over the limit: its header names the request to answer,
// and the rest is read into a small buffer and dropped, so the stream stays in step.
void Session::SkipOversized(uint32_t length) {
  body_.assign(wire::kFixedBodyBytes, '\0');
  asio::async_read(socket_, asio::buffer(body_),
                   [self = shared_from_this(), length](const error_code& ec, size_t) {
                     if (ec) return self->Fail(Describe(ec));
                     auto request = wire::DecodeFixed(self->body_);
                     if (!request.ok()) return self->Fail(request.status().message());
                     self->body_.resize(kReadChunk);
                     self->Discard(length - static_cast<uint32_t>(wire::kFixedBodyBytes),
                                   std::move(request).value(), length);
                   });
}

void Session::Discard(uint32_t left, wire::Frame request, uint32_t length) {
  if (left == 0) {
    std::string().swap(body_);
    wire::Frame reply;
    reply.id = request.id;
    reply.code = static_cast<int8_t>(Code::kInvalidArgument);
    reply.values.push_back(std::string(wire::VerbName(request.verb)) + " request of " +
                           std::to_string(length) + " bytes is over the store's message limit of " +
                           std::to_string(limits_.max_message) +
                           " bytes (WEFT_STORE_MAX_MESSAGE on the store's host)");
    Send(reply);
    return ContinueReading();
  }
  const size_t want = std::min<size_t>(left, body_.size());
  socket_.async_read_some(asio::buffer(body_.data(), want),
                          [self = shared_from_this(), left, request = std::move(request), length](
                              const error_code& ec, size_t n) mutable {
                            if (ec) return self->Fail(Describe(ec));
                            self->Discard(left - static_cast<uint32_t>(n), std::move(request),
                                          length);
                          });
}

void Session::ContinueReading() {
  if (closed_) return;
  if (backlog_ > limits_.reply_backlog) {
    paused_ = true;  // WriteNext resumes once the peer has read enough
    return;
  }
  ReadLength();
}

void Session::Send(const wire::Frame& frame) { Queue({wire::Encode(frame), nullptr}); }

void Session::SendSharing(const wire::Frame& frame, SharedBytes value) {
  const size_t size = value->size();
  Queue({wire::EncodeWithTrailingValue(frame, size), std::move(value)});
}

bool Session::SendEvent(const wire::Frame& frame, SharedBytes value) {
  const size_t limit = limits_.reply_backlog + limits_.max_message + limits_.event_backlog;
  if (backlog_ > limit) {
    Fail("it leaves " + std::to_string(backlog_) + " bytes of replies and events unread, over " +
         "the limit of " + std::to_string(limit) + ": it is not reading");
    return false;
  }
  SendSharing(frame, std::move(value));
  return true;
}

void Session::Queue(Outgoing item) {
  if (closed_) return;
  backlog_ += item.size();
  outbox_.push_back(std::move(item));
  if (outbox_.size() == 1) WriteNext();
}

void Session::WriteNext() {
  const Outgoing& front = outbox_.front();
  std::array<asio::const_buffer, 2> buffers{asio::buffer(front.head), asio::const_buffer()};
  if (front.value) buffers[1] = asio::buffer(*front.value);
  asio::async_write(socket_, buffers, [self = shared_from_this()](const error_code& ec, size_t) {
    if (ec) return self->Fail(Describe(ec));
    self->backlog_ -= self->outbox_.front().size();
    self->outbox_.pop_front();
    if (self->closed_) return;
    if (!self->outbox_.empty()) self->WriteNext();
    if (self->paused_ && self->backlog_ <= self->limits_.reply_backlog) {
      self->paused_ = false;
      self->ReadLength();
    }
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
