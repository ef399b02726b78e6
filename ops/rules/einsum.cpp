// einsum (attribute `equation`): the declarative einsum rule (ops/declarative/einsum.hpp) as a
// built-in operator, so a framework can pass torch.einsum calls straight through.
#include <string>
#include <utility>
#include <vector>

#include "ops/declarative/einsum.hpp"
#include "ops/rules/builtin.hpp"

namespace weft::ops {
namespace {

Result<EinsumSpec> Spec(const Attributes& attrs) {
  auto eq = attrs.Text("equation");
  if (!eq.ok()) return InvalidArgument("operator 'einsum': " + eq.status().message());
  return ParseEinsum(*eq);
}

}  // namespace

Status RegisterEinsum(Registry& reg) {
  OpDef op;
  op.name = "einsum";
  op.min_inputs = 1;
  op.max_inputs = 52;  // one letter each at most
  op.key_attrs = {"equation"};
  op.rule = [](std::span<const TensorInfo> in, const Attributes& attrs, RuleResult* r) {
    auto spec = Spec(attrs);
    return spec.ok() ? EinsumRule(*spec, "einsum", in, r) : spec.status();
  };
  op.kernel = [](const KernelCall& call, std::vector<DenseTensor>* out) {
    auto spec = Spec(*call.attrs);
    if (!spec.ok()) return spec.status();
    out->resize(1);
    return EinsumKernel(*spec, "einsum", call.inputs, &(*out)[0]);
  };
  return reg.Add(std::move(op));
}

}  // namespace weft::ops
