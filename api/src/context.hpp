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

#include "api/src/check_policy.hpp"
#include "api/src/handle_ref.hpp"
#include "api/src/posted_requests.hpp"
#include "api/src/work.hpp"
#include "backends/host/backend.hpp"
#include "backends/host/communicator.hpp"
#include "common/clock.hpp"
#include "common/params.hpp"
#include "common/result.hpp"
#include "weft/context.h"

namespace weft::backends::bootstrap {
class StoreServer;
class StoreClient;
class StoreSecret;
}  // namespace weft::backends::bootstrap

namespace weft::api {

class PlanCache;

class Context {
 public:
  static Result<std::unique_ptr<Context>> Create(const weft_context_options_t* opts);
  ~Context();

  // The collective part of destruction: drain, meet every rank, leave the store.
  Status Leave();
  // Leave found work that did not end even after aborting it: the context must not be freed
  // (that work still runs on it).
  bool work_outlived_abort() const { return work_outlived_abort_; }

  int32_t rank() const { return rank_; }
  int32_t world_size() const { return world_size_; }
  const std::string& backend_name() const { return backend_name_; }
  int64_t timeout_ms() const { return timeout_ms_; }
  // When collectives verify their arguments across the ranks (WEFT_CHECK_COLLECTIVES*).
  const CheckPolicy& check_policy() const { return check_policy_; }

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
  // The turn is taken with one compare-and-swap and handed on with one atomic add: the mutex
  // and the condition variable are touched only when an operation waits for its turn.
  template <typename Op>
  Status RunNow(Op&& op) {
    // Idle when no ticket is out (next == serving): then nobody can move the turn before this
    // swap takes the ticket, and a stale reading only sends the call down the queued path.
    const uint64_t serving = turn_.load(std::memory_order_acquire) >> kWaiterBits;
    uint64_t ticket = next_ticket_.load(std::memory_order_relaxed);
    if ((ticket & kTicketMask) != serving ||
        !next_ticket_.compare_exchange_strong(ticket, ticket + 1, std::memory_order_acq_rel))
      return Queued(std::forward<Op>(op));
    Status s = sticky_error();
    if (s.ok()) s = Explain(op());
    EndTurn();
    return s;
  }
  // The group of all ranks, in rank order.
  const std::vector<int32_t>& world_ranks() const { return world_ranks_; }

  // Marks the context failed (first call wins) and makes the backend drop pending work.
  // Returns whether this call was the first.
  bool Abort(Status why, int32_t failed_rank);
  // What an operation that ended with `s` reports, settling the context's state: the sticky
  // error once the context failed; a peer's failure or abort first waits briefly for the
  // store's verdict naming the rank that died; a failure of a peer, an abort or a deadline
  // becomes the sticky error, and a deadline is published to the other ranks (SPEC §10). OK
  // and IN_PROGRESS pass unchanged.
  Status Explain(Status s);
  Status sticky_error() const;
  int32_t failed_rank() const;
  // SPEC §6.4: this rank rejected its own arguments; tell the peers, who abort.
  void PublishLocalFailure(const std::string& message);
  // SPEC §10: an operation of this rank passed its deadline; the other ranks abort with
  // TIMEOUT too (timeout/<rank>), whatever they are blocked on.
  void PublishTimeout(const std::string& message);

  // Every rank's `mine`, in rank order, through the store (context_share.cpp): for the
  // agreements checked once (a rule registry attached, weft_rules_attach), not for data. A
  // collective: every rank calls it, in the same order; under the context's deadline.
  Result<std::vector<std::string>> ShareThroughStore(const std::string& topic,
                                                     const std::string& mine);

  // weft_redistribute's plan cache, created on first use, destroyed with the context.
  PlanCache& plan_cache();
  // Requests posted with work handles, orphaned when the context leaves.
  PostedRequests& posted() { return posted_; }

