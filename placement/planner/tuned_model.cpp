#include "placement/planner/tuned_model.hpp"

#include <cstdio>
#include <string>

namespace weft::placement::planner {
namespace {

// "alpha 3.1 us, 5.20 GB/s"
std::string Figures(double alpha, double beta) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "alpha %.3g us, %.3g GB/s", alpha * 1e6, 1e-9 / beta);
  return buf;
}

CostModel Defaults(const std::string& why) {
  CostModel m;
  const LinkCost d;
  m.source = "built-in defaults (" + Figures(d.alpha, d.beta) + " on every mesh dim; " + why + ")";
  return m;
}

}  // namespace

CostModel TunedModel(const Mesh& mesh, const tuning::File& file) {
  const auto places = static_cast<int64_t>(file.ranks.size());
  for (int64_t i = 0; i < mesh.size(); ++i)
    if (mesh.RankAtIndex(i) >= places)
      return Defaults("tuning file " + file.path + " places " + std::to_string(places) +
                      " ranks, the mesh holds rank " + std::to_string(mesh.RankAtIndex(i)));
  CostModel m;
  m.source = "tuning file " + file.path + ":";
  // Row-major index i has coordinate c_d = (i / stride_d) % extent_d along dim d; its group
  // along d starts at i - c_d * stride_d. The link classes nest, so the slowest link of a group
  // is the slowest from its first member.
  int64_t stride = mesh.size();
  for (int32_t d = 0; d < mesh.ndim(); ++d) {
    const int64_t extent = mesh.shape()[d];
    stride /= extent;
    auto worst = tuning::LinkClass::kSameL3;
    for (int64_t i = 0; i < mesh.size(); ++i) {
      const int64_t first = i - ((i / stride) % extent) * stride;
      const auto c = tuning::ClassOf(file.ranks[static_cast<size_t>(mesh.RankAtIndex(first))],
                                     file.ranks[static_cast<size_t>(mesh.RankAtIndex(i))]);
      worst = std::max(worst, c);
    }
    const tuning::LinkFit* fit = file.Fit(worst);
    if (fit == nullptr) return Defaults("tuning file " + file.path + " measured no link");
    m.dims.push_back(LinkCost{fit->alpha, fit->beta});
    m.source += std::string(d ? "," : "") + " mesh dim " + std::to_string(d) + " " +
                tuning::LinkClassName(worst) + " (" + Figures(fit->alpha, fit->beta) + ")";
  }
  if (file.copy_beta > 0) m.copy_beta = file.copy_beta;
  if (file.reduce_beta > 0) m.reduce_beta = file.reduce_beta;
  char local[96];
  std::snprintf(local, sizeof(local), "; copy %.3g GB/s, reduce %.3g GB/s", 1e-9 / m.copy_beta,
                1e-9 / m.reduce_beta);
  m.source += local;
  return m;
}

Result<CostModel> ModelFor(const Mesh& mesh) {
  WEFT_ASSIGN_OR_RETURN(auto file, tuning::FromEnvironment());
  if (!file) return Defaults("WEFT_TUNING_FILE unset");
  return TunedModel(mesh, *file);
}

}  // namespace weft::placement::planner
