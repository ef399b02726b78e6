#include "backends/ucx/coll/tuning.hpp"

#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>

namespace weft::backends::ucx_plugin {
namespace {

// Reads a positive integer with an optional K/M/G suffix (powers of 1024) into *out.
void ReadSize(const weft_bk_host_api_t* host, const char* name, uint64_t min, uint64_t* out) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = std::strtoull(text, &end, 10);
  bool ok = errno == 0 && end != text && text[0] != '-';
  if (ok && *end != '\0') {
    const int shift = *end == 'K' || *end == 'k'   ? 10
                      : *end == 'M' || *end == 'm' ? 20
                      : *end == 'G' || *end == 'g' ? 30
                                                   : -1;
    ok = shift >= 0 && end[1] == '\0' && v <= (~0ull >> shift);
    if (ok) v <<= shift;
  }
  if (ok && v >= min) {
    *out = v;
    return;
  }
  const std::string msg = std::string("ucx: ignoring ") + name + "=" + text +
                          " (expected an integer >= " + std::to_string(min) +
                          ", optionally with K, M or G)";
  host->log(host->host_data, WEFT_LOG_WARN, msg.c_str());
}

}  // namespace

Tuning ReadTuning(const weft_bk_host_api_t* host) {
  Tuning t;
  ReadSize(host, "WEFT_UCX_ALLREDUCE_RING_BYTES", 0, &t.allreduce_ring_bytes);
  ReadSize(host, "WEFT_UCX_ALLGATHER_BRUCK_BYTES", 0, &t.allgather_bruck_bytes);
  ReadSize(host, "WEFT_UCX_ALLGATHER_DIRECT", 0, &t.allgather_direct);
  ReadSize(host, "WEFT_UCX_REDUCE_SCATTER_DIRECT_BYTES", 0, &t.reduce_scatter_direct_bytes);
  ReadSize(host, "WEFT_UCX_BROADCAST_CHAIN_BYTES", 0, &t.broadcast_chain_bytes);
  ReadSize(host, "WEFT_UCX_SEGMENT_BYTES", 64, &t.segment_bytes);
  uint64_t inflight = static_cast<uint64_t>(t.alltoall_inflight);
  ReadSize(host, "WEFT_UCX_ALLTOALL_INFLIGHT", 1, &inflight);
  t.alltoall_inflight = static_cast<int32_t>(inflight > 65536 ? 65536 : inflight);
  ReadSize(host, "WEFT_UCX_CMA_BYTES", 0, &t.cma_bytes);
  ReadSize(host, "WEFT_UCX_PUSH_SLOTS", 0, &t.push_slots);
  t.push_slots = std::min<uint64_t>(t.push_slots, 65536);
  ReadSize(host, "WEFT_UCX_BOARD", 0, &t.board);
  ReadSize(host, "WEFT_UCX_PIPE_BYTES", 0, &t.pipe_bytes);
  ReadSize(host, "WEFT_UCX_PIPE_ADAPT", 0, &t.pipe_adapt);
  ReadSize(host, "WEFT_UCX_ALLREDUCE_PUSH", 0, &t.allreduce_push);
  uint64_t spin = 0;
  if (std::getenv("WEFT_UCX_SPIN_US") != nullptr) {
    ReadSize(host, "WEFT_UCX_SPIN_US", 0, &spin);
    t.spin_us = static_cast<int64_t>(std::min<uint64_t>(spin, 1000000));
  }
  return t;
}

bool CpuPerRank(int32_t ranks_on_host) {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
  return ranks_on_host <= cpus;
}

int64_t SpinMicroseconds(const Tuning& t, bool cpu_per_rank) {
  if (t.spin_us >= 0) return t.spin_us;
  return cpu_per_rank ? 200 : 0;
}

}  // namespace weft::backends::ucx_plugin
