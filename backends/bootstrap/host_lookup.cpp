#include "backends/bootstrap/host_lookup.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <cstring>
#include <memory>

namespace weft::backends::bootstrap::detail {
namespace {

struct AddrInfoDeleter {
  void operator()(addrinfo* ai) const { freeaddrinfo(ai); }
};

Status ResolveError(const std::string& host, int rc) {
  const std::string what = "bootstrap store: cannot resolve the store host '" + host + "': ";
  switch (rc) {
    case EAI_NONAME:
    case EAI_FAIL:
#ifdef EAI_NODATA
    case EAI_NODATA:
#endif
#ifdef EAI_ADDRFAMILY
    case EAI_ADDRFAMILY:
#endif
      return InvalidArgument(what + ::gai_strerror(rc) + " (check WEFT_STORE, MASTER_ADDR or " +
                             "the store host option)");
    case EAI_AGAIN:
      return {Code::kNotAvailable, what + ::gai_strerror(rc)};
    default:
      return {Code::kSystem, what + ::gai_strerror(rc)};
  }
}

}  // namespace

std::string SocketAddress::Text() const {
  char text[INET6_ADDRSTRLEN] = {};
  const void* raw = nullptr;
  if (family() == AF_INET) raw = &reinterpret_cast<const sockaddr_in*>(get())->sin_addr;
  if (family() == AF_INET6) raw = &reinterpret_cast<const sockaddr_in6*>(get())->sin6_addr;
  if (raw == nullptr || ::inet_ntop(family(), raw, text, sizeof(text)) == nullptr) return "?";
  return text;
}

Result<std::vector<SocketAddress>> ResolveHost(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* raw = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &raw);
  if (rc != 0) return ResolveError(host, rc);
  std::unique_ptr<addrinfo, AddrInfoDeleter> list(raw);
  std::vector<SocketAddress> out;
  for (const addrinfo* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_addrlen > sizeof(sockaddr_storage)) continue;
    SocketAddress a;
    std::memcpy(&a.storage, ai->ai_addr, ai->ai_addrlen);
    a.length = ai->ai_addrlen;
    out.push_back(a);
  }
  if (out.empty()) return ResolveError(host, EAI_NONAME);
  return out;
}

bool IsLoopback(const SocketAddress& address) {
  if (address.family() == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address.get());
    return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
  }
  if (address.family() == AF_INET6) {
    const in6_addr& v6 = reinterpret_cast<const sockaddr_in6*>(address.get())->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

bool IsAddressLiteral(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

}  // namespace weft::backends::bootstrap::detail
