// A hand-driven connection to a store, for the tests of what a stranger or a misbehaving peer
// can do: it sends whatever frames or bytes a test wants, may skip or fake the handshake, and
// reads (or does not read) what comes back. Blocking POSIX sockets with poll timeouts.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <string>

#include "backends/bootstrap/handshake.hpp"
#include "backends/bootstrap/wire.hpp"

namespace weft::backends::bootstrap::testing {

class RawPeer {
 public:
  // Connects to 127.0.0.1:port; `rcvbuf` > 0 shrinks the receive buffer first (so that a peer
  // that does not read stops the server's writes early). nullptr on failure.
  static std::unique_ptr<RawPeer> Connect(uint16_t port, int rcvbuf = 0) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return nullptr;
    auto peer = std::unique_ptr<RawPeer>(new RawPeer(fd));
    if (rcvbuf > 0) ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return nullptr;
    return peer;
  }

  RawPeer(const RawPeer&) = delete;
  RawPeer& operator=(const RawPeer&) = delete;
  ~RawPeer() { ::close(fd_); }

  int fd() const { return fd_; }

  bool SendBytes(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }
  bool Send(const wire::Frame& frame) { return SendBytes(wire::Encode(frame)); }

  // The next frame within `ms`; nullopt on a timeout, a close or garbage.
  std::optional<wire::Frame> Recv(int ms) {
    unsigned char prefix[wire::kLengthBytes];
    if (!RecvExact(reinterpret_cast<char*>(prefix), sizeof(prefix), ms)) return std::nullopt;
    auto length = wire::DecodeLength(prefix);
    if (!length.ok() || *length > (256u << 20)) return std::nullopt;
    std::string body(*length, '\0');
    if (!RecvExact(body.data(), body.size(), ms)) return std::nullopt;
    auto frame = wire::DecodeBody(body);
    if (!frame.ok()) return std::nullopt;
    return std::move(frame).value();
  }

  // Whether the other side closed the connection within `ms` (what arrives before is dropped).
  bool ClosedWithin(int ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    char buf[4096];
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) return true;
    }
    return false;
  }

  // Runs the client's side of the handshake with `key`, checking the server's proof; the
  // frames sent go to *sent if given (for replays). True when the server accepted.
  bool Authenticate(const std::string& key, std::string* sent = nullptr) {
    auto nonce = handshake::NewNonce();
    wire::Frame hello;
    hello.verb = wire::Verb::kHello;
    hello.values = {*nonce};
    if (sent) *sent += wire::Encode(hello);
    if (!Send(hello)) return false;
    auto challenge = Recv(2000);
    if (!challenge || challenge->verb != wire::Verb::kChallenge || challenge->values.size() != 2)
      return false;
    if (!handshake::SameProof(challenge->values[1],
                              handshake::ServerProof(key, *nonce, challenge->values[0])))
      return false;
    wire::Frame proof;
    proof.verb = wire::Verb::kProof;
    proof.id = 9;
    proof.values = {handshake::ClientProof(key, *nonce, challenge->values[0])};
    if (sent) *sent += wire::Encode(proof);
    if (!Send(proof)) return false;
    auto verdict = Recv(2000);
    return verdict && verdict->verb == wire::Verb::kReply && verdict->code == 0;
  }

 private:
  explicit RawPeer(int fd) : fd_(fd) {}

  bool RecvExact(char* buf, size_t n, int ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    size_t got = 0;
    while (got < n) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      const ssize_t r = ::recv(fd_, buf + got, n - got, 0);
      if (r <= 0) return false;
      got += static_cast<size_t>(r);
    }
    return true;
  }

  int fd_;
};

}  // namespace weft::backends::bootstrap::testing
