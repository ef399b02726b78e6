#include "api/src/p2p_check.hpp"

#include <algorithm>
#include <chrono>
#include <string>

#include "common/clock.hpp"

namespace weft::api {
namespace {

using backends::Communicator;
using backends::OpArgs;
using check::Kind;
using check::Record;
using Clock = std::chrono::steady_clock;

int64_t CheckTag(int64_t tag, int64_t role) { return backends::kCheckTagBase | role << 31 | tag; }

Record P2pRecord(const Communicator& c, const P2pArgs& p) {
  check::Call call;
  call.kind = p.send ? Kind::kSend : Kind::kRecv;
  call.dtype = p.dtype;
  call.root = p.peer;
  call.count = p.count;
  Record r = check::MakeRecord(call, c.index(), c.size(), 0, check::GroupHash(c.ranks()));
  r.tag = static_cast<int32_t>(p.tag);
  return r;
}

// "" when the sender's record `s` and the receiver's `r` agree.
std::string Disagreement(const Communicator& c, const Record& s, const Record& r) {
  const std::string head = "message on tag " + std::to_string(s.tag) + " from " +
                           check::RankText(c.ranks(), s.index) + " to " +
                           check::RankText(c.ranks(), r.index) + ": ";
  if (s.magic != r.magic || s.kind != static_cast<uint8_t>(Kind::kSend) ||
      r.kind != static_cast<uint8_t>(Kind::kRecv) || s.tag != r.tag || s.root != r.index ||
      r.root != s.index || s.group != r.group)
    return head + "the two sides' argument records do not pair up (another Weft version?)";
  if (s.count == r.count && s.dtype_code == r.dtype_code && s.dtype_bits == r.dtype_bits &&
      s.dtype_lanes == r.dtype_lanes)
    return "";
  return head + check::RankText(c.ranks(), s.index) + " sends " + check::Describe(s) + ", " +
         check::RankText(c.ranks(), r.index) + " receives " + check::Describe(r);
}

}  // namespace

bool CheckPointToPoint(const Communicator& c, const CheckPolicy& policy, int32_t peer,
                       const OpArgs& a) {
  // Untagged backends (NCCL) match messages in posting order: the records would break it.
  return peer != c.index() && a.OnHost() && !c.UntaggedP2p() &&
         policy.CheckPointToPoint(c.SizeSafe());
}

OpArgs PayloadArgs(const OpArgs& a) {
  OpArgs f = a;
  f.bk_flags |= WEFT_BK_OP_UNVERIFIED_SIZE;
  return f;
}

PostedP2p::~PostedP2p() {
  const bool in_flight = (reqs_[kTheirs] && !done_[kTheirs]) || (reqs_[kMine] && !done_[kMine]);
  if (in_flight) comm_.KeepAlive(records_);
}

Result<std::unique_ptr<PostedP2p>> PostedP2p::Post(Communicator& c, const OpArgs& a,
                                                   const P2pArgs& p, bool check) {
  std::unique_ptr<PostedP2p> out(new PostedP2p(c));
  if (check) {
    out->records_ = std::make_shared<Records>();
    Records& r = *out->records_;
    r.mine = P2pRecord(c, p);
    const int64_t mine = p.send ? 0 : 1;
    WEFT_ASSIGN_OR_RETURN(out->reqs_[kTheirs], c.PostRecv(&r.theirs, sizeof(Record), p.peer,
                                                          CheckTag(p.tag, 1 - mine), a));
    WEFT_ASSIGN_OR_RETURN(out->reqs_[kMine],
                          c.PostSend(&r.mine, sizeof(Record), p.peer, CheckTag(p.tag, mine), a));
  }
  const OpArgs f = PayloadArgs(a);
  const uint64_t bytes = p.count * static_cast<uint64_t>(ItemSize(p.dtype));
  WEFT_ASSIGN_OR_RETURN(out->reqs_[kPayload], p.send ? c.PostSend(p.buf, bytes, p.peer, p.tag, f)
                                                     : c.PostRecv(p.buf, bytes, p.peer, p.tag, f));
  return out;
}

Status PostedP2p::Wait(Communicator& c, int64_t timeout_ms, const OpArgs& a) {
  const auto until = DeadlineFromTimeoutMs(timeout_ms);
  for (size_t i = 0; i < reqs_.size(); ++i) {
    if (!reqs_[i] || done_[i]) continue;
    Status s = c.WaitOne(*reqs_[i], RemainingMs(until), a);
    if (s.code() == Code::kInProgress) return s;
    done_[i] = true;
    outcome_[i] = std::move(s);
  }
  return Verdict(c);
}

Result<bool> PostedP2p::Test(Communicator& c) {
  for (size_t i = 0; i < reqs_.size(); ++i) {
    if (!reqs_[i] || done_[i]) continue;
    WEFT_ASSIGN_OR_RETURN(bool ended, c.Test(*reqs_[i]));
    if (!ended) return false;
  }
  return true;
}

void PostedP2p::Cancel(Communicator& c) {
  for (size_t i = 0; i < reqs_.size(); ++i)
    if (reqs_[i] && !done_[i]) c.Cancel(*reqs_[i]);
}

Status PostedP2p::Verdict(const Communicator& c) const {
  if (reqs_[kMine] && outcome_[kTheirs].ok() && outcome_[kMine].ok()) {
    const Records& r = *records_;
    const bool sending = r.mine.kind == static_cast<uint8_t>(Kind::kSend);
    const std::string why =
        sending ? Disagreement(c, r.mine, r.theirs) : Disagreement(c, r.theirs, r.mine);
    if (!why.empty()) return InvalidUsage(why);
  }
  for (const Status& s : outcome_)
    if (!s.ok()) return s;
  return Status::Ok();
}

}  // namespace weft::api
