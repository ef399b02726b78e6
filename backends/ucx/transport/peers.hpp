// The peers of this rank, by world rank: each one's endpoint, what we mapped of it (grant
// table, board, pipes) and whether it failed. A component of State (state.hpp), under its lock.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <ucp/api/ucp.h>

#include "backends/ucx/transport/cma.hpp"
#include "backends/ucx/transport/path_choice.hpp"

namespace weft::backends::ucx_plugin {

class State;

// One peer's endpoint. Heap-allocated so its address can be the error callback's argument.
struct Peer {
  State* state = nullptr;
  int32_t rank = -1;
  ucp_ep_h ep = nullptr;
  // Messages of at least this many bytes go by single copy (cma.hpp); 0: never.
  uint64_t cma_bytes = 0;
  int64_t pid = 0;
  // This peer's grant table, when it lends buffers to us (grants.hpp); null otherwise.
  std::unique_ptr<PeerGrants> grants;
  // This peer's board, mapped, when it shares our host and has one (board.hpp); null otherwise.
  std::unique_ptr<PeerBoard> board;
  // This peer's pipes, mapped (pipes.hpp): it sends to us through them, and we wake it
  // through its file when we send through ours; null when it has none or we cannot map them.
  std::unique_ptr<PeerPipes> pipes;
  bool pushed = false;  // we wrote a message into this peer's buffer (logged once)
  bool lent = false;    // we lent this peer a buffer to write into (logged once)
  bool piped = false;   // we sent this peer a message through a pipe (logged once)
  bool read = false;    // we read a message of this peer's by single copy (logged once)
  // Whether single-copy-sized messages to this peer go by single copy or through a pipe, by
  // what each cost lately (path_choice.hpp); made when a pipe first could take a message (a
  // peer on this host): 1.2 KiB, which every rank of a large world need not carry.
  std::unique_ptr<PathChoice> ways;
  bool failed = false;           // the endpoint reported an error (set inside progress)
  bool failure_handled = false;  // its requests were failed and the endpoint force-closed
  ucs_status_t why = UCS_OK;
};

class Peers {
 public:
  // One Peer per world rank, none connected yet.
  void Create(State* state, int32_t world_size);

  Peer& operator[](int32_t rank) { return *peers_[rank]; }
  const Peer& operator[](int32_t rank) const { return *peers_[rank]; }
  auto begin() { return peers_.begin(); }
  auto end() { return peers_.end(); }

  // The endpoint error callback's argument is the Peer; its state hears of it (inside progress).
  static void OnEndpointError(void* arg, ucp_ep_h ep, ucs_status_t status);
  // Marks `peer` failed; the requests with it are failed after progress returns.
  void MarkFailed(Peer* peer, ucs_status_t status);
  // Whether a peer failed since TakeErrorPending last returned true.
  bool TakeErrorPending() {
    const bool pending = error_pending_;
    error_pending_ = false;
    return pending;
  }

  // "rank R failed (UCX: ...)".
  static std::string FailureText(const Peer& p);
  // Starts closing the endpoint of `p` (force: do not flush); a pending close goes to
  // *closing when given, else is released at once.
  static void Close(Peer& p, bool force, std::vector<void*>* closing);
  // Closes every endpoint: healthy peers flushed, failed ones (all when `force`) forced;
  // waits (progressing `worker`) a bounded time for the flushes.
  void CloseAll(ucp_worker_h worker, bool force);

 private:
  std::vector<std::unique_ptr<Peer>> peers_;  // by world rank; ep null until connected
  bool error_pending_ = false;
};

}  // namespace weft::backends::ucx_plugin
