// Text and figures of a halo plan: what weft_plan_describe and weft_plan_stats report.
#include <sstream>

#include "placement/halo/halo_plan.hpp"

namespace weft::placement::halo {
namespace {

std::string Range(const Box& b) {
  std::ostringstream o;
  o << "[";
  for (int32_t d = 0; d < b.ndim; ++d)
    o << (d ? ", " : "") << b.offset[d] << ":" << b.offset[d] + b.shape[d];
  o << "]";
  return o.str();
}

}  // namespace

HaloStats HaloPlan::Stats() const {
  HaloStats s;
  const int64_t item = ItemSize(layout().dtype());
  int64_t staged = 0;
  for (const Phase& ph : phases_) {
    int64_t phase_staged = 0;
    bool moves = !ph.recvs.empty() || !ph.sends.empty();
    for (const Message& m : ph.sends) {
      s.send_bytes += m.elements * item;
      phase_staged += m.elements * item;
    }
    for (const Message& m : ph.recvs) {
      s.recv_bytes += m.elements * item;
      phase_staged += m.elements * item;
    }
    for (const auto* list : {&ph.sends, &ph.recvs})
      for (const Message& m : *list) s.messages += static_cast<int64_t>(m.regions.size());
    s.phases += moves ? 1 : 0;
    staged = std::max(staged, phase_staged);
  }
  // At most every message staged (direct transfers need none); PHASES' accumulate also holds a
  // copy of the padded gradient.
  s.extra_bytes = staged + (transport_ == Transport::kPhases ? window_.Volume() * item : 0);
  return s;
}

std::string HaloPlan::Describe() const {
  std::ostringstream o;
  const HaloSpec& spec = geo_.spec();
  o << "halo of " << layout().Describe() << "\n";
  o << "stencil " << (spec.stencil == Stencil::kBox ? "box" : "star") << ", transport "
    << (transport_ == Transport::kPhases ? "phases" : "neighbor all-to-all-v");
  for (const DimSpec& d : spec.dims)
    o << "; dim " << d.dim << " " << (d.is_explicit() ? "explicit windows" : "uniform") << " lo "
      << d.lo << " hi " << d.hi << " pad " << d.pad_lo << "/" << d.pad_hi << " boundary "
      << BoundaryName(d.lo_rule) << "/" << BoundaryName(d.hi_rule);
  o << "\n";
  if (!in_mesh_) {
    o << "rank " << rank_ << " is outside the mesh: nothing to do\n";
    return o.str();
  }
  const int64_t item = ItemSize(layout().dtype());
  o << "rank " << rank_ << ": owned " << Range(owned_) << " window " << Range(window_) << "\n";
  for (size_t k = 0; k < phases_.size(); ++k) {
    const Phase& ph = phases_[k];
    o << "phase " << k;
    if (ph.dim >= 0) o << " (tensor dim " << ph.dim << ")";
    o << ":";
    for (const Message& m : ph.recvs)
      o << " recv " << m.elements * item << " B from position " << m.peer << " ("
        << m.regions.size() << " boxes);";
    for (const Message& m : ph.sends)
      o << " send " << m.elements * item << " B to position " << m.peer << " (" << m.regions.size()
        << " boxes);";
    o << " " << ph.self.size() << " local copies, " << ph.constants.size() << " constant fills\n";
  }
  return o.str();
}

}  // namespace weft::placement::halo
