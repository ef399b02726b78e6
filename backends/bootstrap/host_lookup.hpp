// Name resolution for the store, shared by the server (what to bind), the client (where to
// connect) and the secret policy (is the store on this machine only?). One place decides
// which failures are permanent, so that a misspelt host fails at once instead of being
// retried until the connect deadline.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace weft::backends::bootstrap::detail {

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;

  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  int family() const { return storage.ss_family; }
  // "10.0.0.1" or "::1".
  std::string Text() const;
};

// Every TCP address `host` resolves to, in getaddrinfo's order, with `port` filled in.
// Errors: kInvalidArgument naming the host when the name does not exist (permanent: retrying
// cannot help), kNotAvailable for a temporary failure (retry), kSystem otherwise.
Result<std::vector<SocketAddress>> ResolveHost(const std::string& host, uint16_t port);

// 127.0.0.0/8, ::1 and IPv4-mapped 127/8: addresses no other machine can reach.
bool IsLoopback(const SocketAddress& address);
// Whether `host` is written as an IP address (not a name).
bool IsAddressLiteral(const std::string& host);

}  // namespace weft::backends::bootstrap::detail
