#include "tests/fakes/nccl/mesh.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

namespace weft::fake_nccl {
namespace {

using Clock = std::chrono::steady_clock;

bool Address(const std::string& dir, int rank, sockaddr_un* addr) {
  const std::string path = dir + "/" + std::to_string(rank);
  if (path.size() >= sizeof(addr->sun_path)) return false;
  *addr = {};
  addr->sun_family = AF_UNIX;
  std::memcpy(addr->sun_path, path.c_str(), path.size() + 1);
  return true;
}

// Blocking exact I/O on a socket still in blocking mode (connection set-up only).
bool WriteAll(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    const ssize_t w = ::send(fd, c, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    c += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

bool ReadAll(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    const ssize_t r = ::recv(fd, c, n, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    c += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// Waits until `fd` is readable, the deadline passes or `abort` is set.
bool WaitReadable(int fd, Clock::time_point deadline, const std::atomic<bool>& abort) {
  while (!abort.load() && Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) > 0) return true;
  }
  return false;
}

struct Fds {
  std::vector<int> fds;
  int listener = -1;
  ~Fds() {
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
    if (listener >= 0) ::close(listener);
  }
};

}  // namespace

namespace {

// Connects to every lower rank and names itself to each.
bool ConnectLower(const std::string& dir, int rank, Clock::time_point deadline,
                  const std::atomic<bool>& abort, Fds& f, std::string* why) {
  for (int peer = 0; peer < rank; ++peer) {
    sockaddr_un addr{};
    Address(dir, peer, &addr);
    while (true) {
      const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
        f.fds[static_cast<size_t>(peer)] = fd;
        break;
      }
      ::close(fd);
      if (abort.load() || Clock::now() >= deadline) {
        *why = "rank " + std::to_string(peer) + " did not appear at " + dir;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (!WriteAll(f.fds[static_cast<size_t>(peer)], &rank, sizeof(rank))) {
      *why = "rank " + std::to_string(peer) + " closed during set-up";
      return false;
    }
  }
  return true;
}

// Accepts every higher rank, each naming itself first.
bool AcceptHigher(const std::string& where, int rank, int nranks, Clock::time_point deadline,
                  const std::atomic<bool>& abort, Fds& f, std::string* why) {
  for (int n = rank + 1; n < nranks; ++n) {
    if (!WaitReadable(f.listener, deadline, abort)) {
      *why = "not every higher rank connected to rank " + std::to_string(rank) + " at " + where;
      return false;
    }
    const int fd = ::accept4(f.listener, nullptr, nullptr, SOCK_CLOEXEC);
    int peer = -1;
    if (fd < 0 || !ReadAll(fd, &peer, sizeof(peer)) || peer <= rank || peer >= nranks ||
        f.fds[static_cast<size_t>(peer)] >= 0) {
      if (fd >= 0) ::close(fd);
      *why = "a bad connection at " + where;
      return false;
    }
    f.fds[static_cast<size_t>(peer)] = fd;
  }
  return true;
}

}  // namespace

std::unique_ptr<Mesh> Mesh::Connect(const std::string& dir, int rank, int nranks,
                                    int64_t timeout_ms, const std::atomic<bool>& abort,
                                    std::string* why) {
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  Fds f;
  f.fds.assign(static_cast<size_t>(nranks), -1);
  sockaddr_un self{};
  if (!Address(dir, rank, &self)) {
    *why = "socket path too long under " + dir;
    return nullptr;
  }
  f.listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (f.listener < 0 || ::bind(f.listener, reinterpret_cast<sockaddr*>(&self), sizeof(self)) != 0 ||
      ::listen(f.listener, nranks) != 0) {
    *why = "cannot listen at " + std::string(self.sun_path) + ": " + std::strerror(errno);
    return nullptr;
  }
  const bool ok = ConnectLower(dir, rank, deadline, abort, f, why) &&
                  AcceptHigher(self.sun_path, rank, nranks, deadline, abort, f, why);
  ::unlink(self.sun_path);
  ::rmdir(dir.c_str());  // the last rank to leave removes the directory
  if (!ok) return nullptr;
  for (int fd : f.fds)
    if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  std::vector<int> fds = std::move(f.fds);
  f.fds.clear();
  return std::unique_ptr<Mesh>(new Mesh(rank, std::move(fds)));
}

Mesh::~Mesh() {
  for (int fd : fds_)
    if (fd >= 0) ::close(fd);
}

void Mesh::Shutdown() {
  for (int fd : fds_)
    if (fd >= 0) ::shutdown(fd, SHUT_RDWR);
}

namespace {

// One step of `t` on `fd`: false when the peer is gone; `mismatch` when its length differs.
bool Step(int fd, Transfer& t, bool* mismatch) {
  while (t.done < 8 + t.bytes) {
    char* base;
    size_t at, len;
    if (t.done < 8) {
      if (t.send) t.header = t.bytes;
      base = reinterpret_cast<char*>(&t.header);
      at = t.done;
      len = 8 - t.done;
    } else {
      base = static_cast<char*>(t.buf);
      at = t.done - 8;
      len = t.bytes - at;
    }
    const ssize_t n =
        t.send ? ::send(fd, base + at, len, MSG_NOSIGNAL) : ::recv(fd, base + at, len, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
    if (n <= 0) return false;
    t.done += static_cast<size_t>(n);
    if (!t.send && t.done == 8 && t.header != t.bytes) {
      *mismatch = true;
      return true;
    }
  }
  return true;
}

}  // namespace

namespace {

// Per peer, the next unfinished send and receive of a batch (indices in issue order).
struct Cursor {
  std::vector<Transfer>& transfers;
  std::vector<size_t> next_send, next_recv;

  Transfer* Next(size_t peer, bool send) {
    size_t& i = (send ? next_send : next_recv)[peer];
    while (i < transfers.size() &&
           (transfers[i].peer != static_cast<int>(peer) || transfers[i].send != send ||
            transfers[i].done == 8 + transfers[i].bytes))
      ++i;
    return i < transfers.size() ? &transfers[i] : nullptr;
  }
};

}  // namespace

Outcome Mesh::Run(std::vector<Transfer>& transfers, const std::atomic<bool>& abort,
                  std::string* why) {
  const size_t np = fds_.size();
  Cursor cur{transfers, std::vector<size_t>(np, 0), std::vector<size_t>(np, 0)};
  std::vector<pollfd> polls;
  std::vector<size_t> peer_of;
  while (true) {
    polls.clear();
    peer_of.clear();
    for (size_t p = 0; p < np; ++p) {
      const short events =
          static_cast<short>((cur.Next(p, true) ? POLLOUT : 0) | (cur.Next(p, false) ? POLLIN : 0));
      if (fds_[p] < 0 || events == 0) continue;
      polls.push_back({fds_[p], events, 0});
      peer_of.push_back(p);
    }
    if (polls.empty()) return Outcome::kDone;
    if (abort.load()) return Outcome::kAborted;
    if (::poll(polls.data(), polls.size(), 50) <= 0) continue;
    for (size_t k = 0; k < polls.size(); ++k) {
      const Outcome out = Serve(peer_of[k], polls[k].revents, cur.Next(peer_of[k], true),
                                cur.Next(peer_of[k], false), why);
      if (out != Outcome::kDone) return out;
    }
  }
}

Outcome Mesh::Serve(size_t p, short revents, Transfer* send, Transfer* recv, std::string* why) {
  bool mismatch = false, alive = true;
  if (send && (revents & (POLLOUT | POLLERR | POLLHUP))) alive = Step(fds_[p], *send, &mismatch);
  if (alive && recv && (revents & (POLLIN | POLLERR | POLLHUP)))
    alive = Step(fds_[p], *recv, &mismatch);
  if (mismatch) {
    *why = "rank " + std::to_string(p) + " sent " + std::to_string(recv->header) +
           " bytes where rank " + std::to_string(rank_) + " receives " +
           std::to_string(recv->bytes);
    return Outcome::kSizeMismatch;
  }
  if (!alive) {
    *why = "rank " + std::to_string(p) + " is gone (its connection closed)";
    return Outcome::kPeerLost;
  }
  return Outcome::kDone;
}

}  // namespace weft::fake_nccl
