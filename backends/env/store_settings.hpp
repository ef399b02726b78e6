// The store's security settings from the environment (SPEC §8 "Store security"): the job's
// secret and the store's resource limits. Every variable is parsed strictly: a malformed value
// is an error naming the variable (never echoing a token), never a silent default. Unset
// variables stay empty; the bootstrap store's defaults (store_limits.hpp) then apply.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/env/launch_env.hpp"
#include "common/result.hpp"

namespace weft::backends {

struct StoreSettings {
  // WEFT_STORE_TOKEN: the job's secret, 16 to 1024 printable characters without spaces. The
  // same on every rank.
  std::optional<std::string> token;
  // WEFT_STORE_INSECURE: "1" lets a store reachable from other machines run without a token,
  // "0" (the default) refuses to. The same on every rank.
  bool insecure = false;
  // WEFT_STORE_MAX_MESSAGE: bytes in one store message, 4096 to 2^30. The same on every rank.
  std::optional<uint32_t> max_message;
  // WEFT_STORE_MAX_BYTES: bytes of keys and values the store holds, at least 2^20. Read by
  // the store's host.
  std::optional<uint64_t> max_bytes;
  // WEFT_STORE_MAX_CONNECTIONS: authenticated connections the store serves at once, 1 to
  // 2^20. Read by the store's host.
  std::optional<uint32_t> max_connections;
};

// Errors: kInvalidArgument naming the variable and what is wrong with it.
Result<StoreSettings> ReadStoreSettings(const GetEnv& getenv = {});

}  // namespace weft::backends
