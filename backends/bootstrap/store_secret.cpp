#include "backends/bootstrap/store_secret.hpp"

#include "backends/bootstrap/host_lookup.hpp"

namespace weft::backends::bootstrap {
namespace {

// Public on purpose: an insecure store accepts anyone who speaks the protocol.
constexpr const char* kInsecureKey = "weft-store: no authentication (WEFT_STORE_INSECURE=1)";

}  // namespace

StoreSecret StoreSecret::Key(std::string key, std::string source) {
  return StoreSecret(Kind::kKey, std::move(key), std::move(source));
}

StoreSecret StoreSecret::LocalFile() {
  return StoreSecret(Kind::kLocalFile, "", "the store's token file");
}

StoreSecret StoreSecret::Insecure() {
  return StoreSecret(Kind::kKey, kInsecureKey, "WEFT_STORE_INSECURE=1");
}

Result<bool> IsLoopbackHost(const std::string& host) {
  WEFT_ASSIGN_OR_RETURN(std::vector<detail::SocketAddress> addresses, detail::ResolveHost(host, 1));
  for (const detail::SocketAddress& a : addresses) {
    if (!detail::IsLoopback(a)) return false;
  }
  return true;
}

Result<StoreSecret> ChooseStoreSecret(const std::optional<std::string>& token, bool insecure,
                                      const std::string& host, uint16_t port) {
  if (token) return StoreSecret::Key(*token);
  auto loopback = IsLoopbackHost(host);
  // A name that does not exist fails now; a temporary DNS failure counts as "not loopback".
  if (!loopback.ok() && loopback.status().code() == Code::kInvalidArgument) {
    return loopback.status();
  }
  if (loopback.ok() && *loopback) return StoreSecret::LocalFile();
  if (insecure) return StoreSecret::Insecure();
  return InvalidArgument(
      "bootstrap store: the store at " + host + ":" + std::to_string(port) +
      " may be reached from other machines, and WEFT_STORE_TOKEN is not set: give every rank "
      "the same secret (e.g. WEFT_STORE_TOKEN=$(openssl rand -hex 32), passed on with mpirun "
      "-x WEFT_STORE_TOKEN or srun --export=ALL), or set WEFT_STORE_INSECURE=1 on every rank to "
      "run without authentication");
}

}  // namespace weft::backends::bootstrap
