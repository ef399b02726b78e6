// bootstrap_store_peer: a separate process for the store tests, so that "another rank" is a
// real process that can be SIGKILLed (and so that no test forks a threaded process without
// exec, which ThreadSanitizer does not support).
//   bootstrap_store_peer hammer <port> <id> <ops>   exit 0 iff every operation succeeded
//   bootstrap_store_peer rank <port> <rank>         register, set "peer/<rank>/ready", sleep
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "backends/bootstrap/store_client.hpp"
#include "tests/backends/bootstrap/store_hammer.hpp"

namespace bs = weft::backends::bootstrap;

namespace {

bs::Clock::time_point In(int seconds) { return bs::Clock::now() + std::chrono::seconds(seconds); }

int RunRank(bs::StoreClient& client, int rank) {
  if (!client.Register(rank, nullptr, In(10)).ok()) return 3;
  if (!client.Set("peer/" + std::to_string(rank) + "/ready", "1", In(10)).ok()) return 4;
  for (;;) pause();  // until the test kills us
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const std::string mode = argv[1];
  auto port = static_cast<uint16_t>(std::atoi(argv[2]));
  auto client = bs::StoreClient::Connect("127.0.0.1", port, In(10));
  if (!client.ok()) return 1;
  if (mode == "hammer" && argc == 5) {
    int errors = bs::testing::Hammer(**client, std::atoi(argv[3]), std::atoi(argv[4]));
    return errors == 0 ? 0 : 1;
  }
  if (mode == "rank") return RunRank(**client, std::atoi(argv[3]));
  return 2;
}
