// The user's send and recv once posted (SPEC §6.3), with their arguments verified with the peer
// when the policy asks for it (docs/collective_checks.md): each side posts, all at once, a
// receive of the peer's 64-byte record, a send of its own and the payload, then waits for the
// three. Posting the payload before the verdict keeps a message in flight exactly as without
// the check (a check that held it back would stall a peer waiting for it elsewhere); it is
// safe because the payload goes flagged WEFT_BK_OP_UNVERIFIED_SIZE, which a backend that could
// not take a length mismatch honours by failing the receive instead. Both sides then hold both
// records and fail alike with INVALID_USAGE naming both. A message to oneself is not checked:
// the backend's mailbox compares the lengths.
//
// Records travel on kCheckTagBase | role << 31 | tag (backends/host/communicator.hpp): the
// sender's on role 0, the receiver's on role 1, so the k-th send to a peer on a tag meets the
// k-th receive from this rank on that tag, as the messages themselves do.
#pragma once

#include <array>
#include <memory>

#include "api/src/check_policy.hpp"
#include "api/src/check_record.hpp"
#include "backends/host/communicator.hpp"

namespace weft::api {

struct P2pArgs {
  bool send = true;
  void* buf = nullptr;
  uint64_t count = 0;
  DType dtype{};
  int32_t peer = 0;  // member index
  int64_t tag = 0;
};

// Whether a user send/recv to `peer` on `c` is checked (never on device buffers: see
// WillCheck in collective_check.hpp).
bool CheckPointToPoint(const backends::Communicator& c, const CheckPolicy& policy, int32_t peer,
                       const backends::OpArgs& a);

// The flags of a user send/recv's payload (WEFT_BK_OP_UNVERIFIED_SIZE).
backends::OpArgs PayloadArgs(const backends::OpArgs& a);

class PostedP2p {
 public:
  // Hands records still in flight to the communicator: a request freed while pending may
  // still write them (the work was released).
  ~PostedP2p();
  PostedP2p(const PostedP2p&) = delete;
  PostedP2p& operator=(const PostedP2p&) = delete;

  // Posts the payload, and the records' exchange when `check`.
  static Result<std::unique_ptr<PostedP2p>> Post(backends::Communicator& c,
                                                 const backends::OpArgs& a, const P2pArgs& p,
                                                 bool check);
  // Waits up to timeout_ms (< 0: until the op's deadline) for everything posted: kInProgress
  // when that wait elapsed first (call again), else the outcome.
  Status Wait(backends::Communicator& c, int64_t timeout_ms, const backends::OpArgs& a);
  // Whether everything posted ended (without collecting outcomes: Wait does that).
  Result<bool> Test(backends::Communicator& c);
  // Withdraws what is still pending (the context is going).
  void Cancel(backends::Communicator& c);

 private:
  explicit PostedP2p(backends::Communicator& c) : comm_(c) {}
  Status Verdict(const backends::Communicator& c) const;

  static constexpr int kPayload = 0, kTheirs = 1, kMine = 2;
  struct Records {
    check::Record mine, theirs;
  };
  backends::Communicator& comm_;
  std::shared_ptr<Records> records_;
  std::array<std::unique_ptr<backends::Communicator::Request>, 3> reqs_;
  std::array<Status, 3> outcome_;
  std::array<bool, 3> done_{};
};

}  // namespace weft::api
