// A collective as a list of rounds run by whichever thread tests or waits on its request.
//
// Each round posts its transfers (tagged sends and receives) together; a receive may carry an
// action that runs as soon as it has landed (reduce this segment while the next ones are still
// in flight), and the round may end with an action (reduce, copy) once all its transfers are
// done. Then the next round is posted. Rounds are built before the first one is posted, so the
// algorithm is plain code in the builders and the engine only sequences.
//
// The collective's request (the handle the host gets) owns the schedule; each transfer is a
// point-to-point Request of its own, so peer failures, aborts and cancellation reach it
// through the same paths as a user's send or receive, and the first failed step fails the
// collective with that step's message ("allreduce: receive from rank 3: rank 3 failed ...").
//
// Everything here runs with State::mu() held.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/ucx/transport/transport.hpp"

namespace weft::backends::ucx_plugin {

// A step that can fail (a reduction): WEFT_OK or an error with *why set.
using Action = std::function<weft_status_t(std::string* why)>;

// Something a round waits for besides its transfers: the other members' data on the board
// (coll/board.hpp).
class Awaited {
 public:
  virtual ~Awaited() = default;
  // When the round is posted (after its own-block copy).
  virtual void Begin() = 0;
  // WEFT_OK with *ready set, or the failure that ends the wait (*why set).
  virtual weft_status_t Poll(bool* ready, std::string* why) = 0;
  // When the wait is over, however it ended; may come more than once.
  virtual void End() = 0;
};

class Schedule {
 public:
  // `name` is a string literal naming the collective; `deadline` applies to every step.
  Schedule(Comm& c, const char* name, Clock::time_point deadline);
  ~Schedule();
  Schedule(const Schedule&) = delete;
  Schedule& operator=(const Schedule&) = delete;

  // --- building (before Start) ---
  // Opens a new round; the calls below add to the newest one.
  void NewRound();
  void Send(int32_t peer, const void* buf, uint64_t bytes);
  void Recv(int32_t peer, void* buf, uint64_t bytes, Action on_arrival = {});
  // A receive whose sender, when it sends by single copy, writes the bytes into `buf` (a push,
  // grants.hpp) rather than this rank reading them.
  void RecvPushed(int32_t peer, void* buf, uint64_t bytes);
  // Copies this rank's own block right after the round's transfers are posted, while they fly
  // (it must not touch the buffers they read or write): in slices, with the
  // transport progressed between them while the round's receives are pending, so that a
  // peer's single-copy message is read (and acknowledged) as soon as its descriptor is here
  // rather than after the whole copy; the peer, waiting for that acknowledgement, then gets it
  // while we finish copying (2 ranks, 256 KiB all-to-all: the acknowledgement's 0.3-0.5 us
  // stopped adding to every call). `bytes` 0 or `dst == src`: nothing to copy.
  void CopyDuring(void* dst, const void* src, uint64_t bytes);
  void Then(Action after);
  // The round also waits for `what` (after its transfers, before `Then`).
  void Await(std::shared_ptr<Awaited> what);
  // Its sends never take a pipe, whatever they move (else only when it moves much; Start).
  void NoPipes() { no_pipes_ = true; }
  // Memory that lives as long as the collective and every UCX request into it.
  char* Scratch(uint64_t bytes);
  bool empty() const { return rounds_.empty(); }

  // --- running ---
  // Posts the first round and advances as far as possible; `parent` is the collective's
  // request and ends when the last round did (or the first step failed).
  void Start(Request* parent);
  // Called after every progress: completes finished rounds and posts the next ones.
  void Advance();
  // Ends every step still pending (the collective itself was cancelled or timed out).
  void CancelSteps(weft_status_t status, const std::string& message);

 private:
  struct Transfer {
    bool recv = false;
    int32_t peer = 0;  // group index
    void* buf = nullptr;
    uint64_t bytes = 0;
    Action on_arrival;
    bool lend = false;
  };
  struct Round {
    std::vector<Transfer> transfers;
    Action during;
    Action after;
    std::shared_ptr<Awaited> awaited;
  };
  struct Live {
    Request* req = nullptr;
    bool handled = false;  // its arrival action ran
  };

  void Post();
  // CopyDuring's work.
  void CopyWhileProgressing(char* dst, const char* src, uint64_t bytes);
  void Fail(weft_status_t status, const std::string& message);
  void ReleaseSteps();
  // Ends the current round's wait on something besides its transfers, if any.
  void EndAwait();

  Comm& comm_;
  const char* name_;
  Clock::time_point deadline_;
  uint32_t seq_;
  std::vector<Round> rounds_;
  std::vector<std::shared_ptr<void>> scratch_;
  std::shared_ptr<void> keep_;  // handed to each step: keeps every scratch buffer alive
  size_t current_ = 0;
  std::vector<Live> live_;  // the current round's steps, in the order of its transfers
  Request* parent_ = nullptr;
  bool bulk_ = false;  // its sends never take a pipe (Start says why)
  bool no_pipes_ = false;
};

}  // namespace weft::backends::ucx_plugin
