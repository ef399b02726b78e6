// A thread of each context that polls NCCL's asynchronous errors every WEFT_NCCL_WATCHDOG_MS,
// as torch's NCCL watchdog does. Calls into the plugin poll too, but a caller may wait on its
// stream instead (cudaStreamSynchronize, torch's .cpu()): a kernel waiting for a dead peer never
// returns, so without a call nothing would abort the communicators that release it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace weft::backends::nccl_plugin {

class Watchdog {
 public:
  // Runs `check` every `period` until destroyed; a zero period starts no thread.
  Watchdog(std::chrono::milliseconds period, std::function<void()> check);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  void Run();

  std::chrono::milliseconds period_;
  std::function<void()> check_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;  // last: starts once the rest is built
};

}  // namespace weft::backends::nccl_plugin
