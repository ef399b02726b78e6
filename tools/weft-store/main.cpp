// weft-store: the bootstrap store as a standalone process, for launches where no rank should
// host it (SPEC §8). Usage: weft-store [--host H] [--port P]. Prints
// "weft-store listening on H:P" once it accepts connections and serves until SIGINT/SIGTERM.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "backends/bootstrap/store_server.hpp"

namespace {

struct Options {
  std::string host = "0.0.0.0";
  long port = 0;
};

int Usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s [--host H] [--port P]\n", argv0);
  return 2;
}

bool Parse(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) return false;
    if (arg == "--host") {
      options.host = argv[++i];
    } else if (arg == "--port") {
      char* end = nullptr;
      options.port = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || options.port < 0 || options.port > 65535) return false;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  if (!Parse(argc, argv, options)) return Usage(argv[0]);
  // Blocked before the server thread starts, so that it inherits the mask and the signals
  // reach sigwait below.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto server = weft::backends::bootstrap::StoreServer::Start(options.host,
                                                              static_cast<uint16_t>(options.port));
  if (!server.ok()) {
    std::fprintf(stderr, "weft-store: %s\n", server.status().message().c_str());
    return 1;
  }
  std::printf("weft-store listening on %s:%u\n", options.host.c_str(), (*server)->port());
  std::fflush(stdout);
  int received = 0;
  sigwait(&signals, &received);
  (*server)->Stop();
  return 0;
}
