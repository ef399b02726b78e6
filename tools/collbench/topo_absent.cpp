// DiscoverPlace where CMake found no hwloc: collbench topo says so.
#include "tools/collbench/topo.hpp"

namespace weft::collbench {

bool DiscoverPlace(RankPlace*, std::string* error) {
  *error = "collbench was built without hwloc (install libhwloc-dev and reconfigure)";
  return false;
}

}  // namespace weft::collbench
