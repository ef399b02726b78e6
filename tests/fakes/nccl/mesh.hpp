// The fake NCCL's wires: one Unix-domain stream socket between every two ranks of a
// communicator, found through a directory the unique id names (each rank listens at
// <dir>/<rank>). A batch of transfers runs to completion with poll(): per peer, its sends in
// order and its receives in order, both directions and every peer at once, so that a group's
// sends and receives never wait on each other. Each message carries its length, so that a
// receive of another size than the matching send is an error, not a silent truncation.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace weft::fake_nccl {

struct Transfer {
  int peer = 0;
  bool send = false;
  void* buf = nullptr;  // send: read from; receive: written to
  size_t bytes = 0;
  // Progress: the 8-byte length first, then the payload.
  uint64_t header = 0;
  size_t done = 0;  // of 8 + bytes
};

enum class Outcome { kDone, kPeerLost, kSizeMismatch, kAborted };

class Mesh {
 public:
  // Connects rank `rank` of `nranks` through `dir`; nullptr and `why` when a peer does not
  // appear within `timeout_ms` or `abort` is set meanwhile.
  static std::unique_ptr<Mesh> Connect(const std::string& dir, int rank, int nranks,
                                       int64_t timeout_ms, const std::atomic<bool>& abort,
                                       std::string* why);
  ~Mesh();
  Mesh(const Mesh&) = delete;
  Mesh& operator=(const Mesh&) = delete;

  // Runs `transfers` (peers other than this rank) to completion, or until a peer is lost, a
  // length disagrees (`why` says which), or `abort` is set.
  Outcome Run(std::vector<Transfer>& transfers, const std::atomic<bool>& abort, std::string* why);
  // Shuts every socket down: the peers' transfers fail at once (a dead rank, as they see it).
  void Shutdown();

  int rank() const { return rank_; }
  int size() const { return static_cast<int>(fds_.size()); }

 private:
  Mesh(int rank, std::vector<int> fds) : rank_(rank), fds_(std::move(fds)) {}
  // One poll result of peer p: a step of its current send and receive (either may be null).
  Outcome Serve(size_t p, short revents, Transfer* send, Transfer* recv, std::string* why);
  int rank_;
  std::vector<int> fds_;  // by peer; -1 for this rank
};

}  // namespace weft::fake_nccl
