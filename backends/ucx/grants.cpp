#include "backends/ucx/grants.hpp"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "backends/ucx/board.hpp"

namespace weft::backends::ucx_plugin {
namespace {

// A slot word: gen (48 bits) << 16 | state << 8 | the writer's status (int8).
enum : uint64_t { kFree = 0, kLent = 1, kWriting = 2, kDone = 3 };
constexpr uint64_t kGenMask = (uint64_t{1} << 48) - 1;

uint64_t Word(uint64_t gen, uint64_t state, weft_status_t status = WEFT_OK) {
  return (gen & kGenMask) << 16 | state << 8 | static_cast<uint8_t>(static_cast<int8_t>(status));
}
uint64_t GenOf(uint64_t word) { return word >> 16; }
uint64_t StateOf(uint64_t word) { return (word >> 8) & 0xFF; }
weft_status_t StatusOf(uint64_t word) {
  return static_cast<weft_status_t>(static_cast<int8_t>(word & 0xFF));
}
uint32_t SlotOf(uint64_t token) { return static_cast<uint32_t>(token >> 48); }
uint64_t TokenGen(uint64_t token) { return token & kGenMask; }

// The words are shared with other processes: every access is atomic (lock-free on 64 bits).
std::atomic_ref<uint64_t> At(uint64_t* words, uint32_t slot) {
  return std::atomic_ref<uint64_t>(words[slot]);
}

}  // namespace

bool GrantTable::Open(uint32_t slots) {
  if (slots == 0 || slots > (1u << 16)) return false;
  if (!file_.Create("weft-ucx-grants", size_t{slots} * sizeof(uint64_t))) return false;
  words_ = reinterpret_cast<uint64_t*>(file_.base());
  slots_ = slots;
  free_.reserve(slots);
  for (uint32_t s = slots; s > 0; --s) free_.push_back(s - 1);
  return true;
}

GrantIdentity GrantTable::Identity() const {
  GrantIdentity id;
  if (!open()) return id;
  id.table_fd = file_.fd();
  id.wake_fd = file_.wake_fd();
  id.slots = slots_;
  return id;
}

uint64_t GrantTable::Lend() {
  if (!open() || free_.empty()) return 0;
  const uint32_t slot = free_.back();
  free_.pop_back();
  const uint64_t gen = next_gen_++ & kGenMask;
  // Release: the writer that claims the slot sees everything this thread wrote before, such
  // as the message's destination having been set up.
  At(words_, slot).store(Word(gen, kLent), std::memory_order_release);
  return uint64_t{slot} << 48 | gen;
}

bool GrantTable::Finished(uint64_t token, weft_status_t* status) const {
  const uint64_t w = At(words_, SlotOf(token)).load(std::memory_order_acquire);
  if (GenOf(w) != TokenGen(token) || StateOf(w) != kDone) return false;
  *status = StatusOf(w);
  return true;
}

void GrantTable::Reclaim(uint64_t token, pid_t writer_pid) {
  const uint32_t slot = SlotOf(token);
  if (!open() || slot >= slots_) return;
  auto word = At(words_, slot);
  const uint64_t gen = TokenGen(token);
  uint64_t w = word.load(std::memory_order_acquire);
  const auto start = std::chrono::steady_clock::now();
  auto checked = start;
  while (GenOf(w) == gen) {
    if (StateOf(w) == kLent) {
      // Revoked: a writer's Claim, which expects LENT(gen), now fails.
      if (word.compare_exchange_weak(w, Word(gen, kFree), std::memory_order_acq_rel)) break;
      continue;  // w was reloaded
    }
    if (StateOf(w) == kDone) break;
    if (StateOf(w) != kWriting) break;  // not ours any more (cannot happen: we own the slot)
    // The writer is copying into the buffer right now: the buffer is not ours until it is
    // done, which takes as long as the copy. A writer that died mid-copy writes no more.
    const auto now = std::chrono::steady_clock::now();
    if (now - checked > std::chrono::milliseconds(1)) {
      checked = now;
      if (!ProcessAlive(writer_pid)) break;
    }
    if (now - start < std::chrono::milliseconds(2))
      sched_yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    w = word.load(std::memory_order_acquire);
  }
  word.store(Word(gen, kFree), std::memory_order_release);
  free_.push_back(slot);
}

bool PeerGrants::Open(pid_t pid, const GrantIdentity& id) {
  if (id.slots == 0 || id.slots > (1u << 16) ||
      !file_.Open(pid, id.table_fd, id.wake_fd, size_t{id.slots} * sizeof(uint64_t), true))
    return false;
  words_ = reinterpret_cast<uint64_t*>(file_.base());
  slots_ = id.slots;
  return true;
}

bool PeerGrants::Claim(uint64_t token) {
  const uint32_t slot = SlotOf(token);
  if (!open() || slot >= slots_) return false;
  uint64_t expect = Word(TokenGen(token), kLent);
  return At(words_, slot)
      .compare_exchange_strong(expect, Word(TokenGen(token), kWriting), std::memory_order_acq_rel);
}

void PeerGrants::Complete(uint64_t token, weft_status_t status) {
  const uint32_t slot = SlotOf(token);
  if (!open() || slot >= slots_) return;
  // Release: the receiver that sees DONE sees the bytes the copy wrote.
  At(words_, slot).store(Word(TokenGen(token), kDone, status), std::memory_order_release);
  file_.Wake();
}

}  // namespace weft::backends::ucx_plugin
