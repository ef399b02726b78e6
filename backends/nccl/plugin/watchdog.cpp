#include "backends/nccl/plugin/watchdog.hpp"

#include <utility>

namespace weft::backends::nccl_plugin {

Watchdog::Watchdog(std::chrono::milliseconds period, std::function<void()> check)
    : period_(period), check_(std::move(check)) {
  if (period_.count() > 0) thread_ = std::thread([this] { Run(); });
}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, period_, [this] { return stop_; })) {
    lock.unlock();
    check_();
    lock.lock();
  }
}

}  // namespace weft::backends::nccl_plugin
