// bootstrap_store_peer: a separate process for the store tests, so that "another rank" is a
// real process that can be SIGKILLed, and a store whose memory can be measured apart from the
// test's own (and so that no test forks a threaded process without exec, which
// ThreadSanitizer does not support). The secret comes from WEFT_STORE_TOKEN; without it the
// peer uses the loopback store's token file.
//   bootstrap_store_peer hammer <port> <id> <ops>   exit 0 iff every operation succeeded
//   bootstrap_store_peer rank <port> <rank>         register, set "peer/<rank>/ready", sleep
//   bootstrap_store_peer serve <world> <max_message>
//       host a store on 127.0.0.1, print "port <P>" and serve until killed
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "backends/bootstrap/store_client.hpp"
#include "backends/bootstrap/store_server.hpp"
#include "tests/backends/bootstrap/store_hammer.hpp"

namespace bs = weft::backends::bootstrap;

namespace {

bs::Clock::time_point In(int seconds) { return bs::Clock::now() + std::chrono::seconds(seconds); }

bs::StoreSecret Secret() {
  const char* token = std::getenv("WEFT_STORE_TOKEN");
  return token != nullptr && *token != '\0' ? bs::StoreSecret::Key(token)
                                            : bs::StoreSecret::LocalFile();
}

int RunRank(bs::StoreClient& client, int rank) {
  if (!client.Register(rank, nullptr, In(10)).ok()) return 3;
  if (!client.Set("peer/" + std::to_string(rank) + "/ready", "1", In(10)).ok()) return 4;
  for (;;) pause();  // until the test kills us
}

int Serve(int world, long max_message) {
  bs::StoreServer::Options options{"127.0.0.1", 0, world, Secret(), {}};
  options.limits.max_message = static_cast<uint32_t>(max_message);
  auto server = bs::StoreServer::Start(options);
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", server.status().message().c_str());
    return 1;
  }
  std::printf("port %u\n", (*server)->port());
  std::fflush(stdout);
  for (;;) pause();  // until the test kills us
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const std::string mode = argv[1];
  if (mode == "serve") return Serve(std::atoi(argv[2]), std::atol(argv[3]));
  auto port = static_cast<uint16_t>(std::atoi(argv[2]));
  auto client = bs::StoreClient::Connect("127.0.0.1", port, In(10), {Secret()});
  if (!client.ok()) return 1;
  if (mode == "hammer" && argc == 5) {
    int errors = bs::testing::Hammer(**client, std::atoi(argv[3]), std::atoi(argv[4]));
    return errors == 0 ? 0 : 1;
  }
  if (mode == "rank") return RunRank(**client, std::atoi(argv[3]));
  return 2;
}
