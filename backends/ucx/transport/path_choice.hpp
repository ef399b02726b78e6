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
// each way cost lately: the time spent copying on both sides, per byte (single copy: the
// receiver's read, or the sender's write, plus any packing; a pipe: the sender's copies into the
// ring plus the receiver's out of it; wall-clock time around the copies, so a copy the scheduler
// interrupts counts long). In an exchange where every rank sends and receives, as in the
// collectives, that time is what a rank waits for. It sends by the cheaper way, and keeps the
// other way's figure current with a message now and then (see kEvery). Pure bookkeeping: the
// caller measures.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

#include "backends/ucx/tuning_table.hpp"

namespace weft::backends::ucx_plugin {

class PathChoice {
 public:
  using Clock = std::chrono::steady_clock;
  enum Way : uint8_t { kSingleCopy = 0, kPipe = 1 };
  // A way's figure is the second lowest of its last kSamples samples, and counts once it has
  // that many: copies into cold memory (the first ones into a new buffer fault its pages in) or
  // ones the scheduler interrupted do not decide, and neither does one lucky copy. Old samples
  // leave the ring as new ones come; none is dropped for its age, so a peer that gets a
  // message of some kind only every few hundred milliseconds still has figures.
  static constexpr uint32_t kSamples = kPathSamples;
  // The way not preferred gets one message of a kind in kEvery until it has kSamples samples
  // (interleaved, not kSamples in a row: the first messages of a kind copy into cold buffers,
  // and each figure should rest on warm ones); after that one message when its last sample is
  // older than kStale, and then no more than one in kRefreshEvery, so that a change of the
  // cores' placement is seen within a few kStale at a small cost whatever the message rate.
  // While pipes are preferred and single copy's figure is within kClose of theirs, the choice is
  // a near thing (and single copy's figure may come from other conditions: a previous pattern
  // of messages in which it cost 3x what it does now was seen to keep pipes for a whole
  // benchmark row), so single copy gets one message in kRefreshEvery whatever the figures'
  // age: at most a 1/16 share at under kClose times the cost. Not the other way round: single
  // copy is the way that is never much worse (kToPipes), and refreshing pipes that often cost
  // the all-reduce of 1 MiB on 2 ranks 10% in its median.
  static constexpr uint32_t kEvery = kPathEvery;
  static constexpr uint32_t kRefreshEvery = kPathRefreshEvery;
  static constexpr Clock::duration kStale = kPathStale;
  static constexpr double kClose = kPathClose;
  // Pipes are taken once their figure is below kToPipes of single copy's, and left as soon as
  // single copy's is no higher than theirs. The bias is for the way that is never much worse:
  // single copy lost at most 1.7x to pipes where they won (AMD, cores near), pipes lost 2x
  // everywhere else; and the figures of a way seldom taken come from messages copied among the
  // other way's (measured: single copy refreshes at 150 ns/KiB among pipe messages, 60-90 when
  // it carries them all), so a near thing is left to single copy.
  static constexpr double kToPipes = kPathToPipes;
  // When the preferred way's figure moves by this factor (either way) from what it was when the
  // choice was made, the conditions changed (other buffers, another pattern of messages: a
  // benchmark's next row, a program's next phase), and the other way's figure, taken under the
  // old ones, is measured again (one message in kEvery until it has kSamples new samples)
  // rather than compared as it stands until it is stale.
  static constexpr double kShift = kPathShift;

  // The way for a message of `bytes` (`strided`: the sender's memory is in several runs).
  Way Choose(uint64_t bytes, bool strided, Clock::time_point now);
  // A message of `bytes` that went `way` cost `ns` of copying on both sides together. Returns
  // whether the preferred way of its kind was decided (both ways have figures now, for the first
  // time) or changed: the caller logs that.
  bool Record(Way way, uint64_t bytes, bool strided, uint64_t ns, Clock::time_point now);
  // The way messages of that kind go when no refresh is due.
  Way Preferred(uint64_t bytes, bool strided) const;
  // The current figure of `way` for messages of that kind, in ns per KiB; 0: not yet one.
  double CostPerKiB(Way way, uint64_t bytes, bool strided) const;

 private:
  struct Estimate {
    std::array<double, kSamples> samples{};  // ns per byte, a ring
    uint32_t count = 0;                      // samples so far, up to kSamples
    uint32_t next = 0;                       // where the next sample goes
    Clock::time_point at{};                  // of the last sample
    Clock::time_point tried{};               // when a refresh last went this way
    double figure = 0;                       // 0 until kSamples samples
    void Add(double sample);
    void Forget() { count = 0, figure = 0; }
  };
  struct Kind {
    std::array<Estimate, 2> way;
    Way preferred = kSingleCopy;  // until both ways have a figure
    bool decided = false;         // both ways have had figures
    double reference = 0;         // the preferred way's figure when the choice was last made
    uint32_t since_other = 0;     // messages since one went the other way
  };
  // Size classes: under 64 KiB (a pipe's message is one 128 KiB chunk or less, its two copies
  // do not overlap), under 256 KiB, up to 1 MiB (fits a pipe's ring) and larger (needs both
  // sides running); times strided or not.
  static constexpr int kSizeClasses = 4;
  static int KindOf(uint64_t bytes, bool strided);
  std::array<Kind, 2 * kSizeClasses> kinds_{};
};

}  // namespace weft::backends::ucx_plugin
