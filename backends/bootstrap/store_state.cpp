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

void StoreState::Attach(const SessionPtr& session) {
  sessions_.insert(session);
  session->Start();
}

void StoreState::OnFrame(const SessionPtr& s, wire::Frame req) {
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

void StoreState::Dispatch(const SessionPtr& s, const wire::Frame& req) {
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

void StoreState::Write(const std::string& key, Bytes value) {
  kv_[key] = std::move(value);
  waiters_.KeySet(key);
}

void StoreState::DoSet(const SessionPtr& s, const wire::Frame& req) {
  Write(req.keys[0], req.values[0]);
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
  if (it != kv_.end() && !ParseInt64(it->second, current)) {
    return ReplyError(*s, req, Code::kInvalidUsage,
                      "Add on key '" + key + "': its value is not a decimal integer");
  }
  if (__builtin_add_overflow(current, delta, &sum)) {
    return ReplyError(*s, req, Code::kInvalidArgument, "Add on key '" + key + "' overflows");
  }
  Write(key, std::to_string(sum));
  ReplyOk(*s, req, {std::to_string(sum)});
}

void StoreState::DoCompareSet(const SessionPtr& s, const wire::Frame& req) {
  const std::string& key = req.keys[0];
  auto it = kv_.find(key);
  bool match = (req.flags & wire::kHasExpected) ? it != kv_.end() && it->second == req.values[0]
                                                : it == kv_.end();
  if (match) {
    Write(key, req.values[1]);
    return ReplyOk(*s, req, {req.values[1]});
  }
  ReplyOk(*s, req, {it == kv_.end() ? Bytes() : it->second});
}

void StoreState::DoDelete(const SessionPtr& s, const wire::Frame& req) {
  kv_.erase(req.keys[0]);
  ReplyOk(*s, req);
}

void StoreState::CloseAll() {
  closing_ = true;
  waiters_.Clear();
  for (const auto& session : sessions_) session->Close();
  sessions_.clear();
  registered_.clear();
}

}  // namespace weft::backends::bootstrap::detail
