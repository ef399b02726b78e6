// The liveness side of the store (SPEC §10): a registered connection is its rank's
// heartbeat. Dropping it without LEAVE marks the rank failed, records "failed/<rank>" and
// pushes that event to every other registered rank.
#include <charconv>

#include "backends/bootstrap/store_state.hpp"

namespace weft::backends::bootstrap::detail {

void StoreState::DoRegister(const SessionPtr& s, const wire::Frame& req) {
  const std::string& text = req.values[0];
  int32_t rank = -1;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), rank);
  if (ec != std::errc() || ptr != text.data() + text.size() || rank < 0) {
    return ReplyError(*s, req, Code::kInvalidArgument, "Register: bad rank '" + text + "'");
  }
  if (s->rank) {
    return ReplyError(*s, req, Code::kInvalidUsage,
                      "Register: this connection is already rank " + std::to_string(*s->rank));
  }
  if (registered_.count(rank) != 0) {
    return ReplyError(*s, req, Code::kInvalidUsage,
                      "Register: rank " + std::to_string(rank) +
                          " is already registered by the live connection from " +
                          registered_[rank]->peer() + " (duplicate rank?)");
  }
  s->rank = rank;
  registered_[rank] = s;
  ranks_.Joined(rank);
  ReplyOk(*s, req);
}

void StoreState::DoLeave(const SessionPtr& s, const wire::Frame& req) {
  if (!s->rank) {
    return ReplyError(*s, req, Code::kInvalidUsage, "Leave: this connection is not registered");
  }
  registered_.erase(*s->rank);
  ranks_.Left(*s->rank);
  s->rank.reset();
  ReplyOk(*s, req);
}

void StoreState::DoPublish(const SessionPtr& s, const wire::Frame& req) {
  Write(req.keys[0], req.values[0]);
  PushEvent(req.keys[0], req.values[0], nullptr);
  ReplyOk(*s, req);
}

void StoreState::PushEvent(const std::string& key, const Bytes& value, const Session* except) {
  wire::Frame event;
  event.verb = wire::Verb::kEvent;
  event.keys.push_back(key);
  event.values.push_back(value);
  for (const auto& [rank, session] : registered_) {
    if (session.get() != except) session->Send(event);
  }
}

void StoreState::OnClosed(const SessionPtr& s, const std::string& reason) {
  if (closing_) return;
  sessions_.erase(s);
  waiters_.DropSession(s.get());
  if (!s->rank) return;
  int32_t rank = *s->rank;
  s->rank.reset();
  registered_.erase(rank);
  ranks_.Failed(rank);
  std::string why = "rank " + std::to_string(rank) + " (" + s->peer() +
                    ") lost its store connection without Leave(): " + reason;
  Write(FailedKey(rank), why);
  PushEvent(FailedKey(rank), why, s.get());
}

}  // namespace weft::backends::bootstrap::detail
