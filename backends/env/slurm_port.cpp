#include "backends/env/slurm_port.hpp"

namespace weft::backends {
namespace {

constexpr int64_t kStepStride = 24721;

int64_t Mod(int64_t x, int64_t m) {
  const int64_t r = x % m;
  return r < 0 ? r + m : r;
}

}  // namespace

uint16_t SlurmDefaultPort(int64_t job_id, int64_t step_id) {
  // Reduce before multiplying so that no id, however large, can overflow.
  const int64_t span = kSlurmPortSpan;
  const int64_t offset = Mod(Mod(job_id, span) + Mod(step_id, span) * kStepStride, span);
  return static_cast<uint16_t>(kSlurmPortBase + offset);
}

}  // namespace weft::backends
