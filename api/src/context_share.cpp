// Context::ShareThroughStore: each rank's text under share/<n>/<rank>, then every rank's read
// back. The n-th call on every rank uses the same keys, so calls pair up by order alone.
#include <string>
#include <vector>

#include "api/src/context.hpp"
#include "backends/bootstrap/store_client.hpp"
#include "common/clock.hpp"

namespace weft::api {

Result<std::vector<std::string>> Context::ShareThroughStore(const std::string& topic,
                                                            const std::string& mine) {
  const std::string prefix = "share/" + std::to_string(shares_.fetch_add(1)) + "/" + topic + "/";
  std::vector<std::string> all(static_cast<size_t>(world_size_));
  Status s = RunNow([&]() -> Status {
    const auto deadline = DeadlineFromTimeoutMs(timeout_ms_);
    WEFT_RETURN_IF_ERROR(store_->Set(prefix + std::to_string(rank_), mine, deadline));
    for (int32_t r = 0; r < world_size_; ++r) {
      if (r == rank_) {
        all[static_cast<size_t>(r)] = mine;
        continue;
      }
      WEFT_ASSIGN_OR_RETURN(all[static_cast<size_t>(r)],
                            store_->Get(prefix + std::to_string(r), deadline));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return all;
}

}  // namespace weft::api
