// The job's secret (SPEC §8 "Store security"): weftrun makes a fresh one per job and gives it
// to every rank as WEFT_STORE_TOKEN, so that only the job's own ranks can talk to its store.
#pragma once

#include <string>

#include "common/result.hpp"

namespace weft::tools {

// 256 bits from OpenSSL's CSPRNG (RAND_bytes) as 64 lowercase hex digits. kSystem if the
// generator cannot deliver.
Result<std::string> NewJobToken();

}  // namespace weft::tools
