#include "backends/ucx/coll/small.hpp"

#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "backends/ucx/transport/transport.hpp"
#include "common/clock.hpp"
#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {
namespace {

constexpr const char* kName = "allreduce";

// The communicator's reused pieces (Comm::small). A step request that UCX still holds when a
// call fails is handed back (Request::Release frees it once UCX lets go) and replaced.
struct Slots {
  std::unique_ptr<weft_bk_request> recv, send;
  std::shared_ptr<ScratchBuffer> theirs;  // the partner's vector; each receive keeps it alive
};

Slots& SlotsOf(Comm& c) {
  if (!c.small) {
    auto s = std::make_shared<Slots>();
    s->theirs = AcquireScratch(c, kSmallAllreduceBytes);
    c.small = std::move(s);
  }
  return *static_cast<Slots*>(c.small.get());
}

class Run {
 public:
  Run(Comm& c, std::unique_lock<std::mutex>& lock, Clock::time_point deadline)
      : c_(c),
        st_(*c.state),
        lock_(lock),
        slots_(SlotsOf(c)),
        deadline_(deadline),
        tag_(CollectiveTag(c.collectives++)) {}

  ~Run() {
    // Whatever UCX still holds (a failed or withdrawn step) goes; the next call makes anew.
    for (auto* slot : {&slots_.recv, &slots_.send})
      if (*slot && ((*slot)->ucx != nullptr || (*slot)->in_transfer_queue))
        slot->release()->Release();
  }

  char* theirs() const { return slots_.theirs->data.get(); }

  // One round with `peer`: receive into `into` (if not null) and send `from` (if not null),
  // `bytes` each, posted in the schedule's order (receive first); returns when both are done.
  weft_status_t Round(int32_t peer, void* into, const void* from, uint64_t bytes) {
    ucp_ep_h ep = nullptr;
    std::string why;
    if (weft_status_t s = st_.EndpointOrWhy(c_.ranks[peer], &ep, &why))
      return Failed(s, std::string(kName) + ": " + (from ? "send to" : "receive from") + " rank " +
                           std::to_string(c_.ranks[peer]) + ": " + why);
    Request* r = into ? Ready(slots_.recv, true, peer, bytes) : nullptr;
    Request* s = from ? Ready(slots_.send, false, peer, bytes) : nullptr;
    if (r) PostRecvLocked(r, into, WireTag(c_.id, peer, tag_), AckTag(c_.id, c_.index, tag_));
    if (s) PostSendLocked(s, ep, from, WireTag(c_.id, c_.index, tag_), AckTag(c_.id, peer, tag_));
    PollUntil(st_, lock_, kNoDeadline, deadline_, [&](Clock::time_point now) {
      if (Done(r) && Done(s)) return true;
      st_.Progress();
      if (Done(r) && Done(s)) return true;
      if (now < deadline_) return false;
      for (Request* q : {r, s})
        if (q && !q->done) q->Cancel(WEFT_ERR_TIMEOUT, q->Name() + ": passed its deadline");
      return true;
    });
    for (Request* q : {r, s})
      if (q && q->status != WEFT_OK) {
        // The other step must not outlive this call's buffers unwatched either.
        for (Request* o : {r, s})
          if (o && !o->done) o->Cancel(q->status, q->message);
        return Failed(q->status, q->message);
      }
    return WEFT_OK;
  }

  weft_status_t Failed(weft_status_t s, const std::string& message) { return st_.Fail(s, message); }

 private:
  static bool Done(const Request* r) { return r == nullptr || r->done; }

  Request* Ready(std::unique_ptr<weft_bk_request>& slot, bool is_recv, int32_t peer,
                 uint64_t bytes) {
    if (!slot) {
      slot.reset(new weft_bk_request());
      slot->state = &st_;
      slot->coll = kName;
      if (is_recv) slot->keep_alive = slots_.theirs;
    } else {
      slot->Reset();
    }
    slot->is_recv = is_recv;
    slot->peer_rank = c_.ranks[peer];
    slot->bytes = bytes;
    slot->deadline = deadline_;
    return slot.get();
  }

  Comm& c_;
  State& st_;
  std::unique_lock<std::mutex>& lock_;
  Slots& slots_;
  Clock::time_point deadline_;
  uint32_t tag_;
};

}  // namespace

bool SmallAllreduceFits(const Comm& c, const Tuning& t, uint64_t bytes, uint64_t count) {
  return c.size() > 1 && bytes != 0 && bytes <= kSmallAllreduceBytes &&
         !AllreduceUsesRing(t, c.size(), bytes, count);
}

weft_status_t SmallAllreduce(Comm& c, const Reduction& red, const void* send, void* recv,
                             uint64_t bytes, Clock::time_point deadline) {
  State& st = *c.state;
  std::unique_lock<std::mutex> lock(st.mu());
  std::string why;
  if (weft_status_t s = st.Aborted(&why)) return st.Fail(s, std::string(kName) + ": " + why);
  Run run(c, lock, deadline);
  char* out = static_cast<char*>(recv);
  if (out != send) CopyBytes(out, send, bytes);
  // The rounds of the schedule's recursive doubling (allreduce.cpp), message for message.
  weft_status_t result = WEFT_OK;
  ForEachDoublingRound(c.size(), c.index, [&](const DoublingRound& r) {
    result = run.Round(r.peer,
                       !r.recv         ? nullptr
                       : r.recv_result ? out
                                       : run.theirs(),
                       r.send ? out : nullptr, bytes);
    if (result == WEFT_OK && r.reduce &&
        (result = red.InMemberOrder(c.index < r.peer, out, run.theirs(), bytes, &why)))
      result = run.Failed(result, why);
    return result == WEFT_OK;
  });
  return result;
}

}  // namespace weft::backends::ucx_plugin
