#include "backends/ucx/path_choice.hpp"

#include <algorithm>

namespace weft::backends::ucx_plugin {

int PathChoice::KindOf(uint64_t bytes, bool strided) {
  const int size = bytes < (64 << 10) ? 0 : bytes < (256 << 10) ? 1 : bytes <= (1 << 20) ? 2 : 3;
  return (strided ? kSizeClasses : 0) + size;
}

double PathChoice::Estimate::Figure() const {
  if (count < kSamples) return 0;
  std::array<double, kSamples> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  return sorted[1];
}

PathChoice::Way PathChoice::Choose(uint64_t bytes, bool strided, Clock::time_point now) {
  Kind& k = kinds_[KindOf(bytes, strided)];
  // The preferred way refreshes its own figure with every message; the other one gets its
  // messages as kEvery and kRefreshEvery say (a refresh whose sample never came back, a failed
  // message, is tried again once kStale has passed).
  const Way other = k.preferred == kPipe ? kSingleCopy : kPipe;
  Estimate& e = k.way[other];
  const uint32_t after = k.since_other + 1;  // this message's place since the other way's last
  const bool due = e.count < kSamples
                       ? after >= kEvery
                       : after >= kRefreshEvery && now - e.at > kStale && now - e.tried > kStale;
  if (!due) {
    ++k.since_other;
    return k.preferred;
  }
  k.since_other = 0;
  e.tried = now;
  return other;
}

bool PathChoice::Record(Way way, uint64_t bytes, bool strided, uint64_t ns, Clock::time_point now) {
  if (bytes == 0 || ns == 0) return false;
  Kind& k = kinds_[KindOf(bytes, strided)];
  Estimate& e = k.way[way];
  e.samples[e.next] = static_cast<double>(ns) / static_cast<double>(bytes);
  e.next = (e.next + 1) % kSamples;
  e.count = std::min(e.count + 1, kSamples);
  e.at = now;
  const double single = k.way[kSingleCopy].Figure(), pipe = k.way[kPipe].Figure();
  if (single == 0 || pipe == 0) return false;
  // A switch needs a clear margin: near-equal figures would flip on every sample.
  const Way best = k.preferred == kPipe ? (single < kSwitch * pipe ? kSingleCopy : kPipe)
                                        : (pipe < kSwitch * single ? kPipe : kSingleCopy);
  const bool first = !k.decided;
  k.decided = true;
  if (best == k.preferred) return first;
  k.preferred = best;
  return true;
}

PathChoice::Way PathChoice::Preferred(uint64_t bytes, bool strided) const {
  return kinds_[KindOf(bytes, strided)].preferred;
}

double PathChoice::CostPerKiB(Way way, uint64_t bytes, bool strided) const {
  return kinds_[KindOf(bytes, strided)].way[way].Figure() * 1024;
}

}  // namespace weft::backends::ucx_plugin
