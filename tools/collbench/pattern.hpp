// Redistribute patterns (--pattern): a source and a destination layout of one 2-D tensor on a
// 1-D mesh of the world ("S0-R") or on a 2-D mesh of it ("2d:S0S1-S1S0"), and the plain
// collective that moves the same bytes, which the pattern is compared against.
#pragma once

#include <weft/weft.h>

#include <optional>
#include <string>
#include <vector>

#include "tools/collbench/options.hpp"

namespace weft::collbench {

struct Pattern {
  std::string name;  // as given, e.g. "S0-R" or "2d:S0S1-S1S0"
  int32_t mesh_ndim = 1;
  std::vector<weft_placement_t> src, dst;  // one per mesh dim
};

// "S0-R,P-S0,2d:S0S1-S1S0": tokens R, S0, S1, P (= Psum), Psum, Pavg, Pmax, Pmin, Pprod;
// one token per side on a 1-D mesh, two after "2d:". Halo items ("halo...", halo_pattern.hpp)
// are skipped. false with *error on a bad item or an empty list.
bool ParsePatterns(const std::string& list, std::vector<Pattern>* patterns, std::string* error);

// The 2-D mesh a "2d:" pattern uses for n ranks: 2 x n/2 when n is even, else 1 x n.
std::vector<int64_t> PatternMeshShape(const Pattern& p, int32_t nranks);

// The reference collective over the whole world and its nominal size in collbench's -op
// convention, for a global tensor of `bytes`:
//   Partial -> anything sharded: reduce_scatter(bytes); Partial -> R: allreduce(bytes);
//   sharded -> R: allgather(bytes); sharded -> differently sharded: alltoall(bytes / n, one
//   rank's send buffer). nullopt when the pattern needs no communication (e.g. R -> S0).
struct RawRef {
  Op op;
  int64_t nominal_bytes;
  int redop;
};
std::optional<RawRef> ReferenceFor(const Pattern& p, int64_t bytes, int32_t nranks);

// busbw / algbw for a pattern row, from its reference collective: the bytes one rank moves
// over the wire per byte of global tensor (allgather, reduce_scatter (n-1)/n; allreduce
// 2(n-1)/n; alltoall (n-1)/n^2, since each rank holds 1/n of the tensor); 1 without one.
double PatternBusFactor(const Pattern& p, int32_t nranks);

}  // namespace weft::collbench
