#include "ops/rules/dense.hpp"

#include <utility>

#include "ops/rules/shape_util.hpp"

namespace weft::ops {

Lanes LanesOf(const std::vector<int64_t>& shape, int32_t dim) {
  Lanes l;
  for (size_t d = 0; d < shape.size(); ++d) {
    const auto di = static_cast<int32_t>(d);
    (di < dim ? l.outer : di == dim ? l.n : l.inner) *= shape[d];
  }
  return l;
}

void ForEachIndex(const std::vector<int64_t>& shape,
                  const std::function<void(const std::vector<int64_t>&, int64_t)>& fn) {
  std::vector<int64_t> c(shape.size());
  int64_t flat = 0;
  shape::ForEach(shape, [&](const int64_t* index) {
    c.assign(index, index + shape.size());
    fn(c, flat++);
  });
}

std::vector<int64_t> BroadcastIndex(const std::vector<int64_t>& out,
                                    const std::vector<int64_t>& in) {
  const size_t lead = out.size() - in.size();
  std::vector<int64_t> stride(in.size(), 0);
  int64_t s = 1;
  for (size_t d = in.size(); d-- > 0;) {
    stride[d] = in[d] == 1 ? 0 : s;
    s *= in[d];
  }
  std::vector<int64_t> index;
  index.reserve(static_cast<size_t>(shape::Count(out)));
  ForEachIndex(out, [&](const std::vector<int64_t>& c, int64_t) {
    int64_t at = 0;
    for (size_t d = 0; d < in.size(); ++d) at += c[lead + d] * stride[d];
    index.push_back(at);
  });
  return index;
}

std::vector<int32_t> CuttingMeshDims(const KernelCall& call, size_t input, int32_t dim) {
  if (call.input_layouts.size() <= input) return {};
  return call.input_layouts[input]->split(dim).mesh_dims;
}

int64_t MeshCoordinate(const KernelCall& call, int32_t mesh_dim) {
  placement::Coord c{};
  call.input_layouts[0]->mesh().Coordinate(call.rank, c.data());
  return c[static_cast<size_t>(mesh_dim)];
}

Result<DenseTensor> CombineOver(const KernelCall& call, const std::vector<int32_t>& mesh_dims,
                                DenseTensor mine, const std::function<double(double, double)>& f) {
  for (int32_t m : mesh_dims) {
    if (!call.all_gather) return Internal("a kernel needs all_gather on a mesh, and has none");
    WEFT_ASSIGN_OR_RETURN(std::vector<DenseTensor> all, call.all_gather(m, mine));
    for (size_t k = 0; k < mine.values.size(); ++k) {
      double acc = all[0].values[k];
      for (size_t j = 1; j < all.size(); ++j) acc = f(acc, all[j].values[k]);
      mine.values[k] = acc;
    }
  }
  return mine;
}

Status KernelError(const std::string& op, const std::string& why) {
  return InvalidArgument("operator '" + op + "': " + why);
}

}  // namespace weft::ops
