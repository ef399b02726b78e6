// What the UCX plugin's tests share: results, timing and the environment of forked ranks.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include <weft/backend_plugin.h>

#include "file_store.hpp"

namespace weft::test::ucx {

using Clock = std::chrono::steady_clock;
inline const DLDataType kU8{kDLUInt, 8, 1};
inline const DLDataType kI32{kDLInt, 32, 1};

// "what returned s: <the host's last error>", a rank's failure text.
inline std::string Err(const char* what, weft_status_t s) {
  return std::string(what) + " returned " + std::to_string(s) + ": " + FileStoreHost::LastError();
}

inline double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// "" when `s` is PEER_FAILURE with a message naming `rank` that came within `limit_s` seconds,
// else what is wrong.
inline std::string PeerFailureNaming(int32_t rank, weft_status_t s, const char* what, double took,
                                     double limit_s) {
  if (s != WEFT_ERR_PEER_FAILURE) return Err(what, s);
  const std::string name = "rank " + std::to_string(rank);
  if (FileStoreHost::LastError().find(name) == std::string::npos)
    return "does not name " + name + ": " + FileStoreHost::LastError();
  if (took > limit_s) return "noticed after " + std::to_string(took) + " s";
  return "";
}

inline void ExpectAllOk(const std::vector<std::string>& results) {
  for (size_t i = 0; i < results.size(); ++i) EXPECT_EQ(results[i], "") << "rank " << i;
}

// Sets an environment variable for the ranks forked while it lives.
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  const char* name;
};

}  // namespace weft::test::ucx
