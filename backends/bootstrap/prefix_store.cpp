#include "backends/bootstrap/prefix_store.hpp"

#include <utility>

namespace weft::backends::bootstrap {

PrefixStore::PrefixStore(StoreClient& client, std::string prefix)
    : client_(client), prefix_(std::move(prefix)) {}

PrefixStore PrefixStore::Sub(const std::string& sub) const { return {client_, Key(sub)}; }

std::string PrefixStore::Key(const std::string& key) const {
  return prefix_.empty() ? key : prefix_ + "/" + key;
}

std::vector<std::string> PrefixStore::Keys(const std::vector<std::string>& keys) const {
  std::vector<std::string> full;
  full.reserve(keys.size());
  for (const auto& key : keys) full.push_back(Key(key));
  return full;
}

Status PrefixStore::Set(const std::string& key, const Bytes& value, Clock::time_point deadline) {
  return client_.Set(Key(key), value, deadline);
}

Result<Bytes> PrefixStore::Get(const std::string& key, Clock::time_point deadline) {
  return client_.Get(Key(key), deadline);
}

Status PrefixStore::Wait(const std::vector<std::string>& keys, Clock::time_point deadline) {
  return client_.Wait(Keys(keys), deadline);
}

Result<bool> PrefixStore::Check(const std::vector<std::string>& keys, Clock::time_point deadline) {
  return client_.Check(Keys(keys), deadline);
}

Result<int64_t> PrefixStore::Add(const std::string& key, int64_t delta,
                                 Clock::time_point deadline) {
  return client_.Add(Key(key), delta, deadline);
}

Result<Bytes> PrefixStore::CompareSet(const std::string& key, const std::optional<Bytes>& expected,
                                      const Bytes& desired, Clock::time_point deadline) {
  return client_.CompareSet(Key(key), expected, desired, deadline);
}

Status PrefixStore::Delete(const std::string& key, Clock::time_point deadline) {
  return client_.Delete(Key(key), deadline);
}

Status PrefixStore::Publish(const std::string& key, const Bytes& value,
                            Clock::time_point deadline) {
  return client_.Publish(Key(key), value, deadline);
}

}  // namespace weft::backends::bootstrap
