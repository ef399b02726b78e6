// Small blocking all-reduce without the schedule machinery (issue 6's latency target).
//
// An 8-byte all-reduce is a few microseconds of latency at most, so what the plugin spends
// around the messages shows: building a Schedule, its rounds, actions and step requests costs
// more than the transfer. Here the calling thread runs the same recursive doubling inline: the
// same messages under the same tag in the same order (so a member running the schedule, e.g.
// one that asked for a request, still matches this one), the same reduction order (so every
// member ends with the same bits), with two step requests and a receive buffer that the
// communicator keeps from call to call.
#pragma once

#include <cstdint>

#include "backends/ucx/coll/algorithms.hpp"
#include "backends/ucx/tuning_table.hpp"

namespace weft::backends::ucx_plugin {

// The largest all-reduce that takes this path: kSmallAllreduceBytes (tuning_table.hpp).

// Whether a blocking all-reduce of `count` elements (`bytes`) on `c` takes the small path:
// more than one member, at most kSmallAllreduceBytes, and recursive doubling is the algorithm.
bool SmallAllreduceFits(const Comm& c, const Tuning& t, uint64_t bytes, uint64_t count);

// Runs it to the end: WEFT_OK or the first step's failure (after State::Fail). Requires the
// caller's checks (entry.cpp) to have passed.
weft_status_t SmallAllreduce(Comm& c, const Reduction& red, const void* send, void* recv,
                             uint64_t bytes, Clock::time_point deadline);

}  // namespace weft::backends::ucx_plugin
