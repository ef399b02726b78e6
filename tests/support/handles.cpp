#include "tests/support/handles.hpp"

namespace weft_test {

Mesh::Mesh(const std::vector<int64_t>& shape, weft_context_t* ctx) {
  const weft_status_t s =
      weft_mesh_create(ctx, static_cast<int32_t>(shape.size()), shape.data(), nullptr, &m);
  EXPECT_EQ(s, WEFT_OK) << weft_last_error();
}

Mesh::Mesh(const std::vector<int64_t>& shape, const std::vector<int32_t>& ranks) {
  const weft_status_t s =
      weft_mesh_create(TheWorld().ctx, static_cast<int32_t>(shape.size()), shape.data(),
                       ranks.empty() ? nullptr : ranks.data(), &m);
  EXPECT_EQ(s, WEFT_OK) << weft_last_error();
}

weft_placement_t Parse(const std::string& p) {
  if (p == "R") return WEFT_PLACEMENT_REPLICATE;
  if (p[0] == 'S') return WEFT_PLACEMENT_SHARD(p[1] - '0');
  const int32_t op = p == "Ps"   ? WEFT_REDUCE_SUM
                     : p == "Pa" ? WEFT_REDUCE_AVG
                     : p == "Pm" ? WEFT_REDUCE_MAX
                     : p == "Pn" ? WEFT_REDUCE_MIN
                                 : WEFT_REDUCE_PROD;
  return WEFT_PLACEMENT_PARTIAL(op);
}

Layout::Layout(const Mesh& mesh, const std::vector<int64_t>& shape, DLDataType dt,
               std::vector<std::string> pl, const std::vector<std::vector<int64_t>>& splits)
    : placements(std::move(pl)) {
  std::vector<weft_placement_t> p;
  for (const auto& s : placements) p.push_back(Parse(s));
  std::vector<const int64_t*> sizes(shape.size(), nullptr);
  std::vector<int64_t> counts(shape.size(), 0);
  for (size_t d = 0; d < splits.size() && d < shape.size(); ++d) {
    if (splits[d].empty()) continue;
    sizes[d] = splits[d].data();
    counts[d] = static_cast<int64_t>(splits[d].size());
  }
  status = weft_layout_create_ragged(mesh.m, static_cast<int32_t>(shape.size()), shape.data(), dt,
                                     p.data(), sizes.data(), counts.data(), &l);
}

}  // namespace weft_test
