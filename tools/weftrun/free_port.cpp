#include "tools/weftrun/free_port.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "tools/weftrun/unique_fd.hpp"

namespace weft::tools {
namespace {

Status SystemError(const char* what) {
  return {Code::kSystem, std::string("cannot pick a free port for the store: ") + what + ": " +
                             std::strerror(errno)};
}

}  // namespace

Result<int> PickFreePort() {
  UniqueFd sock(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!sock) return SystemError("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(sock.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
    return SystemError("bind 127.0.0.1:0");
  }
  socklen_t len = sizeof addr;
  if (::getsockname(sock.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return SystemError("getsockname");
  }
  return static_cast<int>(ntohs(addr.sin_port));
}

}  // namespace weft::tools
