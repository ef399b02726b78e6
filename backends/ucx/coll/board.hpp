// Small all-reduces and barriers on the shared-memory boards of one host (board.hpp).
//
// Each member publishes its vector in its own board and reads every other member's; all of
// them reduce the vectors in member order (0, 1, ..., n-1), so every member ends with the same
// bits. A barrier publishes nothing but its call number. Whether a collective runs here
// depends only on the communicator (all members agreed on boards when it was created) and
// the size, both the same on every member, and blocking callers and callers that asked for a
// request run the same protocol, so members may mix the two.
//
// While it waits a member keeps UCX progressing (other messages in flight may need this
// process), and fails when a member it still waits for can publish no more: its endpoint
// failed, its process is gone (looked at every kLivenessCheck), or the context aborted.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "backends/ucx/coll/algorithms.hpp"

namespace weft::backends::ucx_plugin {

// Whether a collective with a payload of `bytes` on `c` runs on the boards.
inline bool OnBoard(const Comm& c, uint64_t bytes) {
  return !c.board.empty() && bytes <= kBoardBytes;
}

// One board collective of one member, from its publication to the last member's data.
class BoardCall final : public Awaited, public BoardWaiter {
 public:
  explicit BoardCall(Comm& c);
  ~BoardCall() override;

  // Publishes `bytes` at `data` as this member's part.
  void Publish(const void* data, uint64_t bytes);
  // Once per call, after Publish: a full fence, then wakes the members sleeping on a board.
  void WakeSleepers();
  // Every member's part is there.
  bool Arrived() const override;
  // WEFT_OK while every member still missing can publish, else the failure (*why set).
  weft_status_t Check(std::string* why);
  // out = the members' parts reduced in member order (`bytes` each). Fails (ABORTED) when a
  // member's part was overwritten meanwhile: its owner gave up on this call (its deadline)
  // and went on past the next one, so the result would mix calls.
  weft_status_t Reduce(const Reduction& red, void* out, std::string* why) const;
  // Waits for every member, or until `deadline` (TIMEOUT). Requires `lock` on State::mu().
  weft_status_t Wait(std::unique_lock<std::mutex>& lock, Clock::time_point deadline,
                     std::string* why);

  // As a schedule's round (requests): Begin publishes what Stage() kept, Poll checks.
  void Stage(const void* data, uint64_t bytes);
  void Begin() override;
  weft_status_t Poll(bool* ready, std::string* why) override;
  void End() override;

 private:
  Comm& c_;
  State& st_;
  uint64_t seq_;
  uint64_t bytes_ = 0;
  const void* staged_ = nullptr;
  mutable int32_t next_ = 0;  // members before this one have published
  bool woken_ = true;         // WakeSleepers ran since the last Publish
  bool watched_ = false;
  Clock::time_point next_check_;
};

// Blocking forms: WEFT_OK, or the failure after State::Fail. They take State::mu() themselves.
weft_status_t BoardAllreduce(Comm& c, const Reduction& red, const void* send, void* recv,
                             uint64_t bytes, Clock::time_point deadline);
weft_status_t BoardBarrier(Comm& c, Clock::time_point deadline);

// Request forms: one round that publishes when posted and waits on the board.
void BuildBoardAllreduce(Schedule& s, Comm& c, const Reduction& red, const void* send, void* recv,
                         uint64_t bytes);
void BuildBoardBarrier(Schedule& s, Comm& c);

}  // namespace weft::backends::ucx_plugin
