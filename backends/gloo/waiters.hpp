// Threads that sit in Gloo's blocking waits for posted point-to-point operations, so that
// requests can be tested without blocking and waited on with the caller's own timeout (a
// timeout of Gloo's own wait is fatal for the whole context).
//
// Every task gets a thread of its own (an idle one, or a new one): a wait never queues behind
// another, which could deadlock. Threads stay for reuse until the pool is destroyed, which
// joins them; tasks must therefore end (the op completes, fails, is interrupted, or reaches
// its deadline) and must not own the plugin state that owns the pool.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace weft::backends::gloo_plugin {

class Waiters {
 public:
  Waiters() = default;
  ~Waiters();
  Waiters(const Waiters&) = delete;
  Waiters& operator=(const Waiters&) = delete;

  // Runs `task` on a thread that has nothing else to do. Throws std::system_error when no
  // thread can be started.
  void Run(std::function<void()> task);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;  // waiting threads not yet promised a task
  bool stop_ = false;
};

}  // namespace weft::backends::gloo_plugin
