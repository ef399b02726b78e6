// The dim strategies an einsum equation gives (docs/design/rules.md "Declarative rules").
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ops/declarative/einsum.hpp"

namespace weft::ops {
namespace {

// Per letter: its extent (the largest; others are 1 and broadcast) and whether some tensor
// repeats it (a diagonal: no strategy shards it, one mesh dim cannot cut two dims of a tensor
// alike and keep the diagonal local).
struct Letter {
  int64_t extent = -1;  // -1 until a tensor says
  bool repeated = false;
};

Result<std::map<char, Letter>> Extents(const EinsumSpec& spec, std::string_view op,
                                       std::span<const TensorInfo> in) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument("operator '" + std::string(op) + "' (einsum '" + spec.equation +
                           "'): " + why);
  };
  if (in.size() != spec.inputs.size())
    return bad(std::to_string(in.size()) + " inputs for an equation of " +
               std::to_string(spec.inputs.size()));
  std::map<char, Letter> letters;
  for (size_t t = 0; t < in.size(); ++t) {
    const std::string& sub = spec.inputs[t];
    if (in[t].shape.size() != sub.size())
      return bad("input " + std::to_string(t) + " has shape " + ShapeText(in[t].shape) +
                 ", the equation gives it " + std::to_string(sub.size()) + " dims");
    if (in[t].dtype != in[0].dtype) return bad("the inputs' dtypes differ");
    for (size_t d = 0; d < sub.size(); ++d) {
      Letter& l = letters[sub[d]];
      const int64_t e = in[t].shape[d];
      if (sub.find(sub[d]) != d) l.repeated = true;
      if (l.extent < 0 || l.extent == 1) {
        l.extent = l.extent < 0 || e != 1 ? e : l.extent;  // a 1 broadcasts to what comes
      } else if (e != l.extent && e != 1) {
        return bad(std::string("letter '") + sub[d] + "' is " + std::to_string(l.extent) +
                   " in one place and " + std::to_string(e) + " in input " + std::to_string(t));
      }
    }
  }
  return letters;
}

// The strategy sharding `c` on every tensor that has it at full extent, and the aligned group.
void ShardLetter(const EinsumSpec& spec, std::span<const TensorInfo> in, char c, int64_t extent,
                 RuleResult* r) {
  DimStrategy s = Replicated(in.size() + 1);
  std::vector<DimRef> group;
  for (size_t t = 0; t < in.size(); ++t) {
    const size_t d = spec.inputs[t].find(c);
    if (d == std::string::npos || in[t].shape[d] != extent) continue;
    s.codes[t] = PlacementCode::S(static_cast<int32_t>(d));
    group.push_back({static_cast<int32_t>(t), static_cast<int32_t>(d)});
  }
  const size_t o = spec.output.find(c);
  const auto out = static_cast<int32_t>(in.size());
  if (o == std::string::npos) {
    s.codes[out] = PlacementCode::P(ReduceOp::kSum);
  } else {
    s.codes[out] = PlacementCode::S(static_cast<int32_t>(o));
    group.push_back({out, static_cast<int32_t>(o)});
  }
  r->strategies.push_back(std::move(s));
  if (group.size() > 1) r->aligned.push_back(std::move(group));
}

}  // namespace

Status EinsumRule(const EinsumSpec& spec, std::string_view op, std::span<const TensorInfo> in,
                  RuleResult* r) {
  auto letters = Extents(spec, op, in);
  if (!letters.ok()) return letters.status();
  TensorInfo out{{}, in[0].dtype};
  for (char c : spec.output) out.shape.push_back((*letters)[c].extent);
  r->outputs.push_back(std::move(out));
  r->strategies.push_back(Replicated(in.size() + 1));
  // Letters in the order they first appear: the rule's preference among equal costs.
  std::string order;
  for (const std::string& sub : spec.inputs)
    for (char c : sub)
      if (order.find(c) == std::string::npos) order.push_back(c);
  for (char c : order) {
    const Letter& l = (*letters)[c];
    if (l.repeated || l.extent == 1 || spec.unshardable.find(c) != std::string::npos) continue;
    ShardLetter(spec, in, c, l.extent, r);
  }
  for (size_t t = 0; t < in.size(); ++t) {
    if (!spec.linear[t]) continue;
    for (ReduceOp p : {ReduceOp::kSum, ReduceOp::kAvg}) {
      DimStrategy s = Replicated(in.size() + 1);
      s.codes[t] = s.codes[in.size()] = PlacementCode::P(p);
      r->strategies.push_back(std::move(s));
    }
  }
  return Status::Ok();
}

}  // namespace weft::ops

namespace weft::ops {

OpDef MakeEinsumOp(std::string name, EinsumSpec spec, std::string source) {
  OpDef op;
  op.name = std::move(name);
  op.source = std::move(source);
  op.min_inputs = op.max_inputs = static_cast<int32_t>(spec.inputs.size());
  op.signature = "einsum " + spec.inputs[0];
  for (size_t i = 1; i < spec.inputs.size(); ++i) op.signature += "," + spec.inputs[i];
  op.signature += "->" + spec.output + " linear ";
  for (bool l : spec.linear) op.signature += l ? "1" : "0";
  op.signature += " unshardable " + spec.unshardable;
  auto shared = std::make_shared<const EinsumSpec>(std::move(spec));
  op.rule = [shared, n = op.name](std::span<const TensorInfo> in, const Attributes&,
                                  RuleResult* r) { return EinsumRule(*shared, n, in, r); };
  op.kernel = [shared, n = op.name](const KernelCall& call, std::vector<DenseTensor>* out) {
    out->resize(1);
    return EinsumKernel(*shared, n, call.inputs, &(*out)[0]);
  };
  return op;
}

}  // namespace weft::ops
