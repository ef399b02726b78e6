// How the ranks of a job and their store prove to each other that they belong together
// (SPEC §8 "Store security"; the handshake is in wire.hpp and handshake.hpp). Every
// connection runs the handshake; what differs is where the shared secret comes from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/result.hpp"

namespace weft::backends::bootstrap {

class StoreSecret {
 public:
  enum class Kind {
    kKey,        // a secret every side was given (WEFT_STORE_TOKEN, weftrun, a test)
    kLocalFile,  // a loopback store's own secret, passed through a file only this user reads
  };

  // `source` names where the key came from, for error messages ("WEFT_STORE_TOKEN").
  static StoreSecret Key(std::string key, std::string source = "WEFT_STORE_TOKEN");
  // Server: makes a random secret and writes it to the token file for its host:port, removed
  // when it stops; client: reads that file (token_file.hpp), waiting for it to appear.
  static StoreSecret LocalFile();
  // WEFT_STORE_INSECURE=1 without a token: a well-known key, so that the handshake still
  // runs, but it proves nothing.
  static StoreSecret Insecure();

  Kind kind() const { return kind_; }
  // The key for kKey; empty for kLocalFile.
  const std::string& key() const { return key_; }
  const std::string& source() const { return source_; }

 private:
  StoreSecret(Kind kind, std::string key, std::string source)
      : kind_(kind), key_(std::move(key)), source_(std::move(source)) {}

  Kind kind_;
  std::string key_;
  std::string source_;
};

// The policy of docs/design/bootstrap_store.md, first match wins:
//   a token                      -> Key(token)
//   a store only this host sees  -> LocalFile() (host resolves to loopback addresses only)
//   insecure                     -> Insecure()
//   otherwise                    -> kInvalidArgument naming WEFT_STORE_TOKEN and
//                                   WEFT_STORE_INSECURE
// An unresolvable host fails here at once (kInvalidArgument naming it).
Result<StoreSecret> ChooseStoreSecret(const std::optional<std::string>& token, bool insecure,
                                      const std::string& host, uint16_t port);

// Whether every address `host` resolves to is a loopback address (127/8, ::1). Errors as
// detail::ResolveHost.
Result<bool> IsLoopbackHost(const std::string& host);

}  // namespace weft::backends::bootstrap
