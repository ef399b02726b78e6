#include "backends/bootstrap/store_state.hpp"

#include <charconv>

namespace weft::backends::bootstrap::detail {
namespace {

using wire::Verb;

struct Arity {
  size_t min_keys, max_keys, values;
};

Arity ArityOf(Verb verb) {
  constexpr size_t kMany = 0xFFFF;
  switch (verb) {
    case Verb::kSet:
    case Verb::kAdd:
    case Verb::kPublish:
      return {1, 1, 1};
    case Verb::kGet:
    case Verb::kDelete:
      return {1, 1, 0};
    case Verb::kWait:
    case Verb::kCheck:
      return {1, kMany, 0};
    case Verb::kCompareSet:
      return {1, 1, 2};
    case Verb::kRegister:
      return {0, 0, 1};
    case Verb::kLeave:
      return {0, 0, 0};
    default:
      return {1, 0, 0};  // min > max: no request has this shape
  }
}

bool ParseInt64(const std::string& text, int64_t& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && !text.empty();
}

}  // namespace

void ReplyOk(Session& s, const wire::Frame& req, std::vector<std::string> values) {
  wire::Frame reply;
  reply.id = req.id;
  reply.values = std::move(values);
  s.Send(reply);
}

void ReplyError(Session& s, const wire::Frame& req, Code code, std::string message) {
  wire::Frame reply;
  reply.id = req.id;
  reply.code = static_cast<int8_t>(code);
  reply.values.push_back(std::move(message));
  s.Send(reply);
}

void StoreState::OnFrame(const SessionPtr& s, wire::Frame req) {
  if (!s->authenticated()) return Authenticate(s, req);
  Arity arity = ArityOf(req.verb);
  if (req.keys.size() < arity.min_keys || req.keys.size() > arity.max_keys ||
      req.values.size() != arity.values) {
    return ReplyError(*s, req, Code::kInvalidArgument,
                      std::string("malformed ") + wire::VerbName(req.verb) +
                          " request: " + std::to_string(req.keys.size()) + " keys, " +
                          std::to_string(req.values.size()) + " values");
  }
  Dispatch(s, req);
}

void StoreState::Dispatch(const SessionPtr& s, wire::Frame& req) {
  switch (req.verb) {
    case Verb::kSet:
      return DoSet(s, req);
    case Verb::kGet:
    case Verb::kWait:
      return waiters_.Submit(s, req);
    case Verb::kCheck:
      return DoCheck(s, req);
    case Verb::kAdd:
      return DoAdd(s, req);
    case Verb::kCompareSet:
      return DoCompareSet(s, req);
    case Verb::kDelete:
      return DoDelete(s, req);
    case Verb::kRegister:
      return DoRegister(s, req);
    case Verb::kLeave:
      return DoLeave(s, req);
    case Verb::kPublish:
      return DoPublish(s, req);
    default:
      return;  // ArityOf rejected it already
  }
}

Status StoreState::Write(const std::string& key, Bytes value, bool exempt) {
  auto it = kv_.find(key);
  const uint64_t before = it == kv_.end() ? 0 : key.size() + it->second->size();
  const uint64_t after = stored_bytes_ - before + key.size() + value.size();
  if (!exempt && after > limits_.max_stored_bytes && after > stored_bytes_) {
    return {Code::kOutOfMemory, "storing " + std::to_string(key.size() + value.size()) +
                                    " bytes under key '" + key + "' would bring the store to " +
                                    std::to_string(after) + " bytes, over its limit of " +
                                    std::to_string(limits_.max_stored_bytes) +
                                    " (WEFT_STORE_MAX_BYTES on the store's host)"};
  }
  stored_bytes_ = after;
  auto shared = std::make_shared<const Bytes>(std::move(value));
  if (it == kv_.end()) {
    kv_.emplace(key, std::move(shared));
  } else {
    it->second = std::move(shared);
  }
  waiters_.KeySet(key);
  return Status::Ok();
}

void StoreState::Erase(const std::string& key) {
  auto it = kv_.find(key);
  if (it == kv_.end()) return;
  stored_bytes_ -= key.size() + it->second->size();
  kv_.erase(it);
}

void StoreState::DoSet(const SessionPtr& s, wire::Frame& req) {
  Status written = Write(req.keys[0], std::move(req.values[0]));
  if (!written.ok()) return ReplyError(*s, req, written.code(), written.message());
  ReplyOk(*s, req);
}

void StoreState::DoCheck(const SessionPtr& s, const wire::Frame& req) {
  bool all = true;
  for (const auto& key : req.keys) all = all && kv_.count(key) != 0;
  ReplyOk(*s, req, {all ? "1" : "0"});
}

void StoreState::DoAdd(const SessionPtr& s, const wire::Frame& req) {
  const std::string& key = req.keys[0];
  int64_t delta = 0, current = 0, sum = 0;
  if (!ParseInt64(req.values[0], delta)) {
    return ReplyError(*s, req, Code::kInvalidArgument, "Add delta is not an integer");
  }
  auto it = kv_.find(key);
  if (it != kv_.end() && !ParseInt64(*it->second, current)) {
    return ReplyError(*s, req, Code::kInvalidUsage,
                      "Add on key '" + key + "': its value is not a decimal integer");
  }
  if (__builtin_add_overflow(current, delta, &sum)) {
    return ReplyError(*s, req, Code::kInvalidArgument, "Add on key '" + key + "' overflows");
  }
  Status written = Write(key, std::to_string(sum));
  if (!written.ok()) return ReplyError(*s, req, written.code(), written.message());
  ReplyOk(*s, req, {std::to_string(sum)});
}

void StoreState::DoCompareSet(const SessionPtr& s, wire::Frame& req) {
  const std::string& key = req.keys[0];
  auto it = kv_.find(key);
  bool match = (req.flags & wire::kHasExpected) ? it != kv_.end() && *it->second == req.values[0]
                                                : it == kv_.end();
  if (!match) return ReplyOk(*s, req, {it == kv_.end() ? Bytes() : *it->second});
  Status written = Write(key, req.values[1]);
  if (!written.ok()) return ReplyError(*s, req, written.code(), written.message());
  wire::Frame reply;
  reply.id = req.id;
  s->SendSharing(reply, kv_.at(key));
}

void StoreState::DoDelete(const SessionPtr& s, const wire::Frame& req) {
  Erase(req.keys[0]);
  ReplyOk(*s, req);
}

void StoreState::CloseAll() {
  closing_ = true;
  handshake_timer_.cancel();
  waiters_.Clear();
  for (const auto& session : sessions_) session->Close();
  sessions_.clear();
  unauthenticated_.clear();
  registered_.clear();
}

}  // namespace weft::backends::bootstrap::detail
