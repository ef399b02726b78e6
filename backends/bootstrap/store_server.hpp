// The bootstrap store's server (SPEC §8): a TCP key-value store that rank 0 hosts on a
// thread of its own, or that the standalone `weft-store` runs. Wire format and handshake:
// wire.hpp; design notes: docs/design/bootstrap_store.md.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/bootstrap/store_limits.hpp"
#include "backends/bootstrap/store_secret.hpp"
#include "backends/bootstrap/store_types.hpp"
#include "common/result.hpp"

namespace weft::backends::bootstrap {

class StoreServer {
  // Only Start() can build a server; the constructor is public for std::make_unique.
  struct PrivateTag {
    explicit PrivateTag() = default;
  };

 public:
  struct Options {
    // Bound exactly: every address the name resolves to ("127.0.0.2", "::1", "node0"), not a
    // wildcard unless it is one ("0.0.0.0", "::").
    std::string host;
    uint16_t port = 0;  // 0 = any free port
    // Ranks in [0, world_size) may register; at least 1.
    int32_t world_size = 0;
    // Key(): connections must prove they know it. LocalFile(): the server makes a secret and
    // publishes it in the token file for host:port (token_file.hpp) until it stops.
    StoreSecret secret = StoreSecret::LocalFile();
    ServerLimits limits;
  };

  // Listens, then serves on a new thread until Stop(). Fails with kSystem naming host:port
  // when the address cannot be bound (kInvalidArgument when the host does not resolve or
  // world_size < 1), or with the token file's error.
  static Result<std::unique_ptr<StoreServer>> Start(const Options& options);

  struct Impl;
  StoreServer(PrivateTag, std::unique_ptr<Impl> impl);
  StoreServer(const StoreServer&) = delete;
  StoreServer& operator=(const StoreServer&) = delete;
  ~StoreServer();  // Stop()s

  uint16_t port() const;
  const std::string& host() const;
  // The token file a LocalFile() server published; empty otherwise.
  std::string token_path() const;

  // Blocks until at least `expected_ranks` ranks have registered (HELLO) and every rank that
  // registered has left (BYE) or failed, or until the deadline or Stop(). True if everyone
  // is gone (a failed rank counts as gone: see FailedRanks()). The host calls this so that
  // the store outlives the ranks that still need it. Thread-safe.
  bool WaitAllLeft(int32_t expected_ranks, Clock::time_point deadline);
  // Ranks whose connection dropped without Leave(), ascending. Thread-safe.
  std::vector<int32_t> FailedRanks() const;

  // Removes the token file, closes the listeners and every connection (clients see
  // kPeerFailure) and joins the server thread. Idempotent; call from any thread except the
  // server's own.
  void Stop();

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace weft::backends::bootstrap