 private:
  Context() = default;
  // context_settings.cpp: deadlines, the plugin and the must-match values.
  Status ReadSettings(const weft_context_options_t* opts);
  Status OpenBackend(const weft_context_options_t* opts);
  // In the rendezvous, before joining: rank 0 publishes its must-match values; the others
  // compare theirs and record the first difference. After every rank joined: that difference
  // as kInvalidUsage on every rank.
  Status CompareSettings(std::chrono::steady_clock::time_point deadline);
  Status SettingsAgreed(std::chrono::steady_clock::time_point deadline);
  Status Bootstrap(const weft_context_options_t* opts);
  Status StartStore(const std::string& host, uint16_t port, bool host_it);
  Status ConnectStore(const std::string& host, uint16_t port,
                      const backends::bootstrap::StoreSecret& secret, uint32_t max_message);
  Status Rendezvous();
  Status LoadBackend();
  void OnStoreEvent(const std::string& key, const std::string& value);
  void WorkerLoop();
  template <typename Op>
  Status Queued(Op&& op) {
    auto r = Execute(std::function<Status()>(std::forward<Op>(op)), false);
    return r.ok() ? Status::Ok() : r.status();
  }
  std::chrono::steady_clock::time_point Deadline(int64_t ms) const;
  // Leave's meeting of every rank through the store, until `deadline` or a failure.
  Status MeetToLeave(std::chrono::steady_clock::time_point deadline);

  // First, so that it is released last: the host variables stay as read while this lives.
  params::Pinned params_pin_;
  int32_t rank_ = 0, world_size_ = 1, local_rank_ = 0, local_world_size_ = 1;
  int64_t timeout_ms_ = 300000, connect_timeout_ms_ = 60000;
  std::atomic<uint64_t> shares_{0};  // ShareThroughStore calls: each gets its own keys
  std::string backend_name_;
  std::vector<int32_t> world_ranks_;
  std::shared_ptr<backends::LoadedPlugin> plugin_;  // opened; initialised by LoadBackend
  std::vector<params::MatchValue> must_match_;

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
  // Tickets come from next_ticket_ (Execute under exec_mu_, or RunNow's swap when idle).
  // turn_ holds the ticket now served (its low 48 bits) above the number of threads waiting
  // for a turn (16 bits). One word, so that EndTurn hands the turn on and learns whether to
  // notify in one atomic step: a waiter counts itself (under exec_mu_) before it looks at the
  // turn, so either it sees the new turn or EndTurn sees it. And since nothing follows that
  // step when nobody waits, a thread returning from its call never touches a context that
  // another thread's weft_context_destroy (Leave waits for the turn) has freed meanwhile; when
  // someone waits, EndTurn notifies under the mutex, which the waiter needs to go on.
  static constexpr int kWaiterBits = 16;
  static constexpr uint64_t kTicketMask = (uint64_t{1} << (64 - kWaiterBits)) - 1;
  std::atomic<uint64_t> next_ticket_{0}, turn_{0};
  uint64_t Serving() const { return turn_.load() >> kWaiterBits; }
  void EndTurn();
  // Waits under `lock` (on exec_mu_) until `until` returns true or `deadline`.
  template <typename Pred>
  bool WaitTurn(std::unique_lock<std::mutex>& lock, std::chrono::steady_clock::time_point deadline,
                Pred&& until) {
    turn_.fetch_add(1);
    bool ok = true;
    if (deadline == kNoDeadline)
      exec_cv_.wait(lock, until);
    else
      ok = exec_cv_.wait_until(lock, deadline, until);
    turn_.fetch_sub(1);
    return ok;
  }
  // How long a failing operation waits for the store's verdict on which rank died (Explain).
  static constexpr std::chrono::seconds kVerdictWait{1};
  // How long a timed-out operation spends telling the other ranks (a stopped store host must
  // not hold it up for long).
  static constexpr std::chrono::milliseconds kPublishTimeoutBound{250};
  // How long Leave waits for pending work to end after it aborted it.
  static constexpr std::chrono::seconds kAbortedWorkGrace{10};
  bool work_outlived_abort_ = false;
  std::deque<std::function<void()>> background_;
  std::thread worker_;
  bool stopping_ = false;

  std::mutex plan_cache_mu_;
  std::unique_ptr<PlanCache> plan_cache_;
  PostedRequests posted_;

  mutable std::mutex error_mu_;
  std::condition_variable failed_cv_;  // notified when failed_ becomes true
  Status sticky_;
  int32_t failed_rank_ = -1;
  std::atomic<bool> failed_{false};

  CheckPolicy check_policy_;  // last: the fields above keep their places (dispatch_bench)
};

// A weft_context_t names a Context.
template <>
struct HandleTraits<weft_context> {
  using Object = Context;
  static constexpr HandleKind kKind = HandleKind::kContext;
};

}  // namespace weft::api
