// What the UCX plugin's tests share: results, timing and the environment of forked ranks.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <weft/backend_plugin.h>

#include "file_store.hpp"
#include "strided_rows.hpp"

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

// `rows` rows of `cols` int32 elements, a row every `stride` elements (stride == cols: one run).
inline weft_bk_strided_t Int32Rows(uint64_t rows, uint64_t cols, uint64_t stride) {
  return StridedRows(rows, cols, stride, 4);
}

// Rank 0's side of a test whose rank 1 dies while rank 0's send `q` waits for it: after
// `grace_ms` (rank 1 takes its part, then dies), the wait fails with PEER_FAILURE naming rank 1
// within 2.5 s; `q` is freed.
inline std::string SendFailsWhenRankOneDies(const weft_backend_plugin_t& t, weft_bk_request_t* q,
                                            int grace_ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(grace_ms));
  const auto t0 = Clock::now();
  const weft_status_t s = t.request_wait(q, -1);
  t.request_free(q);
  return PeerFailureNaming(1, s, "send to the killed receiver", Since(t0), 2.5);
}

// Rank 0 succeeded and rank 1 killed itself.
inline void ExpectRankOneKilled(const std::vector<std::string>& results) {
  EXPECT_EQ(results[0], "");
  EXPECT_EQ(results[1], "killed by signal 9");
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
