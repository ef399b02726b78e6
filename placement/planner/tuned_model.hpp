// The cost model a plan on a mesh is made with: the built-in defaults, or, with a tuning file
// (WEFT_TUNING_FILE, docs/tuning.md), per mesh dim the alpha-beta of the slowest link inside
// that dim's groups (SPEC §3.2), where each rank's place comes from the file and the figures
// from its fit for that link class. `source` says which, for weft_plan_describe.
#pragma once

#include "common/result.hpp"
#include "common/tuning_file.hpp"
#include "placement/mesh.hpp"
#include "placement/planner/cost_model.hpp"

namespace weft::placement::planner {

// The model `file` gives plans on `mesh`; the built-in defaults (saying why) when the file
// does not place every rank of the mesh or measured no link.
CostModel TunedModel(const Mesh& mesh, const tuning::File& file);

// TunedModel with the file WEFT_TUNING_FILE names, or the defaults when it is unset; an error
// when it names a file that cannot be read or parsed.
Result<CostModel> ModelFor(const Mesh& mesh);

}  // namespace weft::placement::planner
