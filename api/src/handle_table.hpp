// The identity of the C ABI's opaque handles (SPEC §6.1, §10). A handle is not the address of
// its object: it is a value that names a slot of this process-wide table and the generation of
// that slot, so a destroyed, twice-destroyed, wrong-type or made-up handle is recognized from
// the table alone, without reading the (possibly freed) object.
//
// A handle's bits: kMagic (63..56) | kind (55..52) | generation (51..24) | slot index (23..0).
// The top byte makes it a non-canonical address on x86-64 and AArch64 (user addresses there
// are below 2^56, and bits 52..55 of an AArch64 tagged pointer are zero), so no real pointer
// passes for a handle. A slot's word: kind (63..60) | generation (59..32) | live (31) |
// draining (30) | references (29..0). Slots are reused oldest-freed first, so a stale handle
// is mistaken for a live one only after its slot was reused 2^28 times.
//
// Lifetime: a call holds a reference while it uses an object (Acquire .. Release, one atomic
// read-modify-write each). Retire makes the handle not live at once; the object is freed by
// whichever of Retire and the last Release comes last. BeginRetire instead leaves the freeing
// to its caller, who waits until no call holds a reference (the context's destroy, which must
// run its collective teardown itself).
#pragma once

#include <atomic>
#include <cstdint>

namespace weft::api {

enum class HandleKind : uint32_t {
  kContext = 1,
  kMesh = 2,
  kLayout = 3,
  kPlan = 4,
  kWork = 5,
  kRules = 6,
  kStrategy = 7,
  kCheckpoint = 8
};

// Why a value is not a live handle of the kind asked for.
enum class HandleFault { kNone, kNull, kForeign, kWrongKind, kDestroyed };

class HandleTable {
 public:
  struct Slot {
    std::atomic<uint64_t> word{0};
    void* object = nullptr;  // written only while no live handle names the slot
    void (*deleter)(void*) = nullptr;
    uint32_t index = 0;      // this slot's place in the table
    uint32_t next_free = 0;  // the free list's link (under the table's lock)
  };

  // Registers `object` (freed with `deleter`) and returns its handle, or 0 when 2^24 handles
  // are live.
  static uintptr_t Insert(HandleKind kind, void* object, void (*deleter)(void*)) noexcept;

  // A reference to the live handle `handle` of `kind`, or null with *fault set.
  static Slot* Acquire(uintptr_t handle, HandleKind kind, HandleFault* fault) noexcept {
    Slot* s = Locate(handle, kind, fault);
    if (s == nullptr) return nullptr;
    const uint64_t expect = LiveWord(handle);
    uint64_t w = s->word.load(std::memory_order_relaxed);
    // References never reach 2^30 (one per call in progress, and a process has far fewer
    // threads), so the count cannot carry into the state bits.
    do {
      if ((w & ~kRefMask) != expect) [[unlikely]]
        return Missed(w, fault);
    } while (!s->word.compare_exchange_weak(w, w + 1, std::memory_order_acquire,
                                            std::memory_order_relaxed));
    return s;
  }

  static void Release(Slot* s) noexcept {
    const uint64_t before = s->word.fetch_sub(1, std::memory_order_acq_rel);
    // The last reference to a retired (not draining) handle frees its object.
    if ((before & kStateMask) == 1) Reclaim(s);
  }

  // Destroys the handle: not live from now on; its object is freed now or by the last Release.
  static HandleFault Retire(uintptr_t handle, HandleKind kind) noexcept;

  // Makes the handle not live and returns its slot, whose object the caller frees (or keeps)
  // once Unused(slot), after handing the slot back with FinishRetire.
  static Slot* BeginRetire(uintptr_t handle, HandleKind kind, HandleFault* fault) noexcept;
  static bool Unused(const Slot* s) noexcept {
    return (s->word.load(std::memory_order_acquire) & kRefMask) == 0;
  }
  // Acquire that also accepts a handle between BeginRetire and FinishRetire (an abort may
  // reach a context while its destroy runs).
  static Slot* AcquireRetiring(uintptr_t handle, HandleKind kind, HandleFault* fault) noexcept;
  // Waits for such late references to end, then makes the slot free: after it no handle
  // reaches the object.
  static void FinishRetire(Slot* s) noexcept;

  // The kind a handle value claims to be (for messages), or 0 when it claims none.
  static uint32_t ClaimedKind(uintptr_t handle) noexcept;

 private:
  static constexpr uint64_t kMagic = 0xA7;
  static constexpr int kIndexBits = 24, kGenBits = 28, kBlockBits = 12;
  static constexpr uint64_t kIndexMask = (uint64_t{1} << kIndexBits) - 1;
  static constexpr uint64_t kGenMask = (uint64_t{1} << kGenBits) - 1;
  static constexpr uint64_t kLive = uint64_t{1} << 31, kDraining = uint64_t{1} << 30;
  static constexpr uint64_t kRefMask = kDraining - 1;
  static constexpr uint64_t kStateMask = kLive | kDraining | kRefMask;
  static constexpr uint32_t kBlockSize = 1u << kBlockBits;
  static constexpr uint32_t kBlocks = 1u << (kIndexBits - kBlockBits);

  // The slot a handle value names, if it claims `kind` and its block exists.
  static Slot* Locate(uintptr_t handle, HandleKind kind, HandleFault* fault) noexcept {
    const uint64_t v = handle;
    if (v >> 52 != (kMagic << 4 | static_cast<uint64_t>(kind))) [[unlikely]]
      return NotClaimed(v, fault);
    const uint32_t index = static_cast<uint32_t>(v & kIndexMask);
    Slot* block = blocks_[index >> kBlockBits].load(std::memory_order_acquire);
    if (block == nullptr) [[unlikely]]
      return Missed(0, fault);
    return &block[index & (kBlockSize - 1)];
  }
  // Why a value does not claim the kind asked for; why a slot does not match. Both null.
  [[gnu::cold]] static Slot* NotClaimed(uint64_t value, HandleFault* fault) noexcept;
  [[gnu::cold]] static Slot* Missed(uint64_t word, HandleFault* fault) noexcept;
  // The word of the live slot `handle` names, without its references.
  static uint64_t LiveWord(uintptr_t handle) noexcept {
    const uint64_t v = handle;
    return (v >> 52 & 0xF) << 60 | (v >> kIndexBits & kGenMask) << 32 | kLive;
  }
  static void Reclaim(Slot* s) noexcept;
  // The word of a free slot after `word`'s generation.
  static uint64_t NextGeneration(uint64_t word) noexcept {
    return (((word >> 32) + 1) & kGenMask) << 32;
  }
  static void PushFree(Slot* s) noexcept;
  // Marks the live handle retired (draining: its retirer frees it) and returns its slot with
  // *before the word it had, or null with *fault set.
  static Slot* MarkRetired(uintptr_t handle, HandleKind kind, bool draining, uint64_t* before,
                           HandleFault* fault) noexcept;
  static Slot* At(uint32_t index) noexcept {
    return &blocks_[index >> kBlockBits].load(std::memory_order_acquire)[index & (kBlockSize - 1)];
  }
  friend struct HandleTableState;

  // Blocks of slots, allocated on first use and never freed (a handle's slot must stay
  // readable for as long as anyone may present the handle).
  static inline std::atomic<Slot*> blocks_[kBlocks] = {};
};

}  // namespace weft::api
