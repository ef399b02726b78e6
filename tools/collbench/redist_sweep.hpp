// Measures one redistribute row (--pattern): the plan is made once, then every iteration runs
// weft_plan_execute after a barrier and, when the pattern needs communication, its reference
// collective (Weft's collective on the same backend, or raw Gloo with --raw gloo) on the same
// bytes after its own barrier; then one checked run of each. Collective over the world.
#pragma once

#include <weft/weft.h>

#include <optional>
#include <string>

#include "tools/collbench/device_memory.hpp"
#include "tools/collbench/options.hpp"
#include "tools/collbench/pattern.hpp"
#include "tools/collbench/raw.hpp"
#include "tools/collbench/report.hpp"

namespace weft::collbench {

class RedistSweep {
 public:
  // `raw`: the reference collectives' library (--raw); `device`: CUDA buffers (-d cuda).
  RedistSweep(weft_context_t* ctx, int32_t rank, int32_t nranks, const Options& options, Raw* raw,
              DeviceMemory* device = nullptr)
      : ctx_(ctx), rank_(rank), nranks_(nranks), options_(options), raw_(raw), device_(device) {}

  // The row for pattern p at nominal size `bytes` (nullopt when too small: no element); with
  // *plan set to the plan's description on the first row of each pattern. On a failure
  // returns nullopt with *error set.
  std::optional<Row> Measure(const Pattern& p, int64_t bytes, std::string* plan,
                             std::string* error);

 private:
  weft_context_t* ctx_;
  int32_t rank_, nranks_;
  const Options& options_;
  Raw* raw_;              // nullptr without --raw
  DeviceMemory* device_;  // nullptr without -d cuda
};

}  // namespace weft::collbench
