#include "backends/ucx/grants.hpp"

#include <sched.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>
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

uint64_t* Map(int fd, uint32_t slots) {
  void* p =
      mmap(nullptr, size_t{slots} * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return p == MAP_FAILED ? nullptr : static_cast<uint64_t*>(p);
}

}  // namespace

GrantTable::~GrantTable() {
  if (words_ != nullptr) munmap(words_, size_t{slots_} * sizeof(uint64_t));
  if (table_fd_ >= 0) close(table_fd_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

bool GrantTable::Open(uint32_t slots) {
  if (slots == 0 || slots > (1u << 16)) return false;
  // Writers duplicate both descriptors with pidfd_getfd, which needs only their numbers and
  // the right to ptrace this process, the same right process_vm_readv needs.
  table_fd_ = static_cast<int>(syscall(SYS_memfd_create, "weft-ucx-grants", MFD_CLOEXEC));
  if (table_fd_ < 0 || ftruncate(table_fd_, static_cast<off_t>(slots) * 8) != 0) return false;
  wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return false;
  words_ = Map(table_fd_, slots);
  if (words_ == nullptr) return false;
  slots_ = slots;
  free_.reserve(slots);
  for (uint32_t s = slots; s > 0; --s) free_.push_back(s - 1);
  return true;
}

GrantIdentity GrantTable::Identity() const {
  GrantIdentity id;
  if (!open()) return id;
  id.table_fd = table_fd_;
  id.wake_fd = wake_fd_;
  id.slots = slots_;
  return id;
}

void GrantTable::DrainWake() const {
  uint64_t count = 0;
  if (wake_fd_ >= 0) (void)!read(wake_fd_, &count, sizeof(count));
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

PeerGrants::~PeerGrants() {
  if (words_ != nullptr) munmap(words_, size_t{slots_} * sizeof(uint64_t));
  if (wake_fd_ >= 0) close(wake_fd_);
}

bool PeerGrants::Open(pid_t pid, const GrantIdentity& id) {
  if (id.slots == 0 || id.slots > (1u << 16) || id.table_fd < 0 || id.wake_fd < 0) return false;
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return false;
  const int table = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, id.table_fd, 0));
  const int wake = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, id.wake_fd, 0));
  close(pidfd);
  uint64_t* words = table >= 0 ? Map(table, id.slots) : nullptr;
  if (table >= 0) close(table);  // the mapping keeps the memory
  if (words == nullptr || wake < 0) {
    if (words != nullptr) munmap(words, size_t{id.slots} * sizeof(uint64_t));
    if (wake >= 0) close(wake);
    return false;
  }
  words_ = words;
  slots_ = id.slots;
  wake_fd_ = wake;
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
  const uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
}

}  // namespace weft::backends::ucx_plugin
