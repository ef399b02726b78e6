// Ordered execution, failure propagation and teardown of a Context.
#include <string>

#include "api/src/context.hpp"
#include "api/src/plan_cache.hpp"
#include "backends/bootstrap/store_client.hpp"
#include "backends/bootstrap/store_server.hpp"
#include "backends/bootstrap/store_types.hpp"
#include "common/clock.hpp"
#include "common/log.hpp"

namespace weft::api {
namespace {
using Clock = std::chrono::steady_clock;

}  // namespace

Result<std::shared_ptr<WorkState>> Context::Execute(std::function<Status()> op, bool async) {
  auto work = std::make_shared<WorkState>();
  std::unique_lock<std::mutex> lock(exec_mu_);
  const uint64_t ticket = next_ticket_.fetch_add(1);
  auto run = [this, op = std::move(op), work, ticket] {
    {
      std::unique_lock<std::mutex> turn(exec_mu_);
      WaitTurn(turn, kNoDeadline, [&] { return Serving() == (ticket & kTicketMask); });
    }
    Status s = sticky_error();
    if (s.ok()) s = Explain(op());
    work->Complete(s);
    EndTurn();
  };
  if (async) {
    if (!worker_.joinable()) worker_ = std::thread([this] { WorkerLoop(); });
    background_.push_back(std::move(run));
    exec_cv_.notify_all();
    return work;
  }
  lock.unlock();
  run();
  const Status s = work->Wait(0);
  if (!s.ok()) return s;
  return work;
}

void Context::EndTurn() {
  // Only the holder of the turn ends it: the add moves the served ticket on by one (wrapping
  // with it at 2^48) and leaves the waiter count as it is.
  const uint64_t before = turn_.fetch_add(uint64_t{1} << kWaiterBits, std::memory_order_acq_rel);
  if ((before & ((uint64_t{1} << kWaiterBits) - 1)) == 0) return;
  // Under the mutex: a waiter checks its turn and sleeps holding it, so none is in between;
  // and Leave, one of the waiters, cannot return before this thread lets go of it.
  std::lock_guard<std::mutex> sync(exec_mu_);
  exec_cv_.notify_all();
}

void Context::WorkerLoop() {
  std::unique_lock<std::mutex> lock(exec_mu_);
  while (true) {
    exec_cv_.wait(lock, [&] { return stopping_ || !background_.empty(); });
    if (background_.empty()) return;  // stopping with nothing left
    auto task = std::move(background_.front());
    background_.pop_front();
    // The task waits for its ticket, so it runs after every inline operation issued before it.
    lock.unlock();
    task();
    lock.lock();
  }
}

// An operation failing because the context failed reports the context's failure, which
// names the rank, rather than whatever the transport saw of it. A transport can see a dead
// peer (connection reset) a few milliseconds before the store's liveness verdict arrives, and
// a live peer that aborted on that death (its endpoints closed, its messages withdrawn) can
// reach this rank before the verdict does: then wait for that verdict briefly, so the call and
// the sticky error name the rank that died (SPEC §10), and if none comes, this failure becomes
// the context's.
//
// A deadline that passed poisons the context too, at once: the peers' state is unknown (one
// may be stopped in the middle of the call) and the sequence of operations on the
// communicator is broken (the next call would pair with the peers' leftovers of this one).
// The abort fails whatever else is pending, later calls fail with the sticky TIMEOUT, and
// destroy does not wait a second deadline for peers that are not coming. The other ranks
// hear of it through the store and abort with TIMEOUT as well: a peer blocked in the same
// call would otherwise see this rank's abort as a failed connection (Gloo closes a pair
// whose wait timed out) and report a live rank as failed.
Status Context::Explain(Status s) {
  if (s.ok() || s.code() == Code::kInProgress) return s;
  const Code code = s.code();
  const bool peer_side = code == Code::kPeerFailure || code == Code::kAborted;
  if (peer_side && !failed_ && world_size_ > 1) {
    std::unique_lock<std::mutex> lock(error_mu_);
    failed_cv_.wait_for(lock, kVerdictWait, [&] { return failed_.load(); });
  }
  const Status sticky = sticky_error();
  if (!sticky.ok()) return sticky;
  if ((peer_side || code == Code::kTimeout) && Abort(s, -1) && code == Code::kTimeout)
    PublishTimeout(s.message());
  return s;
}

bool Context::Abort(Status why, int32_t failed_rank) {
  {
    std::lock_guard<std::mutex> lock(error_mu_);
    if (failed_) return false;
    sticky_ = why;
    failed_rank_ = failed_rank;
    failed_ = true;
  }
  failed_cv_.notify_all();
  WEFT_LOG_ERROR("{}", why.message());
  std::lock_guard<std::mutex> lock(backend_mu_);
  if (backend_)
    backend_->table().abort(backend_->state(), static_cast<weft_status_t>(why.code()), failed_rank,
                            why.message().c_str());
  return true;
}

void Context::ReleaseBackend() {
  std::unique_ptr<backends::Backend> gone;
  {
    std::lock_guard<std::mutex> lock(backend_mu_);
    gone = std::move(backend_);
  }
  // Finalized here, outside the lock: no Abort can reach it any more.
}

Status Context::sticky_error() const {
  if (!failed_) return Status::Ok();
  std::lock_guard<std::mutex> lock(error_mu_);
  return sticky_;
}

int32_t Context::failed_rank() const {
  std::lock_guard<std::mutex> lock(error_mu_);
  return failed_rank_;
}

void Context::OnStoreEvent(const std::string& key, const std::string& value) {
  // Runs on the store client's event thread: record and abort, nothing blocking.
  if (key == backends::bootstrap::kStoreLostKey) {
    Abort(Status(Code::kPeerFailure, "rank 0 failed: lost the store it hosted (" + value + ")"), 0);
  } else if (key.rfind("failed/", 0) == 0) {
    const int32_t r = std::atoi(key.c_str() + 7);
    if (r != rank_)
      Abort(Status(Code::kPeerFailure, "rank " + std::to_string(r) + " failed (" + value + ")"), r);
  } else if (key.rfind("timeout/", 0) == 0) {
    const int32_t r = std::atoi(key.c_str() + 8);
    if (r != rank_)
      Abort(Status(Code::kTimeout, "rank " + std::to_string(r) +
                                       ": an operation passed its deadline (" + value + ")"),
            -1);
  } else if (key.rfind("opfail/", 0) == 0) {
    const int32_t r = std::atoi(key.c_str() + 7);
    if (r != rank_)
      Abort(
          Status(Code::kAborted, "rank " + std::to_string(r) + " rejected its arguments: " + value),
          r);
  }
}

void Context::PublishLocalFailure(const std::string& message) {
  if (world_size_ == 1 || !store_) return;
  (void)store_->Publish("opfail/" + std::to_string(rank_), message,
                        Clock::now() + std::chrono::seconds(1));
  // Peers' matching operation fails and their connections to this rank go down with it, so
  // this context is no longer usable either.
  Abort(Status(Code::kAborted, "this rank rejected its arguments: " + message), rank_);
}

void Context::PublishTimeout(const std::string& message) {
  if (world_size_ == 1 || !store_) return;
  (void)store_->Publish("timeout/" + std::to_string(rank_), message,
                        Clock::now() + kPublishTimeoutBound);
}

Status Context::Leave() {
  const auto deadline = Deadline(timeout_ms_);
  Status result;
  // Wait for every issued operation (inline or background) to finish.
  {
    std::unique_lock<std::mutex> lock(exec_mu_);
    // Reached or passed (tickets taken after this read end later still).
    const uint64_t last = next_ticket_.load() & kTicketMask;
    auto drained = [&] { return ((Serving() - last) & kTicketMask) < (kTicketMask >> 1); };
    if (!WaitTurn(lock, deadline, drained)) {
      result = Status(Code::kTimeout, "pending work passed the deadline");
      Abort(Status(Code::kTimeout, "weft_context_destroy: pending work passed the deadline"), -1);
      // The abort fails what the backend still holds, so that work ends now; it runs on the
      // communicators and the backend freed below, so they go only once it did. Work that
      // outlives even this leaves the context to the caller's process, never freed under it.
      if (!WaitTurn(lock, Clock::now() + kAbortedWorkGrace, drained)) {
        work_outlived_abort_ = true;
        return Status(Code::kTimeout,
                      "pending work passed the deadline and did not end when aborted; the "
                      "context is left allocated");
      }
    }
  }
  if (store_ && !failed_) result = MeetToLeave(deadline);
  posted_.OrphanAll();  // while the backend their requests live in is still there
  last_comm_ = nullptr;
  world_comm_.store(nullptr);
  comms_.clear();
  ReleaseBackend();
  if (store_) {
    if (!failed_) (void)store_->Leave(deadline);
    store_->Close();
  }
  if (server_) {
    // After a failure a rank still registered may never leave (stopped, hung): keep the store
    // up only briefly for the ranks tearing down alongside this one, not until the deadline.
    const auto until =
        failed_ ? std::min(deadline, Clock::now() + std::chrono::seconds(1)) : deadline;
    server_->WaitAllLeft(world_size_, until);
  }
  return result;
}

Status Context::MeetToLeave(Clock::time_point deadline) {
  // Meet every rank before closing connections so no peer sees this rank vanish mid-op. A
  // failure that arrives meanwhile (a rank died, SPEC §10) ends the wait: that rank never
  // comes, and waiting for it would take the whole deadline. Hence slices.
  auto arrived = store_->Add("destroy/arrived", 1, deadline);
  if (!arrived.ok()) return sticky_error().ok() ? arrived.status() : sticky_error();
  if (*arrived == world_size_) (void)store_->Set("destroy/all", "1", deadline);
  while (true) {
    const auto slice = std::min(deadline, Clock::now() + std::chrono::milliseconds(100));
    const Status s = store_->Wait({"destroy/all"}, slice);
    if (s.ok()) return s;
    if (failed_) return sticky_error();
    if (s.code() != Code::kTimeout) return s;
    if (Clock::now() >= deadline)
      return Status(Code::kTimeout,
                    "weft_context_destroy: not every rank arrived within the context's deadline "
                    "(" +
                        s.message() + ")");
  }
}

Context::~Context() {
  {
    std::lock_guard<std::mutex> lock(exec_mu_);
    stopping_ = true;
  }
  exec_cv_.notify_all();
  if (worker_.joinable()) worker_.join();
  plan_cache_.reset();  // before the communicators its plans were made for
  last_comm_ = nullptr;
  world_comm_.store(nullptr);
  comms_.clear();
  ReleaseBackend();
  if (store_) store_->Close();
  if (server_) server_->Stop();
}

}  // namespace weft::api
