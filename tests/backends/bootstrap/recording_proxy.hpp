// A TCP relay on 127.0.0.1 that records every byte in both directions, for asserting what
// crosses the wire (the secret must not). Serves one connection, on a thread of its own.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

namespace weft::backends::bootstrap::testing {

class RecordingProxy {
 public:
  explicit RecordingProxy(uint16_t upstream_port) : upstream_port_(upstream_port) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = Loopback(0);
    socklen_t len = sizeof(addr);
    ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    ::listen(listener_, 1);
    ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Run(); });
  }
  ~RecordingProxy() {
    stop_ = true;
    thread_.join();
    ::close(listener_);
  }

  uint16_t port() const { return port_; }
  // Everything the client sent, then everything the server sent.
  std::string Recorded() {
    std::lock_guard<std::mutex> lock(mu_);
    return to_server_ + to_client_;
  }
  std::string ToServer() {
    std::lock_guard<std::mutex> lock(mu_);
    return to_server_;
  }

 private:
  static sockaddr_in Loopback(uint16_t port) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return addr;
  }

  void Run() {
    pollfd p{listener_, POLLIN, 0};
    while (!stop_ && ::poll(&p, 1, 20) <= 0) {
    }
    if (stop_) return;
    const int client = ::accept(listener_, nullptr, nullptr);
    const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr = Loopback(upstream_port_);
    if (client < 0 || ::connect(server, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      ::close(client);
      ::close(server);
      return;
    }
    Relay(client, server);
    ::close(client);
    ::close(server);
  }

  void Relay(int client, int server) {
    char buf[65536];
    while (!stop_) {
      pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
      if (::poll(fds, 2, 20) <= 0) continue;
      for (int i = 0; i < 2; ++i) {
        if (fds[i].revents == 0) continue;
        const ssize_t n = ::recv(fds[i].fd, buf, sizeof(buf), 0);
        if (n <= 0) return;
        {
          std::lock_guard<std::mutex> lock(mu_);
          (i == 0 ? to_server_ : to_client_).append(buf, static_cast<size_t>(n));
        }
        if (::send(i == 0 ? server : client, buf, static_cast<size_t>(n), MSG_NOSIGNAL) != n)
          return;
      }
    }
  }

  uint16_t upstream_port_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::string to_server_, to_client_;
  std::thread thread_;
};

}  // namespace weft::backends::bootstrap::testing
