// Runs a test body on N forked processes, each a rank with the Gloo plugin loaded, initialised
// and a world communicator created. Children report failure through their exit status (the
// RCHECK macros print and _exit), never through GoogleTest, which lives in the parent.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <weft/backend_plugin.h>

#include "tests/backends/gloo/fs_store.hpp"
#include "tests/backends/gloo/test_host.hpp"

namespace weft::test {

inline constexpr int64_t kOpTimeoutMs = 20000;

struct Rank {
  int32_t rank = 0;
  int32_t size = 0;
  const weft_backend_plugin_t* plugin = nullptr;
  void* state = nullptr;
  weft_bk_comm_t* world = nullptr;
  FsStore* store = nullptr;
  TestHost* host = nullptr;
  std::map<weft_bk_comm_t*, uint64_t> seqs;

  // The next op's arguments on `comm`: every member numbers its ops in the same order.
  weft_bk_op_t Op(weft_bk_comm_t* comm, int64_t timeout_ms = kOpTimeoutMs,
                  DLDevice device = DLDevice{kDLCPU, 0});
  // Store helpers for test choreography.
  void Signal(const std::string& key);
  void AwaitSignal(const std::string& key, int64_t timeout_ms = kOpTimeoutMs);
};

struct ChildOutcome {
  bool exited = false;  // else killed by `signal`
  int code = -1;
  int signal = 0;
  bool timed_out = false;  // the runner killed it at the limit
};

using RankBody = std::function<void(Rank&)>;

// Forks n ranks running `body`; kills all of them after `limit`. Returns each rank's outcome.
std::vector<ChildOutcome> RunRanks(int n, const RankBody& body,
                                   std::chrono::seconds limit = std::chrono::seconds(25));

// "rank 2: exit 0" style text for assertion messages.
std::string Describe(const std::vector<ChildOutcome>& outcomes);
bool AllSucceeded(const std::vector<ChildOutcome>& outcomes);

[[noreturn]] void ChildFail(const char* file, int line, const std::string& what);

}  // namespace weft::test

#define RCHECK(cond)                                                 \
  do {                                                               \
    if (!(cond)) ::weft::test::ChildFail(__FILE__, __LINE__, #cond); \
  } while (0)

#define RCHECK_STATUS(expr, expected)                                                         \
  do {                                                                                        \
    const weft_status_t rcheck_s_ = (expr);                                                   \
    if (rcheck_s_ != (expected)) {                                                            \
      ::weft::test::ChildFail(__FILE__, __LINE__,                                             \
                              std::string(#expr) + " returned " + std::to_string(rcheck_s_) + \
                                  " (want " + std::to_string(expected) +                      \
                                  "): " + ::weft::test::TestHost::LastError());               \
    }                                                                                         \
  } while (0)

#define RCHECK_OK(expr) RCHECK_STATUS(expr, WEFT_OK)
