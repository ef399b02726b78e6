// Slurm's compressed host lists ("node[1-4,7],gpu-a[01-02],x"), as in SLURM_JOB_NODELIST.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace weft::backends {

// Expands a Slurm host list in Slurm's order. Ranges keep the width of their lower bound
// ("n[008-010]" gives n008 n009 n010); several bracket groups in one name expand as a
// product, leftmost slowest ("r[1-2]n[1-2]" gives r1n1 r1n2 r2n1 r2n2). kInvalidArgument,
// quoting the list, for empty names, unbalanced or nested brackets, reversed or non-numeric
// ranges, characters no host name has, or more than kMaxSlurmHosts names.
Result<std::vector<std::string>> ExpandSlurmNodeList(std::string_view list);

// Bounds the expansion so that a typo such as "n[0-99999999999]" fails instead of exhausting
// memory; far above the largest Slurm clusters.
inline constexpr size_t kMaxSlurmHosts = size_t{1} << 20;

}  // namespace weft::backends
