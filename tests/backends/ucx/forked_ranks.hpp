// Runs a test body on n forked processes, each with the UCX plugin loaded (dlopen), initialised
// for its rank and holding a communicator of the whole world.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <weft/backend_plugin.h>

namespace weft::test::ucx {

struct Rank {
  const weft_backend_plugin_t* plugin = nullptr;
  void* state = nullptr;
  weft_bk_comm_t* comm = nullptr;
  int32_t rank = 0, size = 0;

  // Op arguments on host memory with the given deadline.
  weft_bk_op_t Op(int64_t timeout_ms = 20000) const;
};

// Each body returns an empty string on success, else what went wrong. Returns one result per
// rank: "" when it succeeded, else its message, "killed by signal N" or "timed out".
// `before_init(rank)`, when given, runs in each child before the plugin starts (to set a rank's
// environment).
std::vector<std::string> RunRanks(int n, const std::function<std::string(Rank&)>& body,
                                  int timeout_s = 30,
                                  const std::function<void(int32_t)>& before_init = {});

}  // namespace weft::test::ucx
