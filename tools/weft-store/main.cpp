// weft-store: the bootstrap store as a standalone process, for launches where no rank should
// host it (SPEC §8). Usage: weft-store --world-size N [--host H] [--port P]. Prints
// "weft-store listening on H:P" once it accepts connections and serves until SIGINT/SIGTERM.
//
// It binds exactly H (default 127.0.0.1) and takes its security settings from the same
// variables as the ranks (WEFT_STORE_TOKEN, WEFT_STORE_INSECURE, WEFT_STORE_MAX_MESSAGE,
// WEFT_STORE_MAX_BYTES, WEFT_STORE_MAX_CONNECTIONS; docs/design/bootstrap_store.md): on a
// loopback address without a token it publishes its own secret in the token file.
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "backends/bootstrap/store_server.hpp"
#include "backends/env/store_settings.hpp"

namespace {

namespace bs = weft::backends::bootstrap;

struct Options {
  std::string host = "127.0.0.1";
  long port = 0;
  long world_size = 0;
};

int Usage(const char* argv0) {
  std::fprintf(stderr, "usage: %s --world-size N [--host H] [--port P]\n", argv0);
  return 2;
}

bool ParseNumber(const char* text, long min, long max, long& out) {
  char* end = nullptr;
  out = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && out >= min && out <= max;
}

bool Parse(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) return false;
    if (arg == "--host") {
      options.host = argv[++i];
    } else if (arg == "--port") {
      if (!ParseNumber(argv[++i], 0, 65535, options.port)) return false;
    } else if (arg == "--world-size") {
      if (!ParseNumber(argv[++i], 1, INT32_MAX, options.world_size)) return false;
    } else {
      return false;
    }
  }
  return options.world_size > 0;
}

weft::Result<std::unique_ptr<bs::StoreServer>> Start(const Options& options) {
  WEFT_ASSIGN_OR_RETURN(weft::backends::StoreSettings settings,
                        weft::backends::ReadStoreSettings());
  const auto port = static_cast<uint16_t>(options.port);
  WEFT_ASSIGN_OR_RETURN(
      bs::StoreSecret secret,
      bs::ChooseStoreSecret(settings.token, settings.insecure, options.host, port));
  bs::StoreServer::Options server{
      options.host, port, static_cast<int32_t>(options.world_size), secret, {}};
  server.limits.max_message = settings.max_message.value_or(bs::kDefaultMaxMessage);
  server.limits.max_stored_bytes = settings.max_bytes.value_or(bs::kDefaultMaxStoredBytes);
  server.limits.max_connections = settings.max_connections.value_or(0);
  return bs::StoreServer::Start(server);
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

  auto server = Start(options);
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
