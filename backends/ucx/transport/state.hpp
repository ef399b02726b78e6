// What init() creates: one UCP context and one worker for the Weft context, and the components
// that hold the rest by concern, each in its own file: the peers and their endpoints
// (peers.hpp), the requests UCX still owns (owned_requests.hpp), the single-copy transfers and
// loans (single_copy.hpp), the calls waiting on boards (board_watchers.hpp), the abort and
// failure record (failure_record.hpp); the pipes' part is in state_pipes.cpp. State runs
// progress and failures across them.
//
// Threads: every UCX call and every field below is guarded by one mutex, `mu()`, and the
// worker runs in UCS_THREAD_MODE_SERIALIZED. The host issues ops from its worker thread or the
// user's thread (serialized by the context's ticket order), while abort() comes from the store's
// event thread and comm_create from whichever thread first uses a group. One plugin lock gives
// a single lock order: UCX invokes our callbacks from inside ucp_worker_progress, which we only
// call with the lock held, so callbacks update plugin state without taking another lock and no
// UCX-internal lock can ever be held while we wait for ours. A waiter never sleeps holding it:
// it arms the worker and polls the worker's event fd plus an eventfd abort() writes to.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <ucp/api/ucp.h>

#include <weft/backend_plugin.h>

#include "backends/ucx/transport/board_watchers.hpp"
#include "backends/ucx/transport/cma.hpp"
#include "backends/ucx/transport/failure_record.hpp"
#include "backends/ucx/transport/owned_requests.hpp"
#include "backends/ucx/transport/path_choice.hpp"
#include "backends/ucx/transport/peers.hpp"
#include "backends/ucx/transport/single_copy.hpp"
#include "backends/ucx/tuning.hpp"

namespace weft::backends::ucx_plugin {

using Clock = std::chrono::steady_clock;

struct Request;
struct ScratchBuffer;

class State {
 public:
  static weft_status_t Create(const weft_bk_host_api_t* host, const weft_bk_init_args_t* args,
                              std::unique_ptr<State>* out);
  State(const weft_bk_host_api_t* host, const weft_bk_init_args_t& args, const Tuning& tuning);
  ~State();
  State(const State&) = delete;
  State& operator=(const State&) = delete;

  const weft_bk_host_api_t* host() const { return host_; }
  int32_t rank() const { return args_.world_rank; }
  int32_t world_size() const { return args_.world_size; }
  // This process's id, read once (getpid is a system call: a tenth of a microsecond a message).
  int64_t pid() const { return cma_.pid; }
  const Tuning& tuning() const { return tuning_; }
  // How long a waiter keeps polling before it sleeps on the event fd (Tuning::spin_us).
  Clock::duration spin() const { return spin_; }
  // Whether each rank of this host has a CPU of its own (CpuPerRank).
  bool cpu_per_rank() const { return cpu_per_rank_; }
  // Reports `message` through host->set_error (for this thread) and returns `status`.
  weft_status_t Fail(weft_status_t status, const std::string& message) const;

  std::mutex& mu() { return mu_; }
  ucp_worker_h worker() const { return worker_; }
  // What comm_create publishes for this rank: its CmaIdentity, then its worker address.
  const std::vector<char>& address() const { return address_; }
  const Peer& peer(int32_t rank) const { return peers_[rank]; }
  // This rank's board (closed when it has none).
  Board& board() { return board_; }

  // --- everything below requires mu() ---

  // Creates the endpoint to `rank` from what it published (address()) unless it exists.
  weft_status_t Connect(int32_t rank, const std::vector<char>& address);
  bool Connected(int32_t rank) const;
  // The endpoint for an op with `rank`, or an error (reported) when aborted or the peer failed.
  weft_status_t Endpoint(int32_t rank, const char* op, ucp_ep_h* ep);
  // The same without reporting: the reason goes to *why.
  weft_status_t EndpointOrWhy(int32_t rank, ucp_ep_h* ep, std::string* why);
  // WEFT_OK, or the abort's status with *message set.
  weft_status_t Aborted(std::string* message) const { return failures_.Aborted(message); }

  // Requests UCX still owns (pending or cancelled but not yet called back).
  void Track(Request* r) { owned_.Track(r); }
  void Untrack(Request* r) { owned_.Untrack(r); }

