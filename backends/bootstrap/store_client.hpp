// Client of the bootstrap store (SPEC §8, §10). Every call takes a deadline and returns
// kTimeout when it passes, naming the key(s) and the time waited; if the store goes away
// before or during a call, the call returns kPeerFailure naming the store's host:port.
// Thread-safe: concurrent calls are multiplexed over one connection, so a blocked Get on
// one thread does not delay a Set on another.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/bootstrap/store_limits.hpp"
#include "backends/bootstrap/store_secret.hpp"
#include "backends/bootstrap/store_types.hpp"
#include "common/result.hpp"

namespace weft::backends::bootstrap {

namespace detail {
class ClientConnection;
}

class StoreClient {
  struct PrivateTag {
    explicit PrivateTag() = default;
  };

 public:
  using EventHandler = std::function<void(const std::string& key, const Bytes& value)>;

  struct Options {
    // The job's secret (Key) or the token file a loopback store publishes (LocalFile).
    StoreSecret secret = StoreSecret::LocalFile();
    // WEFT_STORE_MAX_MESSAGE: longer frames are refused in both directions.
    uint32_t max_message = kDefaultMaxMessage;
  };

  // Connects and authenticates (the handshake of wire.hpp), retrying with a short backoff
  // while the server is not up yet (it may start after the ranks) or, for LocalFile, while
  // its token file has not appeared. Fails at once, without retrying, when the host does not
  // resolve (kInvalidArgument naming it), when the store cannot prove it knows a given secret
  // (kInvalidUsage naming its source), or when it refuses this client (too many connections).
  // kTimeout at the deadline, with the last error.
  static Result<std::unique_ptr<StoreClient>> Connect(const std::string& host, uint16_t port,
                                                      Clock::time_point deadline,
                                                      const Options& options);

  StoreClient(PrivateTag, std::unique_ptr<detail::ClientConnection> connection);
  StoreClient(const StoreClient&) = delete;
  StoreClient& operator=(const StoreClient&) = delete;
  // Drops the connection (without Leave(): a registered rank is then reported failed).
  // Must not run on the event thread, i.e. not from inside on_event.
  ~StoreClient();

  Status Set(const std::string& key, const Bytes& value, Clock::time_point deadline);
  // Blocks (on the server, not by polling) until the key exists; returns its value.
  Result<Bytes> Get(const std::string& key, Clock::time_point deadline);
  // Blocks until every key exists.
  Status Wait(const std::vector<std::string>& keys, Clock::time_point deadline);
  // Does not block on the keys: true if all exist now.
  Result<bool> Check(const std::vector<std::string>& keys, Clock::time_point deadline);
  // Atomically adds delta to the decimal integer stored at key (a missing key counts as 0)
  // and returns the new value. kInvalidUsage if the key holds something else.
  Result<int64_t> Add(const std::string& key, int64_t delta, Clock::time_point deadline);
  // Atomically: if the key's current state matches `expected` (nullopt: the key is missing;
  // a value: the key exists with exactly that value), stores `desired`. Returns the value
  // stored afterwards: `desired` on success, else the current value ("" if still missing).
  Result<Bytes> CompareSet(const std::string& key, const std::optional<Bytes>& expected,
                           const Bytes& desired, Clock::time_point deadline);
  // Removes the key; deleting a missing key is not an error.
  Status Delete(const std::string& key, Clock::time_point deadline);

  // Liveness channel (SPEC §10). Registers this connection as `rank`'s. From then on:
  // - if it drops without Leave(), the server stores FailedKey(rank) = reason and pushes
  //   that event to every other registered client;
  // - Publish()ed events and other ranks' failures are delivered to on_event;
  // - losing the store is delivered as {kStoreLostKey, reason} (not after Close()/Leave()).
  // on_event runs on an internal thread, one event at a time, in arrival order; it may call
  // this client's verbs but must not destroy the client, and must not throw.
  // kInvalidUsage if the rank is already registered by a live connection.
  Status Register(int32_t rank, EventHandler on_event, Clock::time_point deadline);
  // Stores key = value and pushes the event to every registered client (this one included).
  Status Publish(const std::string& key, const Bytes& value, Clock::time_point deadline);
  // Clean goodbye: the rank is no longer watched; closing afterwards is not a failure.
  Status Leave(Clock::time_point deadline);
  // Drops the connection now; calls in flight and later calls return kAborted promptly, and no
  // event is delivered once it returned (it waits for one being delivered, unless called from
  // the event handler).
  void Close();

  // "host:port" of the store, for messages.
  const std::string& endpoint() const;

 private:
  std::unique_ptr<detail::ClientConnection> connection_;
};

}  // namespace weft::backends::bootstrap
