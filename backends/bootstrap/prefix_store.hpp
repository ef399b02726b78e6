// A view of a StoreClient that puts every key under "<prefix>/", so each communicator has
// its own namespace on the shared store (SPEC §8). Liveness (Register/Leave, "failed/<rank>")
// stays on the StoreClient: failures are global, not per communicator.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backends/bootstrap/store_client.hpp"

namespace weft::backends::bootstrap {

class PrefixStore {
 public:
  // `client` must outlive the view. An empty prefix leaves keys unchanged.
  PrefixStore(StoreClient& client, std::string prefix);

  // A nested namespace: "<prefix>/<sub>".
  PrefixStore Sub(const std::string& sub) const;
  const std::string& prefix() const { return prefix_; }
  // The full key on the store.
  std::string Key(const std::string& key) const;
  StoreClient& client() const { return client_; }

  Status Set(const std::string& key, const Bytes& value, Clock::time_point deadline);
  Result<Bytes> Get(const std::string& key, Clock::time_point deadline);
  Status Wait(const std::vector<std::string>& keys, Clock::time_point deadline);
  Result<bool> Check(const std::vector<std::string>& keys, Clock::time_point deadline);
  Result<int64_t> Add(const std::string& key, int64_t delta, Clock::time_point deadline);
  Result<Bytes> CompareSet(const std::string& key, const std::optional<Bytes>& expected,
                           const Bytes& desired, Clock::time_point deadline);
  Status Delete(const std::string& key, Clock::time_point deadline);
  Status Publish(const std::string& key, const Bytes& value, Clock::time_point deadline);

 private:
  std::vector<std::string> Keys(const std::vector<std::string>& keys) const;

  StoreClient& client_;
  std::string prefix_;
};

}  // namespace weft::backends::bootstrap
