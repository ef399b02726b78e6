#include "tools/collbench/pattern.hpp"

#include "tools/collbench/halo_pattern.hpp"

#include <cstring>
#include <sstream>

namespace weft::collbench {
namespace {

// Reads one placement token at text[*at]; false when there is none.
bool ParseToken(const std::string& text, size_t* at, weft_placement_t* out) {
  if (*at >= text.size()) return false;
  const char c = text[*at];
  if (c == 'R') {
    *out = WEFT_PLACEMENT_REPLICATE;
    ++*at;
    return true;
  }
  if (c == 'S') {
    if (*at + 1 >= text.size() || (text[*at + 1] != '0' && text[*at + 1] != '1')) return false;
    *out = WEFT_PLACEMENT_SHARD(text[*at + 1] - '0');
    *at += 2;
    return true;
  }
  if (c != 'P') return false;
  ++*at;
  static const std::pair<const char*, int> ops[] = {{"sum", WEFT_REDUCE_SUM},
                                                    {"avg", WEFT_REDUCE_AVG},
                                                    {"max", WEFT_REDUCE_MAX},
                                                    {"min", WEFT_REDUCE_MIN},
                                                    {"prod", WEFT_REDUCE_PROD}};
  int op = WEFT_REDUCE_SUM;
  for (const auto& [name, value] : ops) {
    if (text.compare(*at, std::strlen(name), name) == 0) {
      op = value;
      *at += std::strlen(name);
      break;
    }
  }
  *out = WEFT_PLACEMENT_PARTIAL(op);
  return true;
}

bool ParseSide(const std::string& text, int32_t ndim, std::vector<weft_placement_t>* out) {
  size_t at = 0;
  out->clear();
  for (int32_t i = 0; i < ndim; ++i) {
    weft_placement_t p{};
    if (!ParseToken(text, &at, &p)) return false;
    out->push_back(p);
  }
  return at == text.size();
}

bool Any(const std::vector<weft_placement_t>& ps, int32_t kind) {
  for (const auto& p : ps) {
    if (p.kind == kind) return true;
  }
  return false;
}

bool SamePlacements(const std::vector<weft_placement_t>& a,
                    const std::vector<weft_placement_t>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].kind != b[i].kind || (a[i].kind == WEFT_SHARD && a[i].dim != b[i].dim)) return false;
  }
  return true;
}

}  // namespace

bool ParsePatterns(const std::string& list, std::vector<Pattern>* patterns, std::string* error) {
  patterns->clear();
  std::stringstream in(list);
  std::string item;
  bool any = false;
  while (std::getline(in, item, ',')) {
    any = true;
    if (IsHaloPattern(item)) continue;  // halo_pattern.cpp's
    Pattern p;
    p.name = item;
    std::string body = item;
    if (body.rfind("2d:", 0) == 0) {
      p.mesh_ndim = 2;
      body = body.substr(3);
    }
    const size_t dash = body.find('-');
    if (dash == std::string::npos || !ParseSide(body.substr(0, dash), p.mesh_ndim, &p.src) ||
        !ParseSide(body.substr(dash + 1), p.mesh_ndim, &p.dst)) {
      *error = "bad pattern '" + item + "' (e.g. S0-R, P-S0, Pmax-R, 2d:S0S1-S1S0)";
      return false;
    }
    patterns->push_back(std::move(p));
  }
  if (!any) *error = "empty --pattern list";
  return any;
}

std::vector<int64_t> PatternMeshShape(const Pattern& p, int32_t nranks) {
  if (p.mesh_ndim == 1) return {nranks};
  return nranks % 2 == 0 ? std::vector<int64_t>{2, nranks / 2} : std::vector<int64_t>{1, nranks};
}

std::optional<RawRef> ReferenceFor(const Pattern& p, int64_t bytes, int32_t nranks) {
  const bool src_partial = Any(p.src, WEFT_PARTIAL), src_shard = Any(p.src, WEFT_SHARD);
  const bool dst_shard = Any(p.dst, WEFT_SHARD), dst_partial = Any(p.dst, WEFT_PARTIAL);
  int redop = WEFT_REDUCE_SUM;
  for (const auto& s : p.src) {
    if (s.kind == WEFT_PARTIAL) redop = s.reduce_op;
  }
  if (dst_partial || SamePlacements(p.src, p.dst)) return std::nullopt;
  if (src_partial) return RawRef{dst_shard ? Op::kReduceScatter : Op::kAllreduce, bytes, redop};
  if (!src_shard) return std::nullopt;  // R -> S: a local slice
  if (!dst_shard) return RawRef{Op::kAllgather, bytes, redop};
  return RawRef{Op::kAlltoall, bytes / nranks, redop};
}

double PatternBusFactor(const Pattern& p, int32_t nranks) {
  const std::optional<RawRef> ref = ReferenceFor(p, int64_t{1} << 20, nranks);
  if (!ref) return 1.0;
  const double n = nranks;
  switch (ref->op) {
    case Op::kAllreduce:
      return 2.0 * (n - 1) / n;
    case Op::kAlltoall:
      return (n - 1) / (n * n);
    default:
      return (n - 1) / n;
  }
}

}  // namespace weft::collbench
