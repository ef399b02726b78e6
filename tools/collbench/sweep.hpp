// Measures one row: warm-up, then timed iterations (Weft and, with --raw gloo, raw Gloo back
// to back in each iteration, each after its own barrier), then one checked run of each on
// freshly filled buffers. Every call is collective over the world.
#pragma once

#include <weft/weft.h>

#include <optional>
#include <string>
#include <vector>

#include "tools/collbench/device_memory.hpp"
#include "tools/collbench/options.hpp"
#include "tools/collbench/raw.hpp"
#include "tools/collbench/report.hpp"

namespace weft::collbench {

class Sweep {
 public:
  // `device`: the rows' buffers in CUDA memory (-d cuda); null: host memory.
  Sweep(weft_context_t* ctx, int32_t rank, int32_t nranks, const Options& options, Raw* raw,
        DeviceMemory* device = nullptr)
      : ctx_(ctx), rank_(rank), nranks_(nranks), options_(options), raw_(raw), device_(device) {}

  // The row for `op` at nominal size `bytes`; nullopt when the size is too small for the
  // world (no element per member). On a failure returns nullopt with *error set.
  std::optional<Row> Measure(Op op, int64_t bytes, std::string* error);

 private:
  // Per-iteration seconds of Weft (and raw, when raw != nullptr), warm-up excluded.
  bool Time(Case& c, Raw* raw, std::vector<double>* weft_s, std::vector<double>* raw_s,
            std::string* error);
  // Fills, runs once and counts wrong elements over all ranks (-1 when not checking).
  bool Check(Case& c, Raw* raw, int64_t* weft_wrong, int64_t* raw_wrong, std::string* error);
  bool MaxOverRanks(std::vector<double>* seconds, std::string* error);
  bool SumOverRanks(int64_t* value, std::string* error);

  weft_context_t* ctx_;
  int32_t rank_, nranks_;
  const Options& options_;
  Raw* raw_;              // nullptr without --raw
  DeviceMemory* device_;  // nullptr without -d cuda
};

}  // namespace weft::collbench
