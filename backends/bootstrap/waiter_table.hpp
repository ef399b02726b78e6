// Blocked GET and WAIT requests on the store server. A waiter is indexed under the first of
// its keys that is missing; setting that key re-checks it, completing it or moving it to the
// next missing key. So a SET costs O(waiters on that key), and nothing polls. Each waiter
// with a budget has a timer that answers kTimeout. Runs on the io thread only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/bootstrap/server_session.hpp"
#include "backends/bootstrap/wire.hpp"

namespace weft::backends::bootstrap::detail {

// Values are shared so that replies and events queue them without copying.
using KeyValueMap = std::unordered_map<std::string, SharedBytes>;

class WaiterTable {
 public:
  WaiterTable(boost::asio::io_context& io, const KeyValueMap& kv) : io_(io), kv_(kv) {}

  // Answers `request` (GET or WAIT) now if its keys exist, else parks it.
  void Submit(const std::shared_ptr<Session>& session, const wire::Frame& request);
  // `key` was just written: complete or re-index the waiters parked on it.
  void KeySet(const std::string& key);
  // The session is gone: forget its waiters without answering.
  void DropSession(const Session* session);
  void Clear();

 private:
  struct Waiter;
  void TryComplete(const std::shared_ptr<Waiter>& waiter);
  void Expire(const std::shared_ptr<Waiter>& waiter);
  void Unindex(const std::shared_ptr<Waiter>& waiter);
  void Finish(const std::shared_ptr<Waiter>& waiter);

  boost::asio::io_context& io_;
  const KeyValueMap& kv_;
  std::unordered_map<std::string, std::vector<std::shared_ptr<Waiter>>> parked_;
};

}  // namespace weft::backends::bootstrap::detail
