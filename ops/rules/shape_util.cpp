#include "ops/rules/shape_util.hpp"

#include <utility>

namespace weft::ops::shape {

Result<int32_t> Dim(const std::string& op, const char* attr, int64_t value, int32_t ndim) {
  if (value < -int64_t{ndim} || value >= ndim)
    return InvalidArgument("operator '" + op + "': " + attr + " is " + std::to_string(value) +
                           " but the tensor has " + std::to_string(ndim) + " dims");
  return static_cast<int32_t>(value < 0 ? value + ndim : value);
}

int64_t Count(std::span<const int64_t> shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  return n;
}

void AddPartials(RuleResult* r, size_t inputs, const std::vector<size_t>& partial) {
  const size_t n = inputs + r->outputs.size();
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAvg, ReduceOp::kMax, ReduceOp::kMin}) {
    DimStrategy s = Replicated(n);
    for (size_t i : partial) s.codes[i] = PlacementCode::P(op);
    for (size_t t = inputs; t < n; ++t) s.codes[t] = PlacementCode::P(op);
    r->strategies.push_back(std::move(s));
  }
}

namespace {

// Products of the dims before `dim` and after it.
std::pair<int64_t, int64_t> OuterInner(std::span<const int64_t> shape, int32_t dim) {
  return {Count(shape.first(static_cast<size_t>(dim))),
          Count(shape.subspan(static_cast<size_t>(dim) + 1))};
}

}  // namespace

DenseTensor Slice(const DenseTensor& t, int32_t dim, int64_t begin, int64_t length) {
  DenseTensor out{t.shape, {}};
  out.shape[static_cast<size_t>(dim)] = length;
  const auto [outer, inner] = OuterInner(t.shape, dim);
  const int64_t extent = t.shape[static_cast<size_t>(dim)];
  out.values.reserve(static_cast<size_t>(outer * length * inner));
  for (int64_t o = 0; o < outer; ++o) {
    const auto from = t.values.begin() + (o * extent + begin) * inner;
    out.values.insert(out.values.end(), from, from + length * inner);
  }
  return out;
}

DenseTensor Concat(std::span<const DenseTensor> parts, int32_t dim) {
  DenseTensor out{parts[0].shape, {}};
  out.shape[static_cast<size_t>(dim)] = 0;
  for (const DenseTensor& p : parts) out.shape[static_cast<size_t>(dim)] += p.shape[dim];
  const auto [outer, inner] = OuterInner(out.shape, dim);
  out.values.reserve(static_cast<size_t>(Count(out.shape)));
  for (int64_t o = 0; o < outer; ++o)
    for (const DenseTensor& p : parts) {
      const int64_t block = p.shape[static_cast<size_t>(dim)] * inner;
      const auto from = p.values.begin() + o * block;
      out.values.insert(out.values.end(), from, from + block);
    }
  return out;
}

DenseTensor Permute(const DenseTensor& t, std::span<const int32_t> perm) {
  DenseTensor out;
  for (int32_t p : perm) out.shape.push_back(t.shape[static_cast<size_t>(p)]);
  out.values.reserve(t.values.size());
  std::vector<int64_t> src(t.shape.size());
  ForEach(out.shape, [&](const int64_t* idx) {
    for (size_t j = 0; j < perm.size(); ++j) src[static_cast<size_t>(perm[j])] = idx[j];
    out.values.push_back(t.values[static_cast<size_t>(Offset(t.shape, src.data()))]);
  });
  return out;
}

void ForEach(std::span<const int64_t> shape, const std::function<void(const int64_t*)>& f) {
  if (Count(shape) == 0) return;
  std::vector<int64_t> idx(shape.size(), 0);
  while (true) {
    f(idx.data());
    size_t d = shape.size();
    while (d > 0 && ++idx[d - 1] == shape[d - 1]) idx[--d] = 0;
    if (d == 0) return;
  }
}

int64_t Offset(std::span<const int64_t> shape, const int64_t* index) {
  int64_t off = 0;
  for (size_t d = 0; d < shape.size(); ++d) off = off * shape[d] + index[d];
  return off;
}

Result<std::vector<std::vector<int64_t>>> OutputShapes(const KernelCall& call, const RuleFn& rule) {
  if (!call.output_shapes.empty())
    return std::vector<std::vector<int64_t>>(call.output_shapes.begin(), call.output_shapes.end());
  RuleResult r;
  WEFT_RETURN_IF_ERROR(rule(call.global_inputs, *call.attrs, &r));
  std::vector<std::vector<int64_t>> shapes;
  for (const TensorInfo& t : r.outputs) shapes.push_back(t.shape);
  return shapes;
}

}  // namespace weft::ops::shape
