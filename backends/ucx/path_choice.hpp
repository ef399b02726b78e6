// Which way a single-copy-sized message to one peer travels: by single copy (one cross-memory
// copy, cma.hpp) or through a pipe (two memcpys through shared memory, pipes.hpp).
//
// Why measured, not fixed: which is cheaper depends on the machine, and on one machine on where
// the host placed the vCPUs at the moment. On the AMD EPYC VMs this project first ran on, the
// kernel's copy pinned pages slowly (a 256 KiB process_vm_readv 24 us, memcpy 6), and pipes
// won 1.2-1.7x at 1-4 MiB until the host moved the two vCPUs far apart, when they lost 2x. On
// the Intel Xeon VMs of a later machine draw the kernel's copy is fast and every line of a ring
// crosses between the cores' caches twice: pipes lost 2x at every size (1 MiB all-gather 84 vs
// 40 us, 32 KiB send/recv 7.0 vs 3.8 us), with the cores in their near placement.
//
// So each sender keeps, per peer and per kind of message (size class, strided or not), what
// each way cost lately: the CPU time of the copies on both sides, per byte (single copy: the
// receiver's read, or the sender's write, plus any packing; a pipe: the sender's copies into the
// ring plus the receiver's out of it). In an exchange where every rank sends and receives, as
// in the collectives, that time is what a rank waits for. It sends by the cheaper way and, once
// the other's figure is older than kStale, sends one message that way to refresh it, so a
// change of placement is followed within about kStale. Pure bookkeeping: the caller measures.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

namespace weft::backends::ucx_plugin {

class PathChoice {
 public:
  using Clock = std::chrono::steady_clock;
  enum Way : uint8_t { kSingleCopy = 0, kPipe = 1 };
  // A way's figure is the second lowest of its last kSamples samples, and counts once it has
  // that many: copies into cold memory (the first ones into a new buffer fault its pages in) or
  // ones the scheduler interrupted do not decide, and neither does one lucky copy.
  static constexpr uint32_t kSamples = 4;
  // Until the way not preferred has kSamples samples (at first, and again whenever its figure
  // was forgotten), one message of a kind in kEvery goes that way; after that one message each
  // kStale. Interleaved, not kSamples in a row: the first messages of a kind copy into cold
  // buffers, and each way's figure should rest on warm ones.
  static constexpr uint32_t kEvery = 4;
  // The other way is taken once its figure is below this fraction of the preferred one's.
  static constexpr double kSwitch = 0.9;
  // A figure this old is forgotten when the next sample comes: it says nothing about the
  // cores' placement now.
  static constexpr Clock::duration kStale = std::chrono::milliseconds(200);

  // The way for a message of `bytes` (`strided`: the sender's memory is in several runs).
  Way Choose(uint64_t bytes, bool strided, Clock::time_point now);
  // A message of `bytes` that went `way` cost `ns` of copying on both sides together. Returns
  // whether the preferred way of its kind changed (the caller logs that).
  bool Record(Way way, uint64_t bytes, bool strided, uint64_t ns, Clock::time_point now);
  // The way messages of that kind go when no refresh is due.
  Way Preferred(uint64_t bytes, bool strided) const;
  // The current figure of `way` for messages of that kind, in ns per KiB; 0: not yet one.
  double CostPerKiB(Way way, uint64_t bytes, bool strided) const;

 private:
  struct Estimate {
    std::array<double, kSamples> samples{};  // ns per byte, a ring
    uint32_t count = 0;                      // samples since the figure was last forgotten
    Clock::time_point at{};                  // of the last sample
    Clock::time_point tried{};               // when a message last went this way to refresh it
    double Figure() const;                   // 0 until kSamples samples
  };
  struct Kind {
    std::array<Estimate, 2> way;
    Way preferred = kSingleCopy;  // until both ways have a figure
    uint32_t since_other = 0;     // messages since one went the other way
  };
  static constexpr int kSizeClasses = 4;
  static int KindOf(uint64_t bytes, bool strided);
  std::array<Kind, 2 * kSizeClasses> kinds_{};
};

}  // namespace weft::backends::ucx_plugin
