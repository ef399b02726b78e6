#include "backends/ucx/transport/path_choice.hpp"

#include <algorithm>

namespace weft::backends::ucx_plugin {

int PathChoice::KindOf(uint64_t bytes, bool strided) {
  const int size = bytes < kPathClass0Below   ? 0
                   : bytes < kPathClass1Below ? 1
                   : bytes <= kPathClass2UpTo ? 2
                                              : 3;
  return (strided ? kSizeClasses : 0) + size;
}

void PathChoice::Estimate::Add(double sample) {
  samples[next] = sample;
  next = (next + 1) % kSamples;
  count = std::min(count + 1, kSamples);
  if (count < kSamples) return;
  std::array<double, kSamples> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  figure = sorted[1];
}

PathChoice::Way PathChoice::Choose(uint64_t bytes, bool strided, Clock::time_point now) {
  Kind& k = kinds_[KindOf(bytes, strided)];
  // The preferred way refreshes its own figure with every message; the other one gets its
  // messages as kEvery and kRefreshEvery say (a refresh whose sample never came back, a failed
  // message, is tried again once kStale has passed).
  const Way other = k.preferred == kPipe ? kSingleCopy : kPipe;
  Estimate& e = k.way[other];
  const uint32_t after = k.since_other + 1;  // this message's place since the other way's last
  bool due;
  if (e.count < kSamples) {
    due = after >= kEvery;
  } else {
    const bool close = k.preferred == kPipe && e.figure < kClose * k.way[k.preferred].figure;
    due = after >= kRefreshEvery && (close || (now - e.at > kStale && now - e.tried > kStale));
  }
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
  e.Add(static_cast<double>(ns) / static_cast<double>(bytes));
  e.at = now;
  const double single = k.way[kSingleCopy].figure, pipe = k.way[kPipe].figure;
  if (single == 0 || pipe == 0) return false;
  // A switch to pipes needs a clear margin (near-equal figures would flip on every sample).
  const Way best = k.preferred == kPipe ? (single <= pipe ? kSingleCopy : kPipe)
                                        : (pipe < kToPipes * single ? kPipe : kSingleCopy);
  const bool first = !k.decided;
  k.decided = true;
  if (best != k.preferred) {
    k.preferred = best;
    k.reference = best == kPipe ? pipe : single;
    return true;
  }
  const double f = best == kPipe ? pipe : single;
  if (k.reference == 0) {
    k.reference = f;
  } else if (way == best && (f > kShift * k.reference || f * kShift < k.reference)) {
    k.way[best == kPipe ? kSingleCopy : kPipe].Forget();  // measured under other conditions
    k.reference = 0;
  }
  return first;
}

PathChoice::Way PathChoice::Preferred(uint64_t bytes, bool strided) const {
  return kinds_[KindOf(bytes, strided)].preferred;
}

double PathChoice::CostPerKiB(Way way, uint64_t bytes, bool strided) const {
  return kinds_[KindOf(bytes, strided)].way[way].figure * 1024;
}

}  // namespace weft::backends::ucx_plugin
