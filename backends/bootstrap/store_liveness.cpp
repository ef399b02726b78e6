// The liveness side of the store (SPEC §10): a registered connection is its rank's
// heartbeat. Dropping it without LEAVE marks the rank failed, records "failed/<rank>" and
// pushes that event to every other registered rank.
#include <charconv>
#include <vector>

#include "backends/bootstrap/store_state.hpp"

namespace weft::backends::bootstrap::detail {

void StoreState::DoRegister(const SessionPtr& s, const wire::Frame& req) {
  const std::string& text = req.values[0];
  int32_t rank = -1;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), rank);
  if (ec != std::errc() || ptr != text.data() + text.size() || rank < 0) {
    return ReplyError(*s, req, Code::kInvalidArgument, "Register: bad rank '" + text + "'");
  }
  if (rank >= world_size_) {
    return ReplyError(*s, req, Code::kInvalidArgument,
                      "Register: rank " + text + " is outside [0, " + std::to_string(world_size_) +
                          "): this store serves a world of " + std::to_string(world_size_) +
                          " ranks");
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

void StoreState::DoPublish(const SessionPtr& s, wire::Frame& req) {
  const std::string& key = req.keys[0];
  if (req.values[0].size() > limits_.max_event_value) {
    return ReplyError(
        *s, req, Code::kInvalidArgument,
        "Publish of key '" + key + "': the value is " + std::to_string(req.values[0].size()) +
            " bytes; an event carries at most " + std::to_string(limits_.max_event_value));
  }
  Status written = Write(key, std::move(req.values[0]));
  if (!written.ok()) return ReplyError(*s, req, written.code(), written.message());
  PushEvent(key, kv_.at(key), nullptr);
  ReplyOk(*s, req);
}

void StoreState::PushEvent(const std::string& key, const SharedBytes& value,
                           const Session* except) {
  wire::Frame event;
  event.verb = wire::Verb::kEvent;
  event.keys.push_back(key);
  // A copy: a connection closed for not reading is unregistered (OnClosed) during the loop.
  std::vector<SessionPtr> targets;
  for (const auto& [rank, session] : registered_) {
    if (session.get() != except) targets.push_back(session);
  }
  for (const auto& session : targets) session->SendEvent(event, value);
}

void StoreState::OnClosed(const SessionPtr& s, const std::string& reason) {
  if (closing_) return;
  sessions_.erase(s);
  if (!s->authenticated()) {
    ForgetUnauthenticated(s.get());
    refusals_.Warn("bootstrap store: the connection from " + s->peer() +
                   " ended before it authenticated: " + reason);
    return;
  }
  --authenticated_;
  waiters_.DropSession(s.get());
  if (!s->rank) return;
  int32_t rank = *s->rank;
  s->rank.reset();
  registered_.erase(rank);
  ranks_.Failed(rank);
  std::string why = "rank " + std::to_string(rank) + " (" + s->peer() +
                    ") lost its store connection without Leave(): " + reason;
  (void)Write(FailedKey(rank), why, /*exempt=*/true);
  PushEvent(FailedKey(rank), kv_.at(FailedKey(rank)), s.get());
}

}  // namespace weft::backends::bootstrap::detail
