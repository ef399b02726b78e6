#include "tools/weftrun/signal_pipe.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

namespace weft::tools {
namespace {

constexpr std::array<int, 4> kSignals = {SIGINT, SIGTERM, SIGCHLD, SIGPIPE};

// Set by the handler, exchanged by Take(). Lock-free atomics are safe in a handler, and the
// exchange cannot lose a signal that lands between reading a flag and clearing it.
std::atomic<int> g_wake_fd{-1};
std::atomic<bool> g_child_exited{false};
std::atomic<int> g_stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free);

void OnSignal(int signal) {
  const int saved_errno = errno;
  if (signal == SIGCHLD) {
    g_child_exited = true;
  } else {
    g_stop_signal = signal;
  }
  const char byte = 0;
  // A full pipe already holds a pending wake-up, so a failed write loses nothing.
  [[maybe_unused]] const ssize_t n = ::write(g_wake_fd, &byte, 1);
  errno = saved_errno;
}

}  // namespace

Status SignalPipe::Install() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    return {Code::kSystem, std::string("cannot create the signal pipe: ") + std::strerror(errno)};
  }
  read_.Reset(fds[0]);
  write_.Reset(fds[1]);
  g_wake_fd = write_.get();
  for (size_t i = 0; i < kSignals.size(); ++i) {
    struct sigaction action {};
    action.sa_handler = kSignals[i] == SIGPIPE ? SIG_IGN : OnSignal;
    action.sa_flags = SA_RESTART | (kSignals[i] == SIGCHLD ? SA_NOCLDSTOP : 0);
    sigemptyset(&action.sa_mask);
    ::sigaction(kSignals[i], &action, &previous_[i]);
  }
  installed_ = true;
  return Status::Ok();
}

SignalPipe::~SignalPipe() {
  if (!installed_) return;
  for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &previous_[i], nullptr);
  g_wake_fd = -1;
}

SignalPipe::Events SignalPipe::Take() {
  // Empty the pipe before reading the flags: a signal that lands in between then leaves a
  // byte behind and wakes the next poll(), instead of being lost.
  char bytes[64];
  while (::read(read_.get(), bytes, sizeof bytes) > 0) {
  }
  Events events;
  events.child_exited = g_child_exited.exchange(false);
  events.stop_signal = g_stop_signal.exchange(0);
  return events;
}

}  // namespace weft::tools
