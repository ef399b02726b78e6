#include "tools/collbench/halo_pattern.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace weft::collbench {
namespace {

int64_t LargestPow2(int64_t limit, int64_t (*cost)(int64_t)) {
  int64_t w = 1;
  while (cost(w * 2) <= limit) w *= 2;
  return w;
}

int64_t ISqrt(int64_t v) {
  auto r = static_cast<int64_t>(std::sqrt(static_cast<double>(v)));
  while (r * r > v) --r;
  while ((r + 1) * (r + 1) <= v) ++r;
  return r;
}

// Splits "halo2d-star-inplace" into its base ("halo2d") and modifiers.
bool ParseOne(const std::string& item, HaloPattern* p) {
  std::stringstream in(item);
  std::string base, mod;
  std::getline(in, base, '-');
  p->name = item;
  if (item == "conv2d-fwd-bwd") {
    p->conv = true;
    return true;
  }
  if (base == "halo1d") {
    p->ndim = 2, p->windowed = {0};
  } else if (base == "halo2d") {
    p->ndim = 2, p->windowed = {0, 1};
  } else if (base == "halo3d") {
    p->ndim = 3, p->windowed = {0, 1, 2};
  } else {
    return false;
  }
  while (std::getline(in, mod, '-')) {
    if (mod == "box") {
      p->star = false;
    } else if (mod == "star" && p->windowed.size() > 1) {
      p->star = true;
    } else if (mod == "strided" && base == "halo1d") {
      p->windowed = {1};  // split along the inner dim: faces are strided
    } else if (mod == "inplace") {
      p->inplace = true;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

bool IsHaloPattern(const std::string& item) {
  return item.rfind("halo", 0) == 0 || item.rfind("conv2d", 0) == 0;
}

bool ParseHaloPatterns(const std::string& list, std::vector<HaloPattern>* patterns,
                       std::string* error) {
  patterns->clear();
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!IsHaloPattern(item)) continue;
    HaloPattern p;
    if (!ParseOne(item, &p)) {
      *error = "bad halo pattern '" + item +
               "' (halo1d, halo1d-strided, halo2d-box, halo2d-star, halo3d, halo3d-star, each "
               "optionally -inplace; conv2d-fwd-bwd)";
      return false;
    }
    patterns->push_back(std::move(p));
  }
  return true;
}

std::vector<int64_t> HaloGeometry::GlobalShape(const HaloPattern& p) const {
  std::vector<int64_t> g = local;
  for (size_t i = 0; i < p.windowed.size(); ++i)
    g[static_cast<size_t>(p.windowed[i])] *= mesh_shape[i];
  return g;
}

std::vector<int64_t> HaloGeometry::PaddedShape(const HaloPattern& p) const {
  std::vector<int64_t> s = local;
  for (const int32_t d : p.windowed) s[static_cast<size_t>(d)] += 2 * depth;
  return s;
}

std::vector<int64_t> NearCubeShape(int32_t n, int32_t k) {
  std::vector<int64_t> factors, shape(static_cast<size_t>(k), 1);
  int64_t rest = n;
  for (int64_t f = 2; f * f <= rest; ++f) {
    while (rest % f == 0) factors.push_back(f), rest /= f;
  }
  if (rest > 1) factors.push_back(rest);
  std::sort(factors.rbegin(), factors.rend());
  for (const int64_t f : factors) *std::min_element(shape.begin(), shape.end()) *= f;
  std::sort(shape.rbegin(), shape.rend());
  return shape;
}

std::vector<int64_t> InteriorScales(const HaloPattern& p) {
  if (p.inplace && p.windowed.size() == 1) return {1, 8};
  return {1};
}

std::optional<HaloGeometry> MakeHaloGeometry(const HaloPattern& p, int64_t bytes, int32_t nranks,
                                             int64_t interior_scale) {
  const int64_t e = bytes / 4;
  HaloGeometry g;
  g.mesh_shape = NearCubeShape(nranks, static_cast<int32_t>(p.windowed.size()));
  if (p.windowed.size() == 1 && p.windowed[0] == 0) {  // halo1d: contiguous rows
    g.depth = 1;
    g.local = {2 * interior_scale, e};
  } else if (p.windowed.size() == 1) {  // halo1d-strided
    g.depth = 4;
    g.local = {e / 4, 8 * interior_scale};
  } else if (p.windowed.size() == 2) {
    g.depth = LargestPow2(e, [](int64_t w) { return 2 * w * w; });
    const int64_t n = e / g.depth;
    g.local = {n * interior_scale, n};
  } else {
    g.depth = LargestPow2(e, [](int64_t w) { return 4 * w * w * w; });
    const int64_t n = ISqrt(e / g.depth);
    g.local = {n * interior_scale, n, n};
  }
  // A face: depth rows across the first windowed dim times the other extents.
  int64_t face = g.depth;
  for (size_t d = 0; d < g.local.size(); ++d) {
    if (static_cast<int32_t>(d) != p.windowed[0]) face *= g.local[d];
  }
  g.face_bytes = face * 4;
  for (const int64_t x : g.local) {
    if (x < g.depth || x < 1) return std::nullopt;  // one hop: no shard narrower than the halo
  }
  return g;
}

}  // namespace weft::collbench
