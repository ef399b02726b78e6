#include "backends/gloo/waiters.hpp"

namespace weft::backends::gloo_plugin {

Waiters::~Waiters() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

void Waiters::Run(std::function<void()> task) {
  std::lock_guard<std::mutex> lock(mu_);
  tasks_.push_back(std::move(task));
  if (idle_ > 0) {
    --idle_;  // promised to this task, so a second Run cannot count on it too
    cv_.notify_one();
    return;
  }
  try {
    threads_.emplace_back([this] { Loop(); });
  } catch (...) {
    tasks_.pop_back();
    throw;
  }
}

void Waiters::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || !tasks_.empty(); });
    if (tasks_.empty()) return;  // stopping
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();          // noexcept by contract
    task = nullptr;  // release what it holds before counting as idle
    lock.lock();
    ++idle_;
  }
}

}  // namespace weft::backends::gloo_plugin
