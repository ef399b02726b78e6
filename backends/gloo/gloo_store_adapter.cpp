#include "backends/gloo/gloo_store_adapter.hpp"

#include "backends/gloo/errors.hpp"

namespace weft::backends::gloo_plugin {
namespace {

// Gloo's values are pair addresses: a few hundred bytes per peer.
constexpr size_t kInitialGetCapacity = 4096;

}  // namespace

StoreAdapter::StoreAdapter(const Host& host, const std::string& prefix, Deadline deadline)
    : host_(host), deadline_(deadline) {
  // The host's prefix names the group; "gloo/" keeps our keys apart from the host's own.
  prefix_ = prefix;
  if (!prefix_.empty() && prefix_.back() != '/') prefix_ += '/';
  prefix_ += "gloo/";
}

void StoreAdapter::Throw(weft_status_t status, const char* what, const std::string& key) const {
  throw HostCallbackFailure(status, std::string("store ") + what + " of key " + Key(key) +
                                        " failed with " + StatusName(status));
}

void StoreAdapter::set(const std::string& key, const std::vector<char>& data) {
  const auto& api = host_.api();
  const weft_status_t s = api.store_set(api.host_data, Key(key).c_str(), data.data(), data.size(),
                                        deadline_.RemainingMs());
  if (s != WEFT_OK) Throw(s, "set", key);
}

std::vector<char> StoreAdapter::get(const std::string& key) {
  const auto& api = host_.api();
  std::vector<char> value(kInitialGetCapacity);
  for (;;) {
    size_t len = 0;
    const weft_status_t s = api.store_get(api.host_data, Key(key).c_str(), value.data(),
                                          value.size(), &len, deadline_.RemainingMs());
    if (s == WEFT_OK) {
      value.resize(len);
      seen_[key] = value;
      return value;
    }
    // Too small a buffer: the host says how much it needs; ask again with that much.
    if (s == WEFT_ERR_INVALID_ARGUMENT && len > value.size()) {
      value.resize(len);
      continue;
    }
    Throw(s, "get", key);
  }
}

void StoreAdapter::wait(const std::vector<std::string>& keys) {
  const auto& api = host_.api();
  std::vector<std::string> full;
  std::vector<const char*> ptrs;
  full.reserve(keys.size());
  ptrs.reserve(keys.size());
  for (const auto& k : keys) full.push_back(Key(k));
  for (const auto& k : full) ptrs.push_back(k.c_str());
  const weft_status_t s =
      api.store_wait(api.host_data, ptrs.data(), ptrs.size(), deadline_.RemainingMs());
  if (s != WEFT_OK) Throw(s, "wait", keys.empty() ? std::string() : keys.front());
}

std::vector<char> StoreAdapter::Seen(const std::string& key) const {
  auto it = seen_.find(key);
  return it == seen_.end() ? std::vector<char>() : it->second;
}

void StoreAdapter::wait(const std::vector<std::string>& keys,
                        const std::chrono::milliseconds& /*timeout*/) {
  wait(keys);  // the communicator's creation deadline bounds the whole rendezvous
}

}  // namespace weft::backends::gloo_plugin
