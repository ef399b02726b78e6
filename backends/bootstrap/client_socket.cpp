#include "backends/bootstrap/client_socket.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "backends/bootstrap/deadline.hpp"
#include "backends/bootstrap/host_lookup.hpp"

namespace weft::backends::bootstrap::detail {
namespace {

Status Errno(Code code, const std::string& what, int err) {
  return {code, what + ": " + std::strerror(err)};
}

// Waits for `events` on fd until the deadline. 1 = ready, 0 = timed out, -1 = error.
int PollFor(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int rc = ::poll(&p, 1, RemainingMs(deadline));
    if (rc >= 0 || errno != EINTR) return rc > 0 ? 1 : rc;
  }
}

// A non-blocking connect bounded by the deadline; the socket is blocking on success.
Result<ClientSocket> ConnectOne(const SocketAddress& address, Clock::time_point deadline) {
  int fd = ::socket(address.family(), SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return Errno(Code::kSystem, "socket", errno);
  ClientSocket owner(fd);
  if (::connect(fd, address.get(), address.length) != 0) {
    if (errno != EINPROGRESS) return Errno(Code::kSystem, "connect", errno);
    int ready = PollFor(fd, POLLOUT, deadline);
    if (ready == 0) return Status{Code::kTimeout, "connect timed out"};
    if (ready < 0) return Errno(Code::kSystem, "poll", errno);
    int err = 0;
    socklen_t len = sizeof(err);
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return Errno(Code::kSystem, "connect", err);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  return owner;
}

}  // namespace

Result<ClientSocket> ClientSocket::Connect(const std::string& host, uint16_t port,
                                           Clock::time_point deadline) {
  WEFT_ASSIGN_OR_RETURN(std::vector<SocketAddress> addresses, ResolveHost(host, port));
  Status last{Code::kSystem, "no address"};
  for (const SocketAddress& address : addresses) {
    auto socket = ConnectOne(address, deadline);
    if (socket.ok()) return socket;
    last = socket.status();
  }
  return last;
}

ClientSocket::~ClientSocket() {
  if (fd_ >= 0) ::close(fd_);
}

Status ClientSocket::SendAll(std::string_view data, Clock::time_point deadline, size_t* sent) {
  *sent = 0;
  while (*sent < data.size()) {
    ssize_t n = ::send(fd_, data.data() + *sent, data.size() - *sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      *sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      return Errno(Code::kPeerFailure, "send", errno);
    }
    int ready = PollFor(fd_, POLLOUT, deadline);
    if (ready == 0) return Status{Code::kTimeout, "send timed out"};
    if (ready < 0) return Errno(Code::kPeerFailure, "poll", errno);
  }
  return Status::Ok();
}

Status ClientSocket::RecvExact(char* buf, size_t n, Clock::time_point deadline) {
  const bool bounded = !IsForever(deadline, Clock::now());
  size_t got = 0;
  while (got < n) {
    if (bounded) {
      const int ready = PollFor(fd_, POLLIN, deadline);
      if (ready == 0) return Status{Code::kTimeout, "no answer in time"};
      if (ready < 0) return Errno(Code::kPeerFailure, "poll", errno);
    }
    ssize_t r = ::recv(fd_, buf + got, n - got, bounded ? MSG_DONTWAIT : 0);
    if (r > 0) {
      got += static_cast<size_t>(r);
    } else if (r == 0) {
      return Status{Code::kPeerFailure, "connection closed by the store"};
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      return Errno(Code::kPeerFailure, "recv", errno);
    }
  }
  return Status::Ok();
}

void ClientSocket::Shutdown() {
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

}  // namespace weft::backends::bootstrap::detail
