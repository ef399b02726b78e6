#include "api/src/collective_check.hpp"

#include "api/src/collective_fused.hpp"

#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace weft::api {
namespace {

using backends::Communicator;
using backends::OpArgs;
using check::Kind;
using check::Record;
using check::Slot;

constexpr DType kByte{kCodeUInt, 8, 1};
// Slots of up to this many members are gathered on the stack.
constexpr int32_t kStackSlots = 16;

// Whether two records agree but for the counts of a v-collective (their hashes).
bool SameButCounts(const Record& a, Record b) {
  b.index = a.index;
  b.digest_a = a.digest_a;
  b.digest_b = a.digest_b;
  return std::memcmp(&a, &b, sizeof(Record)) == 0;
}

std::string Head(const Communicator& c, Kind kind, uint64_t seq) {
  return std::string(check::KindName(kind)) + " #" + std::to_string(seq) + " on group " +
         check::GroupText(c.ranks()) + ": ";
}

// The first (sender, receiver) whose alltoallv send and receive counts differ; `at(m, i)` is
// member m's i-th value: its send counts, then its receive counts.
template <typename At>
std::string AlltoallvCounts(const Communicator& c, int32_t n, At&& at) {
  for (int32_t s = 0; s < n; ++s)
    for (int32_t d = 0; d < n; ++d)
      if (at(s, d) != at(d, n + s))
        return check::RankText(c.ranks(), s) + " passed send_counts[" + std::to_string(d) +
               "] = " + std::to_string(at(s, d)) + ", " + check::RankText(c.ranks(), d) +
               " passed recv_counts[" + std::to_string(s) + "] = " + std::to_string(at(d, n + s));
  return "";
}

// Member 0's and the first differing member's count at the first index where they differ.
template <typename At>
std::string SameCounts(const Communicator& c, int32_t n, const char* name, At&& at) {
  for (int32_t m = 1; m < n; ++m)
    for (int32_t i = 0; i < n; ++i)
      if (at(m, i) != at(0, i)) {
        const std::string entry = std::string(name) + "[" + std::to_string(i) + "] = ";
        return check::RankText(c.ranks(), 0) + " passed " + entry + std::to_string(at(0, i)) +
               ", " + check::RankText(c.ranks(), m) + " passed " + entry + std::to_string(at(m, i));
      }
  return "";
}

// The records said that the counts of a v-collective disagree: every member now gathers
// every member's counts (n or 2n values each, the same on every member; this path only runs
// on a mistake) to name the entry.
Status CountsMismatch(Communicator& c, const OpArgs& a, const check::Call& call, uint64_t seq) {
  const int32_t n = c.size();
  const bool a2a = call.kind == Kind::kAlltoallv;
  const size_t per = a2a ? 2 * static_cast<size_t>(n) : static_cast<size_t>(n);
  std::vector<uint64_t> mine(call.counts.begin(), call.counts.end()), all(per * n);
  if (a2a) mine.insert(mine.end(), call.recv_counts.begin(), call.recv_counts.end());
  WEFT_RETURN_IF_ERROR(c.Allgather(mine.data(), all.data(), per * sizeof(uint64_t), kByte, a));
  auto at = [&](int32_t m, size_t i) { return all[m * per + i]; };
  std::string which =
      a2a ? AlltoallvCounts(c, n, at)
          : SameCounts(c, n, call.kind == Kind::kAllgatherv ? "recv_counts" : "counts", at);
  if (which.empty()) which = "the counts' hashes differ, but not the counts";
  return InvalidUsage(Head(c, call.kind, seq) + which);
}

// The verdict on the records (OK: they agree).
Status Judge(Communicator& c, const OpArgs& a, const check::Call& call, uint64_t seq,
             std::span<const Slot> slots) {
  const int32_t n = c.size();
  std::array<Record, kStackSlots> on_stack;
  std::vector<Record> on_heap;
  std::span<Record> records(on_stack.data(), static_cast<size_t>(n));
  if (n > kStackSlots) {
    on_heap.resize(n);
    records = on_heap;
  }
  for (int32_t m = 0; m < n; ++m) records[m] = slots[m].record;
  if (check::FirstDisagreement(records) < 0) return Status::Ok();
  // A difference beyond the counts names its member from the records. Only when the counts
  // alone differ, every member being in the same v-collective, do they gather the counts.
  for (int32_t m = 1; m < n; ++m)
    if (!SameButCounts(records[0], records[m]))
      return InvalidUsage(check::MismatchText(c.ranks(), records[0], records[m]));
  return CountsMismatch(c, a, call, seq);
}

Status Exchange(Communicator& c, const OpArgs& a, const check::Call& call, uint64_t seq,
                bool* done) {
  const int32_t n = c.size();
  Slot mine;
  mine.record = check::MakeRecord(call, c.index(), n, seq, check::GroupHash(c.ranks()));
  check::FillPayload(call, n, &mine);
  std::array<Slot, kStackSlots> on_stack;
  std::vector<Slot> on_heap;
  Slot* all = on_stack.data();
  if (n > kStackSlots) {
    on_heap.resize(n);
    all = on_heap.data();
  }
  WEFT_RETURN_IF_ERROR(c.Allgather(&mine, all, sizeof(Slot), kByte, a));
  const std::span<const Slot> slots(all, static_cast<size_t>(n));
  WEFT_RETURN_IF_ERROR(Judge(c, a, call, seq, slots));
  if (check::CarriedBytes(mine.record, n) == check::kNotCarried) return Status::Ok();
  *done = true;
  return check::CompleteCarried(call, c.index(), slots);
}

}  // namespace

Status CheckCollective(Communicator& c, const OpArgs& a, const check::Call& call, uint64_t seq,
                       bool* done) {
  *done = false;
  return Exchange(c, a, call, seq, done);
}

}  // namespace weft::api
