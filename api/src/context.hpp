// A process's membership in a world (SPEC §6.3, §8, §10): the launch environment, the
// bootstrap store (hosted here on rank 0) with this rank's liveness channel, the backend
// plugin, the communicators of the groups in use, the ordered executor that runs operations
// inline or in the background, and the sticky error.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/src/work.hpp"
#include "backends/host/backend.hpp"
#include "backends/host/communicator.hpp"
#include "common/result.hpp"
#include "weft/context.h"

namespace weft::backends::bootstrap {
class StoreServer;
class StoreClient;
}  // namespace weft::backends::bootstrap

namespace weft::api {

class PlanCache;

class Context {
 public:
  static Result<std::unique_ptr<Context>> Create(const weft_context_options_t* opts);
  ~Context();

  // The collective part of destruction: drain, meet every rank, leave the store.
  Status Leave();

  int32_t rank() const { return rank_; }
  int32_t world_size() const { return world_size_; }
  const std::string& backend_name() const { return backend_name_; }
  int64_t timeout_ms() const { return timeout_ms_; }

  // The communicator of the group `ranks` (group order), created on first use by its members.
  // Call only from inside an operation run by Execute.
  Result<backends::Communicator*> Group(const std::vector<int32_t>& ranks,
                                        std::chrono::steady_clock::time_point deadline);

  // Runs `op` after every operation issued before it: now, on this thread, when `async` is
  // false; otherwise on the background thread, with the returned state completed after.
  Result<std::shared_ptr<WorkState>> Execute(std::function<Status()> op, bool async);
  // Execute(op, false) without its allocations when no operation is queued or running (the
  // usual case of a blocking call: a small collective's latency is a few microseconds, and a
  // completion object, its lock and condition variable are a tenth of that).
  // The turn is taken with one compare-and-swap and handed on with one store: the mutex and
  // the condition variable are touched only when an operation is queued behind this one.
  template <typename Op>
  Status RunNow(Op&& op) {
    // Idle when no ticket is out: next_ticket_ == now_serving_, and then nobody can move
    // now_serving_ before this swap takes the ticket.
    uint64_t ticket = now_serving_.load(std::memory_order_acquire);
    if (!next_ticket_.compare_exchange_strong(ticket, ticket + 1, std::memory_order_acq_rel))
      return Queued(std::forward<Op>(op));
    Status s = sticky_error();
    if (s.ok()) s = Explain(op());
    EndTurn(ticket);
    return s;
  }
  // The group of all ranks, in rank order.
  const std::vector<int32_t>& world_ranks() const { return world_ranks_; }

  // Marks the context failed (first call wins) and makes the backend drop pending work.
  void Abort(Status why, int32_t failed_rank);
  Status sticky_error() const;
  int32_t failed_rank() const;
  // SPEC §6.4: this rank rejected its own arguments; tell the peers, who abort.
  void PublishLocalFailure(const std::string& message);

  // weft_redistribute's plan cache, created on first use, destroyed with the context.
  PlanCache& plan_cache();

 private:
  Context() = default;
  Status Bootstrap(const weft_context_options_t* opts);
  Status ConnectStore(const std::string& host, uint16_t port);
  Status Rendezvous();
  Status LoadBackend(const weft_context_options_t* opts);
  void OnStoreEvent(const std::string& key, const std::string& value);
  void WorkerLoop();
  template <typename Op>
  Status Queued(Op&& op) {
    auto r = Execute(std::function<Status()>(std::forward<Op>(op)), false);
    return r.ok() ? Status::Ok() : r.status();
  }
  Status Explain(Status s);
  std::chrono::steady_clock::time_point Deadline(int64_t ms) const;

  int32_t rank_ = 0, world_size_ = 1, local_rank_ = 0, local_world_size_ = 1;
  int64_t timeout_ms_ = 300000, connect_timeout_ms_ = 60000;
  std::string backend_name_;
  std::vector<int32_t> world_ranks_;

  std::unique_ptr<backends::bootstrap::StoreServer> server_;
  std::unique_ptr<backends::bootstrap::StoreClient> store_;
  std::unique_ptr<backends::Backend> backend_;
  // Abort runs on the store's event thread and may race teardown: it reaches the backend only
  // under this lock, and teardown takes the backend out under it before finalizing it.
  std::mutex backend_mu_;
  void ReleaseBackend();
  std::map<std::string, std::unique_ptr<backends::Communicator>> comms_;
  std::mutex comms_mu_;
  // The group of the last lookup: most programs call many collectives on one group in a row,
  // and building the key (a hash printed in hex) costs more than an 8-byte all-reduce.
  std::vector<int32_t> last_group_;
  backends::Communicator* last_comm_ = nullptr;
  // The world's communicator once created (communicators live until teardown).
  std::atomic<backends::Communicator*> world_comm_{nullptr};

  // Ordered execution: each operation takes a ticket and runs when its turn comes.
  std::mutex exec_mu_;
  std::condition_variable exec_cv_;
  // Taken (next_ticket_) under exec_mu_ by Execute, or by RunNow's swap when idle; each waiter
  // for a turn counts itself in turn_waiters_ (under exec_mu_) so that EndTurn notifies only
  // when someone waits: it stores now_serving_, then reads the count (both sequentially
  // consistent), so a waiter either sees the new turn or is seen.
  std::atomic<uint64_t> next_ticket_{0}, now_serving_{0};
  std::atomic<int32_t> turn_waiters_{0};
  void EndTurn(uint64_t ticket);
  // Waits under `lock` (on exec_mu_) until `until` returns true or `deadline`.
  template <typename Pred>
  bool WaitTurn(std::unique_lock<std::mutex>& lock, std::chrono::steady_clock::time_point deadline,
                Pred&& until) {
    turn_waiters_.fetch_add(1);
    bool ok = true;
    if (deadline == std::chrono::steady_clock::time_point::max())
      exec_cv_.wait(lock, until);
    else
      ok = exec_cv_.wait_until(lock, deadline, until);
    turn_waiters_.fetch_sub(1);
    return ok;
  }
  std::deque<std::function<void()>> background_;
  std::thread worker_;
  bool stopping_ = false;

  std::mutex plan_cache_mu_;
  std::unique_ptr<PlanCache> plan_cache_;

  mutable std::mutex error_mu_;
  std::condition_variable failed_cv_;  // notified when failed_ becomes true
  Status sticky_;
  int32_t failed_rank_ = -1;
  std::atomic<bool> failed_{false};
};

}  // namespace weft::api

struct weft_context {
  std::unique_ptr<weft::api::Context> impl;
};
