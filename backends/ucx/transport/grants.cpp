#include "backends/ucx/transport/grants.hpp"

#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "backends/ucx/transport/process_state.hpp"
#include "backends/ucx/tuning_table.hpp"

namespace weft::backends::ucx_plugin {
namespace {

// A slot word: gen (48 bits) << 16 | state << 8 | a status (int8): the writer's in DONE, the
// receive's in FREE and REVOKED (how it ended when it took the slot back).
enum : uint64_t { kFree = 0, kLent = 1, kWriting = 2, kDone = 3, kRevoked = 4 };
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

// What a writer reports when the receive took its buffer back: a deadline or a peer's failure
// as they are (its host then reports the deadline, or waits for the store's verdict naming the
// rank that failed, SPEC §10), anything else as ABORTED.
weft_status_t Refusal(uint64_t word) {
  const weft_status_t s = StatusOf(word);
  return s == WEFT_ERR_TIMEOUT || s == WEFT_ERR_PEER_FAILURE ? s : WEFT_ERR_ABORTED;
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
  if (!open()) return 0;
  if (!revoked_.empty()) ReturnRevoked();
  if (free_.empty()) return 0;
  const uint32_t slot = free_.back();
  free_.pop_back();
  const uint64_t gen = next_gen_++ & kGenMask;
  // Release: the writer that claims the slot sees everything this thread wrote before, such
  // as the message's destination having been set up.
  At(words_, slot).store(Word(gen, kLent), std::memory_order_release);
  return uint64_t{slot} << 48 | gen;
}

void GrantTable::ReturnRevoked() {
  const bool look = free_.empty();  // the writers' liveness is a file read: only when needed
  std::erase_if(revoked_, [&](const Revoked& r) {
    const uint64_t w = At(words_, r.slot).load(std::memory_order_acquire);
    const bool over = GenOf(w) != r.gen || StateOf(w) == kDone || (look && !ProcessAlive(r.writer));
    if (over) {
      At(words_, r.slot).store(Word(r.gen, kFree), std::memory_order_release);
      free_.push_back(r.slot);
    }
    return over;
  });
}

bool GrantTable::Finished(uint64_t token, weft_status_t* status) const {
  const uint64_t w = At(words_, SlotOf(token)).load(std::memory_order_acquire);
  if (GenOf(w) != TokenGen(token) || StateOf(w) != kDone) return false;
  *status = StatusOf(w);
  return true;
}

bool GrantTable::Revoke(uint32_t slot, uint64_t gen, pid_t writer, weft_status_t why, uint64_t* w) {
  if (!At(words_, slot)
           .compare_exchange_strong(*w, Word(gen, kRevoked, why), std::memory_order_acq_rel))
    return false;
  revoked_.push_back(Revoked{slot, gen, writer});
  return true;
}

bool GrantTable::Reclaim(uint64_t token, pid_t writer_pid, weft_status_t why) {
  const uint32_t slot = SlotOf(token);
  if (!open() || slot >= slots_) return true;
  auto word = At(words_, slot);
  const uint64_t gen = TokenGen(token);
  uint64_t w = word.load(std::memory_order_acquire);
  const auto start = std::chrono::steady_clock::now();
  auto checked = start;
  while (GenOf(w) == gen) {
    if (StateOf(w) == kLent) {
      // Revoked before the writer claimed it: its Claim, which expects LENT(gen), now fails
      // and reads why.
      if (!word.compare_exchange_weak(w, Word(gen, kFree, why), std::memory_order_acq_rel))
        continue;  // w was reloaded
      free_.push_back(slot);
      return true;
    }
    if (StateOf(w) != kWriting) break;  // DONE (else not ours: cannot happen, we own the slot)
    // The writer is copying into the buffer right now: the buffer is not ours until it is
    // done, which takes as long as the copy, if the writer runs. A writer that died mid-copy
    // writes no more; a stopped one or a slow one is revoked (grants.hpp).
    const auto now = std::chrono::steady_clock::now();
    if (now - checked >= kWriterCheckEvery) {
      checked = now;
      const ProcessState st = StateOfProcess(writer_pid);
      if (st == ProcessState::kGone) break;
      if ((st == ProcessState::kStopped || now - start >= kWriterGrace) &&
          Revoke(slot, gen, writer_pid, why, &w))
        return false;
    }
    if (now - start < kWriterYieldFor)
      sched_yield();
    else
      std::this_thread::sleep_for(kWriterNap);
    w = word.load(std::memory_order_acquire);
  }
  word.store(Word(gen, kFree), std::memory_order_release);
  free_.push_back(slot);
  return true;
}

bool PeerGrants::Open(pid_t pid, const GrantIdentity& id) {
  if (id.slots == 0 || id.slots > (1u << 16) ||
      !file_.Open(pid, id.table_fd, id.wake_fd, size_t{id.slots} * sizeof(uint64_t), true))
    return false;
  words_ = reinterpret_cast<uint64_t*>(file_.base());
  slots_ = id.slots;
  return true;
}

weft_status_t PeerGrants::Claim(uint64_t token) const {
  const uint32_t slot = SlotOf(token);
  if (!open() || slot >= slots_) return WEFT_ERR_ABORTED;
  uint64_t w = Word(TokenGen(token), kLent);
  if (At(words_, slot)
          .compare_exchange_strong(w, Word(TokenGen(token), kWriting), std::memory_order_acq_rel))
    return WEFT_OK;
  // Taken back: FREE(gen, why) unless lent again since.
  return GenOf(w) == TokenGen(token) && StateOf(w) == kFree ? Refusal(w) : WEFT_ERR_ABORTED;
}

bool PeerGrants::Claimed(uint64_t token, weft_status_t* why) const {
  const uint64_t w = At(words_, SlotOf(token)).load(std::memory_order_acquire);
  if (w == Word(TokenGen(token), kWriting)) return true;
  *why = Refusal(w);
  return false;
}

void PeerGrants::Complete(uint64_t token, weft_status_t status) {
  const uint32_t slot = SlotOf(token);
  if (!open() || slot >= slots_) return;
  // Release: the receiver that sees DONE sees the bytes the copy wrote.
  At(words_, slot).store(Word(TokenGen(token), kDone, status), std::memory_order_release);
  file_.Wake();
}

}  // namespace weft::backends::ucx_plugin
