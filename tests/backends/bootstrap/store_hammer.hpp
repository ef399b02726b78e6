// One client's share of the contention test, shared by the threaded variant and the peer
// processes: `ops` operations, mostly Adds on "counter", every fourth a Set/Get of a key of
// its own. Returns the number of failed or wrong operations.
#pragma once

#include <string>

#include "backends/bootstrap/store_client.hpp"

namespace weft::backends::bootstrap::testing {

constexpr int64_t HammerAdds(int ops) { return ops - ops / 4; }

inline int Hammer(StoreClient& client, int id, int ops) {
  int errors = 0;
  const std::string own = "own/" + std::to_string(id);
  auto deadline = [] { return Clock::now() + std::chrono::seconds(10); };
  for (int i = 0; i < ops; ++i) {
    if (i % 4 == 3) {
      errors += !client.Set(own, std::to_string(i), deadline()).ok();
      auto value = client.Get(own, deadline());
      errors += !value.ok() || *value != std::to_string(i);
    } else {
      errors += !client.Add("counter", 1, deadline()).ok();
    }
  }
  return errors;
}

}  // namespace weft::backends::bootstrap::testing