  // ucp_worker_progress until idle, then fails the requests of peers whose endpoint errored,
  // performs the single-copy transfers that became due (QueueTransfer) and ends the receives
  // whose lent buffer was written.
  void Progress();
  // A receive whose descriptor arrived, or a send whose receiver asked for a push (called
  // inside progress): read or written after progress returns.
  void QueueTransfer(Request* r) { single_copy_.Queue(r); }
  // Takes back the buffer a receive lent to its sender (Request::Finish calls it).
  void EndLoan(Request* r) { single_copy_.EndLoan(r); }
  // Pipes (pipes.hpp, state_pipes.cpp). A single-copy send to `r`'s peer goes through a pipe
  // when this returns a channel's token (0: not this one): when a pipe can take it and it is
  // the cheaper way lately (Peer::ways; r->strided says which kind of message it is). The
  // caller puts the token into the descriptor and sets r->pipe; once the descriptor left,
  // StartPipeSend copies what fits.
  uint64_t PipeFor(Request* r);
  // A single-copy-sized send `r` that went `way` ended well and its copies took `ns` on both
  // sides together: a sample for Peer::ways.
  void RecordWay(const Request& r, PathChoice::Way way, uint64_t ns);
  void StartPipeSend(Request* r);
  // A receive whose descriptor names a pipe: attaches and takes what arrived, or answers
  // through the channel when it ended already (refused, cancelled, failed).
  void AnswerPipe(Request* r);
  // Lets go of `r`'s channel (Request::Finish calls it); a receiver answers the sender.
  void EndPipe(Request* r);
  // Memory for packing a strided message, reused across messages (fresh pages would fault).
  std::shared_ptr<ScratchBuffer> Staging(uint64_t bytes);
  // Tells the sender of a descriptor how its message ended (a fire-and-forget tagged send),
  // and how long reading it took (`copy_ns`, 0 when not read).
  void SendAck(int32_t rank, uint64_t ack_tag, weft_status_t status, uint64_t receive_bytes,
               uint64_t copy_ns = 0) {
    single_copy_.SendAck(rank, ack_tag, status, receive_bytes, copy_ns);
  }
  // Calls waiting on boards: Progress() moves them on, Sleep() looks at them once more before
  // it sleeps (board.hpp).
  void Watch(BoardWaiter* w) { watchers_.Watch(w); }
  void Unwatch(BoardWaiter* w) { watchers_.Unwatch(w); }
  // Keeps the board queue of a destroyed communicator while it still has calls to finish.
  void AdoptBoard(std::shared_ptr<BoardWaiter> queue) { watchers_.Adopt(std::move(queue)); }
  // Called from the endpoint error callback (inside progress).
  void OnPeerError(Peer* peer, ucs_status_t status);

  // abort(): any thread. Takes mu() itself.
  void Abort(weft_status_t status, int32_t failed_rank, const std::string& reason);
  weft_status_t AsyncError(int32_t* failed_rank);
  void RecordFailure(weft_status_t status, int32_t failed_rank) {
    failures_.Record(status, failed_rank);
  }

  // Sleeps until the worker has events, abort() signals, or `until`. Called with `lock` held
  // (it is released while sleeping). Returns after at most a bounded time so keepalive and
  // deadlines are looked at even when no event arrives.
  void Sleep(std::unique_lock<std::mutex>& lock, Clock::time_point until);
  // Called with `lock` held by a waiting thread: while an abort() waits for the lock, lets go
  // of it until the abort is done. std::mutex is not fair: a waiter whose worker keeps
  // reporting events (ucp_worker_arm: BUSY, after a peer died) takes the lock back at once,
  // and the abort, on the store's event thread, once waited out the whole operation deadline.
  void LetAbortIn(std::unique_lock<std::mutex>& lock);
  // Logs `line` at debug level the first time (*logged false), which path messages take.
  void LogOnce(bool* logged, const std::string& line) const;

 private:
  friend class SingleCopyQueue;  // reads and writes the peers it copies with
  weft_status_t Open();
  void LogEndpoint(int32_t rank) const;
  void HandlePeerFailures();
  // Fills the pipes this rank sends through and drains those it receives from.
  void AdvancePipes();
  // Whether AdvancePipes has something to do now (a sleeper's last look).
  bool PipesReady() const;
  // Ends the pipe ops with `rank` (every one when < 0); whether there were any.
  bool FailPipes(int32_t rank, weft_status_t status, const std::string& why);
  // Ends `r` (if not already ended) with `status`, asking UCX to withdraw it.
  void FailRequest(Request* r, weft_status_t status, const std::string& message);

  const weft_bk_host_api_t* host_;
  weft_bk_init_args_t args_;
  Tuning tuning_;
  bool cpu_per_rank_;
  Clock::duration spin_;

  std::mutex mu_;
  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  int worker_fd_ = -1;  // owned by UCX
  int wake_fd_ = -1;    // eventfd written by abort()
  std::vector<char> address_;
  Peers peers_;
  OwnedRequests owned_;
  CmaIdentity cma_;
  // Memory for packing strided messages (Staging).
  std::vector<std::shared_ptr<ScratchBuffer>> staging_;
  SingleCopyQueue single_copy_{*this};
  // The shared-memory board for small collectives, and the waits on boards in progress.
  Board board_;
  BoardWatchers watchers_;
  // This rank's pipes, the sends still filling one and the receives attached to one.
  PipeFile pipes_;
  std::vector<Request*> pipe_sends_;
  std::vector<Request*> pipe_recvs_;
  FailureRecord failures_;
};

}  // namespace weft::backends::ucx_plugin
