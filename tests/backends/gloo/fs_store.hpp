// A file-system key-value store for the plugin tests: one file per key in a directory that
// every forked rank shares. Set is atomic (write, then rename); Get polls until the key
// exists. Enough for a plugin-level test; the real store is backends/bootstrap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <weft/status.h>

namespace weft::test {

class FsStore {
 public:
  explicit FsStore(std::string dir) : dir_(std::move(dir)) {}

  weft_status_t Set(const std::string& key, const void* value, size_t len);
  // Blocks until the key exists; timeout_ms < 0: no deadline.
  weft_status_t Get(const std::string& key, std::string* value, int64_t timeout_ms);
  weft_status_t Wait(const std::vector<std::string>& keys, int64_t timeout_ms);
  weft_status_t Add(const std::string& key, int64_t delta, int64_t* value);

 private:
  std::string Path(const std::string& key) const;
  bool TryRead(const std::string& key, std::string* value) const;

  std::string dir_;
};

}  // namespace weft::test
