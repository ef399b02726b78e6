// Small collectives carried whole by the check's exchange (docs/collective_checks.md). Each
// member's slot in the check's all-gather has room for a payload after its record; when every
// member's record agrees and the operation's data fits that room, the slots already hold
// everything the operation needs, and each member finishes it locally: the checked call then
// costs one all-gather, about what the unchecked one cost (a backend that must check every
// call, gloo, keeps its small-operation latency).
//
// The room is the same on every member and every call, so the exchange can never disagree in
// size; whether the data fits is decided from the agreed record, so alike everywhere.
#pragma once

#include <cstdint>
#include <span>

#include "api/src/check_record.hpp"
#include "common/status.hpp"

namespace weft::api::check {

inline constexpr uint64_t kPayloadBytes = 192;

// One member's part of the check's all-gather.
struct Slot {
  Record record;
  unsigned char payload[kPayloadBytes];
};
static_assert(sizeof(Slot) == 256, "a slot is 256 bytes on every member");

// The bytes this member puts after its record (0: none), or kNotCarried when the operation is
// not carried by the exchange. A function of the record and the group size only.
inline constexpr uint64_t kNotCarried = UINT64_MAX;
uint64_t CarriedBytes(const Record& agreed, int32_t size);

// Fills the payload of `mine` from the call's data when the operation is carried.
void FillPayload(const Call& call, int32_t size, Slot* mine);

// Finishes a carried operation on this member (`index`) from every member's slot: writes the
// call's output. Reductions run in member order, so every member gets the same bits.
Status CompleteCarried(const Call& call, int32_t index, std::span<const Slot> all);

}  // namespace weft::api::check
