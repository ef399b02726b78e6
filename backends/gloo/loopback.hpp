// Point-to-point with oneself (peer == own index). Gloo has no pair to its own rank, so such
// messages are copied here. A send never blocks: without a posted receive it is buffered. A
// receive completes when a matching send arrives. Matching is in order per tag, as with peers.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <weft/backend_plugin.h>

namespace weft::backends::gloo_plugin {

class Loopback {
 public:
  // A posted receive.
  struct Slot {
    void* data = nullptr;
    uint64_t bytes = 0;
    bool done = false;
    weft_status_t status = WEFT_OK;
    std::string message;
  };

  void Send(int64_t tag, const void* data, uint64_t bytes);
  std::shared_ptr<Slot> Recv(int64_t tag, void* data, uint64_t bytes);

  // Waits until the receive finished or `until` passed; true when finished.
  bool WaitUntil(const Slot& slot, std::chrono::steady_clock::time_point until);
  // Withdraws a pending receive, which then finishes with `status`.
  void Withdraw(const std::shared_ptr<Slot>& slot, weft_status_t status,
                const std::string& message);
  // Fails every pending receive and every later one (the communicator failed or was aborted).
  void FailAll(weft_status_t status, const std::string& message);

 private:
  // Copies a message into a receive and finishes it. mu_ held.
  static void Deliver(Slot& slot, const char* data, uint64_t bytes);

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int64_t, std::deque<std::vector<char>>> unexpected_;  // sends nobody received yet
  std::map<int64_t, std::deque<std::shared_ptr<Slot>>> posted_;  // receives still waiting
  weft_status_t failed_ = WEFT_OK;
  std::string failed_message_;
};

}  // namespace weft::backends::gloo_plugin
