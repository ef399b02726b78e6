#include "placement/planner/plan.hpp"

#include <iomanip>
#include <sstream>

#include "common/fnv1a.hpp"
#include "placement/planner/localize.hpp"
#include "placement/planner/placement_code.hpp"

namespace weft::placement::planner {
namespace {

// Placements and resolved splits: what makes two layouts on one mesh equal (SPEC §2.3).
void AddLayout(weft::Fnv1a& h, const Layout& l) {
  h.Ints(EncodePlacements(l.placements()));
  for (int32_t d = 0; d < l.ndim(); ++d) {
    h.Ints(l.split(d).mesh_dims);
    h.Ints(l.split(d).sizes);  // canonical: empty when the split is the chunk rule
  }
}

std::string Placements(const Layout& l) {
  std::string s = "[";
  for (size_t m = 0; m < l.placements().size(); ++m)
    s += (m ? ", " : "") + PlacementName(l.placements()[m]);
  return s + "]";
}

std::string Bytes(int64_t b) {
  std::ostringstream os;
  os << b << " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(b);
  int u = -1;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  if (u >= 0) os << " (" << std::fixed << std::setprecision(1) << v << " " << units[u] << ")";
  return os.str();
}

std::string Micros(double seconds) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(2) << seconds * 1e6 << " us";
  return os.str();
}

// This rank's received bytes against its own bound.
std::string RankBound(const Plan& plan, int32_t rank) {
  auto stats = Stats(plan, rank);
  Box from, to;
  from.ndim = to.ndim = plan.src->ndim();
  plan.src->LocalBlock(rank, from.shape.data(), from.offset.data());
  plan.dst->LocalBlock(rank, to.shape.data(), to.offset.data());
  const int64_t lack = (to.Volume() - Intersect(from, to).Volume()) * ItemSize(plan.src->dtype());
  if (!stats.ok()) return "";
  return "; rank " + std::to_string(rank) + " receives " + Bytes(stats->recv_bytes) +
         " and lacks " + Bytes(lack);
}

// The byte-bound line (SPEC §3.2), when the model's cheapest plan did not meet the bound.
std::string DescribeBoundNote(const Plan& plan, int32_t rank) {
  const BoundNote& n = plan.bound_note;
  if (n.kind == BoundNote::Kind::kNone) return "";
  const ByteBound& b = n.bound;
  const std::string cap = "the extra-bytes cap of " + Bytes(plan.extra_bytes_cap);
  std::ostringstream os;
  os << "byte bound (a rank receives at most what its dst block lacks of its src block, twice "
        "that over several steps): ";
  if (n.kind == BoundNote::Kind::kExceeds) {
    os << "exceeded on rank " << b.rank << " by " << Bytes(b.excess) << " (it receives "
       << Bytes(b.recv) << " and lacks " << Bytes(b.lack) << ")" << RankBound(plan, rank)
       << ". Under the cost model this plan (" << n.messages << " messages per rank, "
       << Micros(plan.cost) << ") is cheaper than the one-step plan that meets the bound ("
       << n.other << ", " << n.other_messages << " messages per rank, " << Micros(n.other_cost)
       << "); allowed because no rank exceeds it by more than " << cap
       << " and every rank that lacks nothing receives nothing\n";
    return os.str();
  }
  os << "met by this one-step plan (" << n.messages << " messages per rank, " << Micros(plan.cost)
     << "). The model rates " << n.other << " cheaper (" << n.other_messages
     << " messages per rank, " << Micros(n.other_cost) << ") but ";
  if (n.kind == BoundNote::Kind::kUnchecked) {
    os << "checking its bytes over " << b.ranks << " mesh coordinates would take too long\n";
  } else if (b.idle_rank >= 0) {
    os << "it sends " << Bytes(b.idle_recv) << " to rank " << b.idle_rank
       << ", which lacks nothing\n";
  } else {
    os << "it exceeds the bound on rank " << b.rank << " by " << Bytes(b.excess) << ", over " << cap
       << "\n";
  }
  return os.str();
}

}  // namespace

const char* StepKindName(StepKind kind) {
  switch (kind) {
    case StepKind::kLocal:
      return "local";
    case StepKind::kAllGather:
      return "all-gather";
    case StepKind::kAllToAll:
      return "all-to-all";
    case StepKind::kExchange:
      return "exchange";
    case StepKind::kAllReduce:
      return "all-reduce";
    case StepKind::kReduceScatter:
      return "reduce-scatter";
  }
  return "?";
}

uint64_t HashPlan(const Plan& plan) {
  weft::Fnv1a h;
  h.Ints(plan.src->mesh().shape());
  h.Ints(plan.src->shape());
  h.Int(plan.src->dtype().code);
  h.Int(plan.src->dtype().bits);
  AddLayout(h, *plan.src);
  // Ranks with different caps may choose different plans: the cap is part of what they agree on.
  h.Int(plan.extra_bytes_cap);
  h.Int(static_cast<int64_t>(plan.steps.size()));
  for (const Step& s : plan.steps) {
    h.Int(static_cast<int64_t>(s.kind));
    h.Int(s.conjugate);
    h.Int(static_cast<int64_t>(s.op));
    h.Int(s.tensor_dim);
    h.Ints(s.mesh_dims);
    AddLayout(h, *s.to);
  }
  return h.value();
}

std::string Summary(const std::vector<Step>& steps) {
  std::string out;
  for (const Step& s : steps) {
    out += out.empty() ? "" : ", ";
    out += s.conjugate ? "conjugate" : StepKindName(s.kind);
    out += " [";
    for (size_t j = 0; j < s.mesh_dims.size(); ++j)
      out += (j ? ", " : "") + std::to_string(s.mesh_dims[j]);
    out += "]";
  }
  return out;
}

std::string Describe(const Plan& plan, int32_t rank) {
  std::ostringstream os;
  if (plan.steps.empty()) {
    os << "no communication: src and dst hold the same blocks (a local copy)\n";
    return os.str();
  }
  auto local = Localize(plan, rank);
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const Step& s = plan.steps[k];
    os << k + 1 << ". " << (s.conjugate ? "conjugate" : StepKindName(s.kind));
    if (s.conjugate) os << " (local, " << ReduceOpName(s.op) << ")";
    if (s.kind == StepKind::kAllReduce || s.kind == StepKind::kReduceScatter)
      os << " (" << ReduceOpName(s.op) << ")";
    os << " over mesh dims [";
    for (size_t j = 0; j < s.mesh_dims.size(); ++j) os << (j ? ", " : "") << s.mesh_dims[j];
    os << "]: " << Placements(*s.from) << " -> " << Placements(*s.to);
    if (s.tensor_dim >= 0) os << ", tensor dim " << s.tensor_dim;
    if (local.ok())
      os << "; rank " << rank << " sends " << (*local)[k].send_bytes << " B, receives "
         << (*local)[k].recv_bytes << " B";
    os << '\n';
  }
  os << DescribeBoundNote(plan, rank);
  if (!plan.model_source.empty()) os << "cost model: " << plan.model_source << '\n';
  return os.str();
}

}  // namespace weft::placement::planner
