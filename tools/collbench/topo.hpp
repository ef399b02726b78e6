// collbench topo (issue 26 item 1): where each rank runs — its host (host name and network
// namespace, so the "hosts" of scripts/netns-hosts.sh count as hosts), package, NUMA node, L3
// cache, core and processing unit, the host's NICs and GPUs — found with hwloc, gathered from
// every rank, printed and written as versioned JSON ("weft_topology": 1): which ranks share a
// host, a NUMA node, an L3. With --mesh AxB it proposes the rank order that puts the innermost
// mesh dim on the closest ranks.
#pragma once

#include <weft/weft.h>

#include <cstdint>
#include <string>
#include <vector>

namespace weft::collbench {

// One rank's place, as gathered (fixed size: it travels as bytes in an all-gather).
struct RankPlace {
  char host[64] = {};  // host name
  uint64_t netns = 0;  // network namespace inode (0: unknown)
  int32_t package = -1, numa = -1, l3 = -1, core = -1, pu = -1;  // hwloc logical indexes
  int32_t bound = 0;    // 1: the process is bound to that PU's cpuset; 0: it may migrate
  char nics[192] = {};  // the host's network devices, comma-separated
  char gpus[128] = {};  // the host's GPUs (hwloc OS devices), comma-separated
};

// This process's place (hwloc); false with *error when hwloc is absent or fails.
bool DiscoverPlace(RankPlace* place, std::string* error);

// "host name/netns:inode": equal exactly for ranks on one host.
std::string HostKey(const RankPlace& p);

// Every rank's place (collective over the world); false with *error on this rank's failure.
bool GatherPlaces(weft_context_t* ctx, int32_t nranks, std::vector<RankPlace>* all,
                  std::string* error);

// `collbench topo [--out FILE] [--mesh AxB]` under a launcher: every rank discovers, all
// gather, rank 0 prints and writes. Returns the exit status.
int RunTopo(weft_context_t* ctx, int32_t rank, int32_t nranks, int argc, char** argv);

}  // namespace weft::collbench
