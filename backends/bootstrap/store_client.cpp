#include "backends/bootstrap/store_client.hpp"

#include <algorithm>
#include <charconv>
#include <thread>

#include "backends/bootstrap/client_connection.hpp"
#include "backends/bootstrap/client_handshake.hpp"
#include "backends/bootstrap/deadline.hpp"
#include "backends/bootstrap/token_file.hpp"

namespace weft::backends::bootstrap {
namespace {

using wire::Verb;

std::string Quote(const std::string& key) { return "'" + key + "'"; }

// "Wait of keys 'a', 'b' and 3 more": names enough keys to debug, not a whole rendezvous.
std::string Describe(Verb verb, const std::vector<std::string>& keys) {
  constexpr size_t kShown = 4;
  std::string text =
      std::string(wire::VerbName(verb)) + (keys.size() == 1 ? " of key " : " of keys ");
  for (size_t i = 0; i < keys.size() && i < kShown; ++i) text += (i ? ", " : "") + Quote(keys[i]);
  if (keys.size() > kShown) text += " and " + std::to_string(keys.size() - kShown) + " more";
  return text;
}

wire::Frame Request(Verb verb, std::vector<std::string> keys,
                    std::vector<std::string> values = {}) {
  wire::Frame frame;
  frame.verb = verb;
  frame.keys = std::move(keys);
  frame.values = std::move(values);
  return frame;
}

Status BadReply(const std::string& what) {
  return {Code::kInternal, "bootstrap store: unexpected reply to " + what};
}

// One connection attempt: a connection, or why not and whether another attempt may succeed.
struct Attempt {
  std::unique_ptr<detail::ClientConnection> connection;
  Status status;
  bool retry = false;
};

// The key to prove: given, or read from the store's token file (retry while it is missing).
Attempt FindKey(const std::string& host, uint16_t port, const StoreSecret& secret,
                std::string& key) {
  if (secret.kind() == StoreSecret::Kind::kKey) {
    key = secret.key();
    return {nullptr, Status::Ok(), false};
  }
  auto token = detail::ReadPublishedToken(host, port);
  if (token.ok()) {
    key = std::move(token).value();
    return {nullptr, Status::Ok(), false};
  }
  const bool missing = token.status().code() == Code::kNotAvailable;
  Status status = missing ? Status{Code::kNotAvailable,
                                   "no WEFT_STORE_TOKEN is set and the loopback store's token file "
                                   "has not appeared (" +
                                       token.status().message() +
                                       "): a store on another container or user cannot share it; "
                                       "set WEFT_STORE_TOKEN on every rank"}
                          : token.status();
  return {nullptr, std::move(status), missing};
}

Attempt TryConnect(const std::string& host, uint16_t port, const std::string& endpoint,
                   Clock::time_point deadline, const StoreClient::Options& options) {
  std::string key;
  Attempt found = FindKey(host, port, options.secret, key);
  if (!found.status.ok()) return found;
  auto socket = detail::ClientSocket::Connect(
      host, port, std::min(deadline, Clock::now() + std::chrono::seconds(2)));
  if (!socket.ok()) {
    // A name that does not exist will not start to exist by retrying.
    return {nullptr, socket.status(), socket.status().code() != Code::kInvalidArgument};
  }
  using Outcome = detail::HandshakeResult::Outcome;
  auto shake = detail::ClientHandshake(*socket, key, endpoint, options.secret.source(),
                                       std::min(deadline, Clock::now() + std::chrono::seconds(10)));
  if (shake.outcome == Outcome::kOk) {
    return {std::make_unique<detail::ClientConnection>(std::move(socket).value(), endpoint,
                                                       options.max_message),
            Status::Ok(), false};
  }
  // A token file may be a stale one of an earlier store on this port: read it again.
  const bool retry =
      shake.outcome == Outcome::kRetry || (shake.outcome == Outcome::kWrongSecret &&
                                           options.secret.kind() == StoreSecret::Kind::kLocalFile);
  return {nullptr, std::move(shake.status), retry};
}

}  // namespace

Result<std::unique_ptr<StoreClient>> StoreClient::Connect(const std::string& host, uint16_t port,
                                                          Clock::time_point deadline,
                                                          const Options& options) {
  const std::string endpoint = host + ":" + std::to_string(port);
  auto start = Clock::now();
  auto pause = std::chrono::milliseconds(10);
  Status last;
  for (;;) {
    Attempt attempt = TryConnect(host, port, endpoint, deadline, options);
    if (attempt.connection) {
      return std::make_unique<StoreClient>(PrivateTag(), std::move(attempt.connection));
    }
    if (!attempt.retry) return attempt.status;
    last = std::move(attempt.status);
    auto now = Clock::now();
    if (now >= deadline) break;
    // Backs off so that many ranks waiting for a late store do not hammer it.
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
    pause = std::min(pause * 2, std::chrono::milliseconds(200));
  }
  return Status{Code::kTimeout, "bootstrap store: could not connect to the store at " + endpoint +
                                    " within " + detail::ElapsedMs(start) +
                                    " (last error: " + last.message() + ")"};
}

StoreClient::StoreClient(PrivateTag, std::unique_ptr<detail::ClientConnection> connection)
    : connection_(std::move(connection)) {}

StoreClient::~StoreClient() = default;

const std::string& StoreClient::endpoint() const { return connection_->endpoint(); }

Status StoreClient::Set(const std::string& key, const Bytes& value, Clock::time_point deadline) {
  return connection_
      ->Call(Request(Verb::kSet, {key}, {value}), deadline, Describe(Verb::kSet, {key}))
      .status();
}

Result<Bytes> StoreClient::Get(const std::string& key, Clock::time_point deadline) {
  std::string what = Describe(Verb::kGet, {key});
  WEFT_ASSIGN_OR_RETURN(auto reply, connection_->Call(Request(Verb::kGet, {key}), deadline, what));
  if (reply.values.size() != 1) return BadReply(what);
  return std::move(reply.values[0]);
}

Status StoreClient::Wait(const std::vector<std::string>& keys, Clock::time_point deadline) {
  if (keys.empty()) return Status::Ok();
  if (keys.size() > 0xFFFF) return InvalidArgument("bootstrap store: Wait on more than 65535 keys");
  return connection_->Call(Request(Verb::kWait, keys), deadline, Describe(Verb::kWait, keys))
      .status();
}

Result<bool> StoreClient::Check(const std::vector<std::string>& keys, Clock::time_point deadline) {
  if (keys.empty()) return true;
  if (keys.size() > 0xFFFF)
    return InvalidArgument("bootstrap store: Check on more than 65535 keys");
  std::string what = Describe(Verb::kCheck, keys);
  WEFT_ASSIGN_OR_RETURN(auto reply, connection_->Call(Request(Verb::kCheck, keys), deadline, what));
  if (reply.values.size() != 1) return BadReply(what);
  return reply.values[0] == "1";
}

Result<int64_t> StoreClient::Add(const std::string& key, int64_t delta,
                                 Clock::time_point deadline) {
  std::string what = Describe(Verb::kAdd, {key});
  WEFT_ASSIGN_OR_RETURN(
      auto reply,
      connection_->Call(Request(Verb::kAdd, {key}, {std::to_string(delta)}), deadline, what));
  int64_t value = 0;
  if (reply.values.size() != 1) return BadReply(what);
  const std::string& text = reply.values[0];
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return BadReply(what);
  return value;
}

Result<Bytes> StoreClient::CompareSet(const std::string& key, const std::optional<Bytes>& expected,
                                      const Bytes& desired, Clock::time_point deadline) {
  std::string what = Describe(Verb::kCompareSet, {key});
  auto request = Request(Verb::kCompareSet, {key}, {expected.value_or(Bytes()), desired});
  request.flags = expected ? wire::kHasExpected : 0;
  WEFT_ASSIGN_OR_RETURN(auto reply, connection_->Call(std::move(request), deadline, what));
  if (reply.values.size() != 1) return BadReply(what);
  return std::move(reply.values[0]);
}

Status StoreClient::Delete(const std::string& key, Clock::time_point deadline) {
  return connection_->Call(Request(Verb::kDelete, {key}), deadline, Describe(Verb::kDelete, {key}))
      .status();
}

Status StoreClient::Register(int32_t rank, EventHandler on_event, Clock::time_point deadline) {
  if (rank < 0)
    return InvalidArgument("bootstrap store: Register: rank " + std::to_string(rank) +
                           " is negative");
  // The handler goes in first: events may arrive before the reply to REGISTER.
  if (on_event) connection_->SetEventHandler(std::move(on_event));
  std::string what = "Register of rank " + std::to_string(rank);
  auto reply =
      connection_->Call(Request(Verb::kRegister, {}, {std::to_string(rank)}), deadline, what);
  if (reply.ok()) connection_->SetReportStoreLoss(true);
  return reply.status();
}

Status StoreClient::Publish(const std::string& key, const Bytes& value,
                            Clock::time_point deadline) {
  return connection_
      ->Call(Request(Verb::kPublish, {key}, {value}), deadline, Describe(Verb::kPublish, {key}))
      .status();
}

Status StoreClient::Leave(Clock::time_point deadline) {
  // Stop reporting loss before the goodbye goes out: once the server has counted it, its host
  // may close every connection, and the reader can see that close before this thread sees
  // the reply.
  connection_->SetReportStoreLoss(false);
  auto reply = connection_->Call(Request(Verb::kLeave, {}), deadline, "Leave");
  if (!reply.ok()) connection_->SetReportStoreLoss(true);
  return reply.status();
}

void StoreClient::Close() { connection_->Close(); }

}  // namespace weft::backends::bootstrap
