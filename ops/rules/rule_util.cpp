#include "ops/rules/rule_util.hpp"

#include <algorithm>
#include <utility>

#include "ops/rules/shape_util.hpp"

namespace weft::ops {
namespace {

// Orders dtypes for promotion: bool < integers < floats < complex.
int Kind(DType t) {
  switch (t.code) {
    case kCodeBool:
      return 0;
    case kCodeInt:
    case kCodeUInt:
      return 1;
    case kCodeFloat:
    case kCodeBfloat:
      return 2;
    case kCodeComplex:
      return 3;
    default:
      return 4;
  }
}

}  // namespace

Status OpError(const std::string& op, const std::string& why) {
  return InvalidArgument("operator '" + op + "': " + why);
}

Result<std::vector<int64_t>> BroadcastShape(const std::string& op, std::span<const TensorInfo> in) {
  size_t nd = 0;
  for (const TensorInfo& t : in) nd = std::max(nd, t.shape.size());
  std::vector<int64_t> out(nd, 1);
  for (const TensorInfo& t : in) {
    const size_t lead = nd - t.shape.size();
    for (size_t d = 0; d < t.shape.size(); ++d) {
      const int64_t e = t.shape[d];
      int64_t& o = out[lead + d];
      if (e == o || e == 1) continue;
      if (o != 1) {
        std::string shapes;
        for (const TensorInfo& x : in)
          shapes += (shapes.empty() ? "" : " and ") + ShapeText(x.shape);
        return OpError(op, "shapes " + shapes + " do not broadcast");
      }
      o = e;
    }
  }
  return out;
}

DType PromotedDType(std::span<const TensorInfo> in) {
  DType dtype = in[0].dtype;
  for (const TensorInfo& t : in)
    if (Kind(t.dtype) > Kind(dtype) || (Kind(t.dtype) == Kind(dtype) && t.dtype.bits > dtype.bits))
      dtype = t.dtype;
  return dtype;
}

void AddBroadcastStrategies(std::span<const TensorInfo> in, const std::vector<int64_t>& shape,
                            RuleResult* r) {
  const size_t n = in.size(), nd = shape.size(), tensors = n + r->outputs.size();
  r->strategies.push_back(Replicated(tensors));
  for (size_t d = 0; d < nd; ++d) {
    DimStrategy s = Replicated(tensors);
    std::vector<DimRef> group;
    for (size_t i = 0; i < n; ++i) {
      const size_t lead = nd - in[i].shape.size();
      if (d < lead || in[i].shape[d - lead] != shape[d]) continue;  // broadcast here: R
      const auto e = static_cast<int32_t>(d - lead);
      s.codes[i] = PlacementCode::S(e);
      group.push_back({static_cast<int32_t>(i), e});
    }
    for (size_t o = n; o < tensors; ++o) {
      s.codes[o] = PlacementCode::S(static_cast<int32_t>(d));
      group.push_back({static_cast<int32_t>(o), static_cast<int32_t>(d)});
    }
    r->strategies.push_back(std::move(s));
    r->aligned.push_back(std::move(group));
  }
}

Result<std::vector<int32_t>> AttrDims(const std::string& op, const Attributes& attrs,
                                      const char* attr, size_t ndim) {
  std::vector<int32_t> dims;
  if (!attrs.Find(attr)) {
    for (size_t d = 0; d < ndim; ++d) dims.push_back(static_cast<int32_t>(d));
    return dims;
  }
  WEFT_ASSIGN_OR_RETURN(std::vector<int64_t> given, ForOp(op, attrs.Ints(attr)));
  for (int64_t v : given) {
    WEFT_ASSIGN_OR_RETURN(int32_t d, shape::Dim(op, attr, v, static_cast<int32_t>(ndim)));
    if (std::find(dims.begin(), dims.end(), d) != dims.end())
      return OpError(op, "attribute '" + std::string(attr) + "': dim " + std::to_string(v) +
                             " is named twice");
    dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end());
  return dims;
}

}  // namespace weft::ops
