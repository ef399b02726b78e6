#include "placement/planner/plan.hpp"

#include <sstream>

#include "placement/planner/localize.hpp"
#include "placement/planner/placement_code.hpp"

namespace weft::placement::planner {
namespace {

class Fnv1a {
 public:
  void Add(int64_t v) {
    for (int k = 0; k < 8; ++k) {
      h_ ^= static_cast<uint64_t>(v >> (8 * k)) & 0xffu;
      h_ *= 0x100000001b3ull;
    }
  }
  template <class T>
  void AddAll(const std::vector<T>& vs) {
    Add(static_cast<int64_t>(vs.size()));
    for (const T& v : vs) Add(static_cast<int64_t>(v));
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;
};

// Placements and resolved splits: what makes two layouts on one mesh equal (SPEC §2.3).
void AddLayout(Fnv1a& h, const Layout& l) {
  h.AddAll(EncodePlacements(l.placements()));
  for (int32_t d = 0; d < l.ndim(); ++d) {
    h.AddAll(l.split(d).mesh_dims);
    h.AddAll(l.split(d).sizes);  // canonical: empty when the split is the chunk rule
  }
}

std::string Placements(const Layout& l) {
  std::string s = "[";
  for (size_t m = 0; m < l.placements().size(); ++m)
    s += (m ? ", " : "") + PlacementName(l.placements()[m]);
  return s + "]";
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
  Fnv1a h;
  h.AddAll(plan.src->mesh().shape());
  h.AddAll(plan.src->shape());
  h.Add(plan.src->dtype().code);
  h.Add(plan.src->dtype().bits);
  AddLayout(h, *plan.src);
  h.Add(static_cast<int64_t>(plan.steps.size()));
  for (const Step& s : plan.steps) {
    h.Add(static_cast<int64_t>(s.kind));
    h.Add(s.conjugate);
    h.Add(static_cast<int64_t>(s.op));
    h.Add(s.tensor_dim);
    h.AddAll(s.mesh_dims);
    AddLayout(h, *s.to);
  }
  return h.value();
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
  return os.str();
}

}  // namespace weft::placement::planner
