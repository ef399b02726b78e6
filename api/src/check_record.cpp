#include "api/src/check_record.hpp"

#include <cstring>

namespace weft::api::check {
namespace {

// splitmix64's finaliser: a bijection that spreads every input bit over the output.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t SequenceHash(std::span<const uint64_t> v) {
  uint64_t h = Mix(v.size());
  for (uint64_t x : v) h = Mix(h ^ x);
  return h;
}

std::string DTypeText(const Record& r) {
  return DTypeName(DType{r.dtype_code, r.dtype_bits, r.dtype_lanes});
}

std::string OpText(const Record& r) {
  if (r.op < 0 || r.op >= kNumReduceOps) return "op " + std::to_string(r.op);
  return ReduceOpName(static_cast<ReduceOp>(r.op));
}

}  // namespace

std::string RankText(std::span<const int32_t> ranks, int32_t index) {
  if (index < 0 || static_cast<size_t>(index) >= ranks.size())
    return "member " + std::to_string(index);
  return "rank " + std::to_string(ranks[index]);
}

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kAllreduce:
      return "allreduce";
    case Kind::kAllgather:
      return "allgather";
    case Kind::kAllgatherv:
      return "allgatherv";
    case Kind::kReduceScatter:
      return "reduce_scatter";
    case Kind::kReduceScatterv:
      return "reduce_scatterv";
    case Kind::kAlltoall:
      return "alltoall";
    case Kind::kAlltoallv:
      return "alltoallv";
    case Kind::kBroadcast:
      return "broadcast";
    case Kind::kBarrier:
      return "barrier";
    case Kind::kSend:
      return "send";
    case Kind::kRecv:
      return "recv";
  }
  return "unknown call";
}

uint64_t GroupHash(std::span<const int32_t> world_ranks) {
  uint64_t h = Mix(world_ranks.size());
  for (int32_t r : world_ranks) h = Mix(h ^ static_cast<uint32_t>(r));
  return h;
}

uint64_t PairHash(int32_t from, int32_t to, uint64_t count) {
  const uint64_t pair = (uint64_t{static_cast<uint32_t>(from)} << 32) | static_cast<uint32_t>(to);
  return Mix(Mix(pair) ^ count);
}

Record MakeRecord(const Call& call, int32_t index, int32_t size, uint64_t seq, uint64_t group) {
  Record r;
  r.kind = static_cast<uint8_t>(call.kind);
  r.dtype_code = call.dtype.code;
  r.dtype_bits = call.dtype.bits;
  r.dtype_lanes = static_cast<uint8_t>(call.dtype.lanes);  // 1 for every dtype the API takes
  r.op = call.op;
  r.root = call.root;
  r.index = index;
  r.seq = seq;
  r.count = call.count;
  r.group = group;
  if (call.kind == Kind::kAllgatherv || call.kind == Kind::kReduceScatterv) {
    r.digest_a = SequenceHash(call.counts);
  } else if (call.kind == Kind::kAlltoallv) {
    // Summed over the members, the sends and the receives hash the same (sender, receiver,
    // count) triples exactly when every send count meets its receive count.
    for (int32_t j = 0; j < size; ++j) {
      r.digest_a += PairHash(index, j, call.counts[j]);
      r.digest_b += PairHash(j, index, call.recv_counts[j]);
    }
  }
  return r;
}

int32_t FirstDisagreement(std::span<const Record> all) {
  const Record& z = all[0];
  const bool alltoallv = z.kind == static_cast<uint8_t>(Kind::kAlltoallv);
  for (size_t i = 1; i < all.size(); ++i) {
    Record r = all[i];
    r.index = z.index;  // the one field that differs by design
    if (alltoallv) {    // compared as sums below
      r.digest_a = z.digest_a;
      r.digest_b = z.digest_b;
    }
    if (std::memcmp(&r, &z, sizeof(Record)) != 0) return static_cast<int32_t>(i);
  }
  if (alltoallv) {
    uint64_t sends = 0, receives = 0;
    for (const Record& r : all) {
      sends += r.digest_a;
      receives += r.digest_b;
    }
    if (sends != receives) return static_cast<int32_t>(all.size());
  }
  return -1;
}

std::string Describe(const Record& r) {
  const std::string count = "count " + std::to_string(r.count) + " ";
  switch (static_cast<Kind>(r.kind)) {
    case Kind::kAllreduce:
      return count + DTypeText(r) + " " + OpText(r);
    case Kind::kAllgather:
      return count + DTypeText(r);
    case Kind::kAllgatherv:
      return DTypeText(r);
    case Kind::kReduceScatter:
      return "recv " + count + DTypeText(r) + " " + OpText(r);
    case Kind::kReduceScatterv:
      return DTypeText(r) + " " + OpText(r);
    case Kind::kAlltoall:
      return count + "per member " + DTypeText(r);
    case Kind::kAlltoallv:
      return DTypeText(r);
    case Kind::kBroadcast:
      return count + DTypeText(r) + " root " + std::to_string(r.root);
    case Kind::kBarrier:
      return "no arguments";
    case Kind::kSend:
    case Kind::kRecv:
      return count + DTypeText(r);
  }
  return "a call Weft does not know (kind " + std::to_string(r.kind) + ")";
}

std::string GroupText(std::span<const int32_t> world_ranks) {
  std::string s = "[";
  for (size_t i = 0; i < world_ranks.size() && i < 8; ++i)
    s += (i ? ", " : "") + std::to_string(world_ranks[i]);
  if (world_ranks.size() > 8) s += ", ... " + std::to_string(world_ranks.size()) + " ranks";
  return s + "]";
}

std::string MismatchText(std::span<const int32_t> ranks, const Record& a, const Record& b) {
  const std::string group = " on group " + GroupText(ranks);
  const std::string ra = RankText(ranks, a.index), rb = RankText(ranks, b.index);
  if (a.magic != b.magic || b.index < 0 || static_cast<size_t>(b.index) >= ranks.size())
    return "collective calls" + group + " disagree: " + rb + " sent an argument record of " +
           "another layout (another Weft version?)";
  if (a.kind == b.kind && a.seq == b.seq) {
    std::string text = std::string(KindName(static_cast<Kind>(a.kind))) + " #" +
                       std::to_string(a.seq) + group + ": " + ra + " passed " + Describe(a) + ", " +
                       rb + " passed " + Describe(b);
    if (a.group != b.group) text += " (in a group of another order)";
    return text;
  }
  auto call = [](const std::string& who, const Record& r) {
    return who + " called " + KindName(static_cast<Kind>(r.kind)) + " #" + std::to_string(r.seq) +
           " (" + Describe(r) + ")";
  };
  return "collective calls" + group + " disagree: " + call(ra, a) + ", " + call(rb, b);
}

}  // namespace weft::api::check
