// A blocking TCP client socket with deadline-bounded connect and send. The client's reader
// thread blocks in RecvExact; Shutdown() from any thread wakes it, so nothing polls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "backends/bootstrap/store_types.hpp"
#include "common/clock.hpp"
#include "common/result.hpp"

namespace weft::backends::bootstrap::detail {

class ClientSocket {
 public:
  // One connection attempt to every address `host` resolves to, until one succeeds or the
  // deadline passes. Errors: kTimeout, kSystem with the OS's reason (e.g. refused), or
  // ResolveHost's (kInvalidArgument naming a host that does not exist: do not retry).
  static Result<ClientSocket> Connect(const std::string& host, uint16_t port,
                                      Clock::time_point deadline);

  explicit ClientSocket(int fd) : fd_(fd) {}
  ClientSocket(ClientSocket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  ClientSocket& operator=(ClientSocket&&) = delete;
  ClientSocket(const ClientSocket&) = delete;
  ~ClientSocket();

  // Sends all of `data` or fails: kTimeout at the deadline, kPeerFailure if the connection
  // broke. `*sent` says how much went out, since a partial frame corrupts the stream.
  Status SendAll(std::string_view data, Clock::time_point deadline, size_t* sent);
  // Blocks until n bytes arrived; kPeerFailure on EOF, error or Shutdown(), kTimeout at the
  // deadline (a far deadline blocks in recv without polling).
  Status RecvExact(char* buf, size_t n, Clock::time_point deadline = kNoDeadline);
  // Thread-safe; wakes a blocked RecvExact. The fd stays open until destruction so that it
  // cannot be reused under a concurrent call.
  void Shutdown();

 private:
  int fd_ = -1;
};

}  // namespace weft::backends::bootstrap::detail
