// The einsum reference kernel for the validation harness: an odometer over every letter, the
// product of the inputs at each point added into the output. Slow and obviously right.
#include <map>
#include <string>
#include <vector>

#include "ops/declarative/einsum.hpp"

namespace weft::ops {
namespace {

// Row-major offset of `sub`'s dims at the letters' current values (extent-1 dims broadcast).
int64_t Offset(const std::string& sub, const std::vector<int64_t>& shape,
               const std::map<char, int64_t>& at) {
  int64_t off = 0;
  for (size_t d = 0; d < sub.size(); ++d)
    off = off * shape[d] + (shape[d] == 1 ? 0 : at.at(sub[d]));
  return off;
}

}  // namespace

Status EinsumKernel(const EinsumSpec& spec, std::string_view op,
                    std::span<const DenseTensor> inputs, DenseTensor* out) {
  std::vector<TensorInfo> infos;
  for (const DenseTensor& t : inputs) infos.push_back({t.shape, DType{kCodeFloat, 64, 1}});
  RuleResult shape;
  WEFT_RETURN_IF_ERROR(EinsumRule(spec, op, infos, &shape));
  std::map<char, int64_t> extent, at;
  for (size_t t = 0; t < inputs.size(); ++t)
    for (size_t d = 0; d < spec.inputs[t].size(); ++d) {
      int64_t& e = extent[spec.inputs[t][d]];
      e = std::max(e, inputs[t].shape[d]);
    }
  out->shape = shape.outputs[0].shape;
  int64_t n = 1;
  for (int64_t e : out->shape) n *= e;
  out->values.assign(static_cast<size_t>(n), 0.0);
  for (const auto& [c, e] : extent) {
    if (e == 0) return Status::Ok();  // nothing to add up
    at[c] = 0;
  }
  while (true) {
    double p = 1;
    for (size_t t = 0; t < inputs.size(); ++t)
      p *= inputs[t].values[Offset(spec.inputs[t], inputs[t].shape, at)];
    out->values[Offset(spec.output, out->shape, at)] += p;
    auto it = at.begin();  // next point: the odometer's first letter turns fastest
    for (; it != at.end(); ++it) {
      if (++it->second < extent[it->first]) break;
      it->second = 0;
    }
    if (it == at.end()) return Status::Ok();
  }
}

}  // namespace weft::ops
