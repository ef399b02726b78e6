#include "backends/ucx/tuning.hpp"

#include <sched.h>

#include <string_view>

#include "backends/ucx/params.hpp"
#include "common/param_parse.hpp"

namespace weft::backends::ucx_plugin {
namespace {

// The declaration of `name` in params.hpp; a name missing there is a bug caught by the tests
// (ReadTuning then fails naming it).
const weft_bk_param_t* Spec(std::string_view name) {
  for (const weft_bk_param_t& p : kParams)
    if (name == p.name) return &p;
  return nullptr;
}

// Reads `name` into *out (a value the table bounds to out's type); false with *error set when
// its text is malformed. Unset without a default leaves *out as it is.
template <typename T>
bool Read(const char* name, T* out, std::string* error) {
  const weft_bk_param_t* spec = Spec(name);
  if (spec == nullptr) {
    *error = std::string("ucx: ") + name + " is not declared in backends/ucx/params.hpp";
    return false;
  }
  const param::Parsed p = param::Read(*spec);
  if (!p.ok()) {
    *error = p.error;
    return false;
  }
  if (p.value.set) *out = static_cast<T>(p.value.number);
  return true;
}

}  // namespace

bool ReadTuning(Tuning* t, std::string* error) {
  *t = Tuning{};
  return Read("WEFT_UCX_ALLREDUCE_RING_BYTES", &t->allreduce_ring_bytes, error) &&
         Read("WEFT_UCX_ALLGATHER_BRUCK_BYTES", &t->allgather_bruck_bytes, error) &&
         Read("WEFT_UCX_ALLGATHER_DIRECT", &t->allgather_direct, error) &&
         Read("WEFT_UCX_REDUCE_SCATTER_DIRECT_BYTES", &t->reduce_scatter_direct_bytes, error) &&
         Read("WEFT_UCX_BROADCAST_CHAIN_BYTES", &t->broadcast_chain_bytes, error) &&
         Read("WEFT_UCX_SEGMENT_BYTES", &t->segment_bytes, error) &&
         Read("WEFT_UCX_ALLTOALL_INFLIGHT", &t->alltoall_inflight, error) &&
         Read("WEFT_UCX_CMA_BYTES", &t->cma_bytes, error) &&
         Read("WEFT_UCX_PUSH_SLOTS", &t->push_slots, error) &&
         Read("WEFT_UCX_BOARD", &t->board, error) &&
         Read("WEFT_UCX_PIPE_BYTES", &t->pipe_bytes, error) &&
         Read("WEFT_UCX_PIPE_ADAPT", &t->pipe_adapt, error) &&
         Read("WEFT_UCX_ALLREDUCE_PUSH", &t->allreduce_push, error) &&
         Read("WEFT_UCX_SPIN_US", &t->spin_us, error);
}

bool CpuPerRank(int32_t ranks_on_host) {
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
  return ranks_on_host <= cpus;
}

int64_t SpinMicroseconds(const Tuning& t, bool cpu_per_rank) {
  if (t.spin_us >= 0) return t.spin_us;
  return cpu_per_rank ? kSpinUsWithCpuPerRank : 0;
}

}  // namespace weft::backends::ucx_plugin
