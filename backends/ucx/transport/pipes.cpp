#include "backends/ucx/transport/pipes.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "common/clock.hpp"
#include "common/copy.hpp"

namespace weft::backends::ucx_plugin {
namespace {

// A channel's state word: gen << 2 | phase.
enum : uint64_t { kFree = 0, kOpen = 1, kAttached = 2 };
uint64_t Word(uint64_t gen, uint64_t phase) { return gen << 2 | phase; }

struct alignas(64) PipeHeader {
  uint64_t sleeping;
  alignas(64) uint64_t mapped_by[kPipeMaxRanks / 64];
};

constexpr size_t kControlsAt = (sizeof(PipeHeader) + 4095) & ~size_t{4095};
constexpr size_t kRingsAt =
    kControlsAt + ((kPipeChannels * sizeof(PipeControl) + 4095) & ~size_t{4095});
constexpr size_t kFileBytes = kRingsAt + kPipeChannels * kPipeRingBytes;

std::atomic_ref<uint64_t> At(uint64_t& word) { return std::atomic_ref<uint64_t>(word); }

PipeChannel ChannelIn(char* base, uint32_t i) {
  PipeChannel c;
  c.ctl = reinterpret_cast<PipeControl*>(base + kControlsAt) + i;
  c.ring = base + kRingsAt + size_t{i} * kPipeRingBytes;
  return c;
}

uint64_t& SleepingWord(char* base) { return reinterpret_cast<PipeHeader*>(base)->sleeping; }
uint64_t& MappedWord(char* base, int32_t rank) {
  return reinterpret_cast<PipeHeader*>(base)->mapped_by[rank / 64];
}

uint64_t ResultWord(uint64_t gen, weft_status_t status) {
  return gen << 8 | static_cast<uint8_t>(static_cast<int8_t>(status));
}

// Copies bytes [offset, offset + n) of the region at `base` to or from `flat`.
void CopyRange(char* base, const Layout& l, uint64_t offset, uint64_t n, char* flat,
               bool into_region) {
  auto move = [&](char* region, uint64_t len) {
    if (into_region)
      CopyBytes(region, flat, len);
    else
      CopyBytes(flat, region, len);
    flat += len;
  };
  if (l.ndim == 0) return move(base + offset, n);
  // The run holding `offset`, as an index per dim (row-major), and the offset within it.
  uint64_t run = offset / l.run, within = offset % l.run;
  uint64_t index[WEFT_BK_MAX_DIMS] = {};
  int64_t at = 0;
  for (int32_t d = static_cast<int32_t>(l.ndim) - 1; d >= 0; --d) {
    index[d] = run % l.shape[d];
    run /= l.shape[d];
    at += static_cast<int64_t>(index[d]) * l.stride[d];
  }
  while (n > 0) {
    const uint64_t len = std::min(n, l.run - within);
    move(base + at + static_cast<int64_t>(within), len);
    n -= len;
    within = 0;
    for (int32_t d = static_cast<int32_t>(l.ndim) - 1; d >= 0; --d) {  // the next run
      if (++index[d] < l.shape[d]) {
        at += l.stride[d];
        break;
      }
      at -= static_cast<int64_t>(index[d] - 1) * l.stride[d];
      index[d] = 0;
    }
  }
}

}  // namespace

bool PipeFile::Open() {
  if (!file_.Create("weft-ucx-pipes", kFileBytes)) return false;
  held_.assign(kPipeChannels, false);
  return true;
}

PipeIdentity PipeFile::Identity() const {
  PipeIdentity id;
  if (!open()) return id;
  id.fd = file_.fd();
  id.wake_fd = file_.wake_fd();
  id.channels = kPipeChannels;
  id.ring_bytes = static_cast<uint32_t>(kPipeRingBytes);
  return id;
}

void PipeFile::SetSleeping(bool sleeping) const {
  if (!open()) return;
  if (sleeping)
    At(SleepingWord(file_.base())).fetch_add(1, std::memory_order_seq_cst);
  else
    At(SleepingWord(file_.base())).fetch_sub(1, std::memory_order_seq_cst);
}

uint64_t PipeFile::Acquire() {
  if (!open()) return 0;
  for (uint32_t i = 0; i < kPipeChannels; ++i) {
    if (held_[i]) continue;
    PipeChannel c = ChannelIn(file_.base(), i);
    // A receiver that was attached stores FREE last, after its last access.
    if (At(c.ctl->state).load(std::memory_order_acquire) != kFree) continue;
    held_[i] = true;
    const uint64_t gen = next_gen_++;
    At(c.ctl->produced).store(0, std::memory_order_relaxed);
    At(c.ctl->consumed).store(0, std::memory_order_relaxed);
    // Release: a receiver that attaches sees the counters reset.
    At(c.ctl->state).store(Word(gen, kOpen), std::memory_order_release);
    return uint64_t{i} << 48 | gen;
  }
  return 0;
}

bool PipeFile::Release(uint64_t token, weft_status_t status) {
  const uint32_t i = PipeChannelOf(token);
  if (!open() || i >= kPipeChannels || !held_[i]) return false;
  held_[i] = false;
  PipeChannel c = ChannelIn(file_.base(), i);
  const uint64_t gen = PipeGenOf(token);
  // How the send ended, first: a receiver attached now hears that no more bytes come, and one
  // whose descriptor arrives later finds the channel taken back and reads why.
  if (status != WEFT_OK)
    At(c.ctl->withdrawn).store(ResultWord(gen, status), std::memory_order_release);
  uint64_t open = Word(gen, kOpen);
  if (At(c.ctl->state).compare_exchange_strong(open, kFree, std::memory_order_acq_rel))
    return false;
  // Attached (or already let go): wake a receiver still waiting for bytes.
  return open == Word(gen, kAttached) && status != WEFT_OK;
}

PipeChannel PipeFile::channel(uint64_t token) const {
  return ChannelIn(file_.base(), PipeChannelOf(token));
}

bool PipeFile::Live(uint64_t token) const {
  const uint64_t w = At(channel(token).ctl->state).load(std::memory_order_acquire);
  const uint64_t gen = PipeGenOf(token);
  return w == Word(gen, kOpen) || w == Word(gen, kAttached);
}

bool PipeFile::Result(uint64_t token, weft_status_t* status, uint64_t* receive_bytes,
                      uint64_t* copy_ns) const {
  PipeControl* ctl = channel(token).ctl;
  const uint64_t w = At(ctl->result).load(std::memory_order_acquire);
  if (w >> 8 != PipeGenOf(token)) return false;
  *status = static_cast<weft_status_t>(static_cast<int8_t>(w & 0xFF));
  *receive_bytes = At(ctl->result_bytes).load(std::memory_order_relaxed);
  *copy_ns = At(ctl->copy_ns).load(std::memory_order_relaxed);
  return true;
}

bool PipeFile::MappedBy(int32_t rank) const {
  if (!open() || rank < 0 || rank >= kPipeMaxRanks) return false;
  const uint64_t bits = At(MappedWord(file_.base(), rank)).load(std::memory_order_acquire);
  return (bits >> (rank % 64) & 1) != 0;
}

bool PeerPipes::Open(pid_t pid, const PipeIdentity& id, int32_t me) {
  if (me < 0 || me >= kPipeMaxRanks || id.channels != kPipeChannels ||
      id.ring_bytes != kPipeRingBytes || !file_.Open(pid, id.fd, id.wake_fd, kFileBytes, true))
    return false;
  At(MappedWord(file_.base(), me)).fetch_or(uint64_t{1} << (me % 64), std::memory_order_acq_rel);
  return true;
}

bool PeerPipes::Attach(uint64_t token) const {
  if (PipeChannelOf(token) >= kPipeChannels) return false;
  const uint64_t gen = PipeGenOf(token);
  uint64_t open = Word(gen, kOpen);
  return At(channel(token).ctl->state)
      .compare_exchange_strong(open, Word(gen, kAttached), std::memory_order_acq_rel);
}

void PeerPipes::Detach(uint64_t token, weft_status_t status, uint64_t receive_bytes,
                       uint64_t copy_ns) const {
  PipeControl* ctl = channel(token).ctl;
  At(ctl->result_bytes).store(receive_bytes, std::memory_order_relaxed);
  At(ctl->copy_ns).store(copy_ns, std::memory_order_relaxed);
  At(ctl->result).store(ResultWord(PipeGenOf(token), status), std::memory_order_relaxed);
  At(ctl->state).store(kFree, std::memory_order_release);  // the sender reads the rest after
}

bool PeerPipes::Withdrawn(uint64_t token, weft_status_t* status) const {
  const uint64_t w = At(channel(token).ctl->withdrawn).load(std::memory_order_acquire);
  if (w >> 8 != PipeGenOf(token)) return false;
  *status = static_cast<weft_status_t>(static_cast<int8_t>(w & 0xFF));
  return true;
}

PipeChannel PeerPipes::channel(uint64_t token) const {
  return ChannelIn(file_.base(), PipeChannelOf(token));
}

void PeerPipes::WakeIfSleeping() const {
  if (At(SleepingWord(file_.base())).load(std::memory_order_relaxed) != 0) file_.Wake();
}

bool FillPipe(PipeChannel c, const char* base, const Layout& layout, uint64_t length,
              uint64_t* produced, uint64_t* copy_ns) {
  uint64_t p = *produced;
  const uint64_t start = p;
  uint64_t consumed = At(c.ctl->consumed).load(std::memory_order_acquire);
  while (p < length) {
    uint64_t space = kPipeRingBytes - (p - consumed);
    if (space == 0) {
      consumed = At(c.ctl->consumed).load(std::memory_order_acquire);
      if ((space = kPipeRingBytes - (p - consumed)) == 0) break;
    }
    const uint64_t at = p % kPipeRingBytes;
    const uint64_t n = std::min({length - p, space, kPipeChunkBytes, kPipeRingBytes - at});
    const auto t0 = std::chrono::steady_clock::now();
    CopyRange(const_cast<char*>(base), layout, p, n, c.ring + at, false);
    *copy_ns += NanosecondsSince(t0);
    p += n;
    At(c.ctl->produced).store(p, std::memory_order_release);
  }
  *produced = p;
  return p != start;
}

bool DrainPipe(PipeChannel c, char* base, const Layout& layout, uint64_t length, uint64_t* consumed,
               uint64_t* copy_ns) {
  uint64_t q = *consumed;
  const uint64_t start = q;
  uint64_t produced = At(c.ctl->produced).load(std::memory_order_acquire);
  while (q < length) {
    if (produced == q) {
      produced = At(c.ctl->produced).load(std::memory_order_acquire);
      if (produced == q) break;
    }
    const uint64_t at = q % kPipeRingBytes;
    // Chunks as the sender published them, so its next one overlaps this copy.
    const uint64_t n = std::min({produced - q, length - q, kPipeChunkBytes, kPipeRingBytes - at});
    const auto t0 = std::chrono::steady_clock::now();
    CopyRange(base, layout, q, n, c.ring + at, true);
    *copy_ns += NanosecondsSince(t0);
    q += n;
    At(c.ctl->consumed).store(q, std::memory_order_release);
  }
  *consumed = q;
  return q != start;
}

bool PipeHasSpace(PipeChannel c, uint64_t produced, uint64_t length) {
  return produced < length &&
         produced - At(c.ctl->consumed).load(std::memory_order_acquire) < kPipeRingBytes;
}

bool PipeHasData(PipeChannel c, uint64_t consumed) {
  return At(c.ctl->produced).load(std::memory_order_acquire) > consumed;
}

}  // namespace weft::backends::ucx_plugin
