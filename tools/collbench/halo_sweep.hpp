// Measures the rows of one halo pattern at one size (--pattern halo...): per interior size, the
// plan is made once, then every iteration runs the halo exchange after a barrier and the raw
// reference (the same messages through weft_send / weft_recv, plus the same packing and, out
// of place, the same interior copy) after its own barrier; then one checked run of each.
// Collective over the world.
#pragma once

#include <weft/weft.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tools/collbench/halo_pattern.hpp"
#include "tools/collbench/options.hpp"
#include "tools/collbench/report.hpp"

namespace weft::collbench {

// What a halo row shows besides its timings: the pattern, the global shape and the local
// block (as "AxB"), the halo depth and the size column's bytes.
struct HaloRowInfo {
  std::string pattern, shape, local;
  int64_t depth = 0, size_bytes = 0;
};

// A halo row from the per-iteration times of both sides (max over ranks), the received bytes
// and messages (plan, reference, reference messages) and the wrong cells (Weft, reference).
Row MakeHaloRow(const HaloRowInfo& info, const std::vector<double>& halo_s,
                const std::vector<double>& raw_s, const int64_t (&counts)[3],
                const int64_t (&wrong)[2]);

class HaloSweep {
 public:
  HaloSweep(weft_context_t* ctx, int32_t rank, int32_t nranks, const Options& options)
      : ctx_(ctx), rank_(rank), nranks_(nranks), options_(options) {}

  // Appends the rows of pattern p at nominal face size `bytes` (none when a face would be
  // empty); *plan (when not null) gets the first row's plan description. false with *error on
  // a failure.
  bool Measure(const HaloPattern& p, int64_t bytes, std::string* plan, std::vector<Row>* rows,
               std::string* error);

 private:
  bool MeasureOne(const HaloPattern& p, const HaloGeometry& g, std::string* plan, Row* row,
                  std::string* error);
  // conv2d-fwd-bwd (conv_sweep.cpp): a forward and a backward row at `bytes` per rank.
  bool MeasureConv(const HaloPattern& p, int64_t bytes, std::string* plan, std::vector<Row>* rows,
                   std::string* error);

  weft_context_t* ctx_;
  int32_t rank_, nranks_;
  const Options& options_;
};

}  // namespace weft::collbench
