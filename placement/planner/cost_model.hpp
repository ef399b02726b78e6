// The alpha-beta cost model the planner minimises (SPEC §3.2). Costs are seconds. Defaults are
// built in; tuned_model.hpp makes one per mesh from collbench tune's tuning file.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "placement/layout.hpp"
#include "placement/planner/plan.hpp"

namespace weft::placement::planner {

struct LinkCost {
  double alpha = 20e-6;     // seconds per message
  double beta = 1.0 / 1e9;  // seconds per byte
};

struct CostModel {
  std::vector<LinkCost> dims;  // per mesh dim; missing dims use the default LinkCost
  double copy_beta = 1.0 / 10e9;
  double reduce_beta = 1.0 / 5e9;
  std::string source;  // where the figures came from, for weft_plan_describe; empty: defaults

  LinkCost Link(int32_t mesh_dim) const {
    return mesh_dim < static_cast<int32_t>(dims.size()) ? dims[mesh_dim] : LinkCost{};
  }
};

// Estimated seconds of `step` (its kind, mesh dims, from/to and op must be set). Rank
// independent: the maximum of the per-rank estimate over a fixed sample of mesh coordinates.
double StepCost(const CostModel& model, const Step& step);

// That fixed sample: coordinate 0, one step along each mesh dim of extent > 1, the last one.
std::vector<Coord> SampleCoords(const Mesh& mesh);

// A layout's blocks at SampleCoords, flat: all StepCost reads of a layout. The search computes
// them once per state instead of once per edge.
struct SampleBlocks {
  SampleBlocks() = default;
  SampleBlocks(const Layout& layout, std::span<const Coord> samples);

  size_t size() const { return count; }
  // Sample k's block: offsets at Block(k), extents at Block(k) + ndim.
  const int64_t* Block(size_t k) const { return data.data() + 2 * k * static_cast<size_t>(ndim); }
  int64_t Volume(size_t k) const { return data[2 * count * static_cast<size_t>(ndim) + k]; }

  int32_t ndim = 0;
  size_t count = 0;
  std::vector<int64_t> data;  // one allocation: every block, then the volumes
};

// What StepCost reads of a step besides its layouts' blocks.
struct StepShape {
  StepKind kind = StepKind::kLocal;
  uint32_t mesh_dims = 0;  // bit m: mesh dim m is in the step's group
};

// StepCost of a step of `shape` from `from_layout` (blocks `from`) to a layout with blocks `to`,
// whose elements take `item` bytes. The layout itself is read only for an all-to-all or
// exchange over mesh dims whose links differ (a tuning file's model), priced peer by peer.
double StepCostAt(const CostModel& model, const StepShape& shape, const Layout& from_layout,
                  double item, const SampleBlocks& from, const SampleBlocks& to);

// The messages per rank the model charges alpha for in `step` (its group size less one per
// round; 0 for a local step).
int64_t StepMessages(const Step& step);

}  // namespace weft::placement::planner
