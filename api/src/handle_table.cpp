#include "api/src/handle_table.hpp"

#include <memory>
#include <mutex>
#include <new>
#include <thread>

namespace weft::api {

// The free slots, oldest freed first, and where never-used slots begin.
struct HandleTableState {
  static constexpr uint32_t kNone = UINT32_MAX;
  std::mutex mu;
  uint32_t head = kNone, tail = kNone;
  uint32_t next_unused = 0;

  // A slot to fill, or null when the table is full or out of memory. Under mu.
  HandleTable::Slot* Take() noexcept {
    if (head != kNone) {
      HandleTable::Slot* s = HandleTable::At(head);
      head = s->next_free;
      if (head == kNone) tail = kNone;
      return s;
    }
    if (next_unused > HandleTable::kIndexMask) return nullptr;
    const uint32_t block = next_unused >> HandleTable::kBlockBits;
    if (HandleTable::blocks_[block].load(std::memory_order_relaxed) == nullptr) {
      // Never freed: see blocks_.
      std::unique_ptr<HandleTable::Slot[]> slots(new (std::nothrow)
                                                     HandleTable::Slot[HandleTable::kBlockSize]);
      if (!slots) return nullptr;
      for (uint32_t i = 0; i < HandleTable::kBlockSize; ++i)
        slots[i].index = (block << HandleTable::kBlockBits) | i;
      HandleTable::blocks_[block].store(slots.release(), std::memory_order_release);
    }
    return HandleTable::At(next_unused++);
  }
  void Give(HandleTable::Slot* s) noexcept {
    s->next_free = kNone;
    if (tail == kNone)
      head = s->index;
    else
      HandleTable::At(tail)->next_free = s->index;
    tail = s->index;
  }
};

namespace {
constinit HandleTableState g_state;
}  // namespace

uintptr_t HandleTable::Insert(HandleKind kind, void* object, void (*deleter)(void*)) noexcept {
  Slot* s = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_state.mu);
    s = g_state.Take();
  }
  if (s == nullptr) return 0;
  s->object = object;
  s->deleter = deleter;
  const uint64_t k = static_cast<uint64_t>(kind);
  const uint64_t gen = s->word.load(std::memory_order_relaxed) >> 32 & kGenMask;
  s->word.store(k << 60 | gen << 32 | kLive, std::memory_order_release);
  return static_cast<uintptr_t>(kMagic << 56 | k << 52 | gen << kIndexBits | s->index);
}

HandleTable::Slot* HandleTable::NotClaimed(uint64_t value, HandleFault* fault) noexcept {
  const uint64_t kind = value >> 52 & 0xF;
  *fault = value == 0                           ? HandleFault::kNull
           : value >> 56 == kMagic && kind != 0 ? HandleFault::kWrongKind
                                                : HandleFault::kForeign;
  return nullptr;
}

HandleTable::Slot* HandleTable::Missed(uint64_t word, HandleFault* fault) noexcept {
  *fault = word == 0 ? HandleFault::kForeign : HandleFault::kDestroyed;  // 0: never handed out
  return nullptr;
}

HandleTable::Slot* HandleTable::MarkRetired(uintptr_t handle, HandleKind kind, bool draining,
                                            uint64_t* before, HandleFault* fault) noexcept {
  Slot* s = Locate(handle, kind, fault);
  if (s == nullptr) return nullptr;
  const uint64_t expect = LiveWord(handle);
  uint64_t w = s->word.load(std::memory_order_relaxed);
  uint64_t next = 0;
  do {
    if ((w & ~kRefMask) != expect) return Missed(w, fault);
    next = (w & ~kLive) | (draining ? kDraining : 0);
  } while (!s->word.compare_exchange_weak(w, next, std::memory_order_acq_rel,
                                          std::memory_order_relaxed));
  *before = w;
  return s;
}

HandleFault HandleTable::Retire(uintptr_t handle, HandleKind kind) noexcept {
  HandleFault fault = HandleFault::kNone;
  uint64_t before = 0;
  Slot* s = MarkRetired(handle, kind, false, &before, &fault);
  if (s != nullptr && (before & kRefMask) == 0) Reclaim(s);
  return fault;
}

HandleTable::Slot* HandleTable::BeginRetire(uintptr_t handle, HandleKind kind,
                                            HandleFault* fault) noexcept {
  uint64_t before = 0;
  return MarkRetired(handle, kind, true, &before, fault);
}

HandleTable::Slot* HandleTable::AcquireRetiring(uintptr_t handle, HandleKind kind,
                                                HandleFault* fault) noexcept {
  Slot* s = Locate(handle, kind, fault);
  if (s == nullptr) return nullptr;
  const uint64_t live = LiveWord(handle), retiring = (live & ~kLive) | kDraining;
  uint64_t w = s->word.load(std::memory_order_relaxed);
  do {
    const uint64_t state = w & ~kRefMask;
    if (state != live && state != retiring) return Missed(w, fault);
  } while (!s->word.compare_exchange_weak(w, w + 1, std::memory_order_acquire,
                                          std::memory_order_relaxed));
  return s;
}

void HandleTable::FinishRetire(Slot* s) noexcept {
  uint64_t w = s->word.load(std::memory_order_acquire);
  while (true) {
    if ((w & kRefMask) != 0) {  // an abort in progress: it returns promptly
      std::this_thread::yield();
      w = s->word.load(std::memory_order_acquire);
      continue;
    }
    if (s->word.compare_exchange_weak(w, NextGeneration(w), std::memory_order_acq_rel,
                                      std::memory_order_acquire))
      break;
  }
  PushFree(s);
}

void HandleTable::PushFree(Slot* s) noexcept {
  s->object = nullptr;
  s->deleter = nullptr;
  std::lock_guard<std::mutex> lock(g_state.mu);
  g_state.Give(s);
}

void HandleTable::Reclaim(Slot* s) noexcept {
  void* object = s->object;
  void (*deleter)(void*) = s->deleter;
  // A new generation, kind 0: no handle, old or new, matches the slot until it is filled.
  s->word.store(NextGeneration(s->word.load(std::memory_order_relaxed)), std::memory_order_release);
  PushFree(s);
  deleter(object);
}

uint32_t HandleTable::ClaimedKind(uintptr_t handle) noexcept {
  const uint64_t v = handle;
  return v >> 56 == kMagic ? static_cast<uint32_t>(v >> 52 & 0xF) : 0;
}

}  // namespace weft::api
