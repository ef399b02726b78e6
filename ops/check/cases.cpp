// The generators. Values are small integers (exact sums, products and maxima in doubles);
// ops with transcendental functions get a relative tolerance. Shapes are small (extents 0..6)
// so that every candidate runs in microseconds, with size-1 dims for broadcasting and zero
// extents now and then.
#include "ops/check/cases.hpp"

#include <algorithm>
#include <functional>
#include <map>

namespace weft::ops::check {
namespace {

const DType kF64{kCodeFloat, 64, 1};
const DType kI64{kCodeInt, 64, 1};
constexpr double kFloatTolerance = 1e-10;

int64_t U(Rng& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

enum class Values { kAny, kPositive, kNonZero };

DenseTensor Fill(const std::vector<int64_t>& shape, Values kind, Rng& rng) {
  DenseTensor t{shape, {}};
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  for (int64_t k = 0; k < n; ++k) {
    int64_t v = U(rng, -4, 4);
    if (kind == Values::kPositive) v = U(rng, 1, 6);
    if (kind == Values::kNonZero) v = U(rng, 1, 4) * (U(rng, 0, 1) ? 1 : -1);
    t.values.push_back(static_cast<double>(v));
  }
  return t;
}

std::vector<int64_t> Shape(Rng& rng, int64_t ndim, int64_t lo = 1, int64_t hi = 5) {
  std::vector<int64_t> s;
  for (int64_t d = 0; d < ndim; ++d) s.push_back(U(rng, lo, hi));
  return s;
}

void Add(Case& c, std::vector<int64_t> shape, Values kind, Rng& rng, DType dtype = kF64) {
  c.values.push_back(Fill(shape, kind, rng));
  c.inputs.push_back({std::move(shape), dtype});
  c.no_partial.push_back(false);
}

// An index tensor of `shape` with values in [0, bound): never Partial.
void AddIndex(Case& c, std::vector<int64_t> shape, int64_t bound, Rng& rng) {
  DenseTensor t{shape, {}};
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  for (int64_t k = 0; k < n; ++k) t.values.push_back(static_cast<double>(U(rng, 0, bound - 1)));
  c.values.push_back(std::move(t));
  c.inputs.push_back({std::move(shape), kI64});
  c.no_partial.push_back(true);
}

// A shape `base` broadcasts against: some dims 1, some leading dims dropped.
std::vector<int64_t> Broadcastable(const std::vector<int64_t>& base, Rng& rng) {
  std::vector<int64_t> s(base.begin() + U(rng, 0, static_cast<int64_t>(base.size()) / 2),
                         base.end());
  for (int64_t& e : s)
    if (U(rng, 0, 3) == 0) e = 1;
  return s;
}

using Generator = std::function<Case(const std::string&, Rng&)>;

Case Unary(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  const bool domain = op == "sqrt" || op == "log";
  Add(c, Shape(rng, U(rng, 1, 3), 0), domain ? Values::kPositive : Values::kAny, rng);
  const bool exact = op == "neg" || op == "relu" || op == "abs";
  c.tolerance = exact ? 0 : kFloatTolerance;
  return c;
}

Case Binary(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  const std::vector<int64_t> base = Shape(rng, U(rng, 1, 3));
  const bool swap = U(rng, 0, 1) == 1;
  Add(c, swap ? Broadcastable(base, rng) : base, Values::kAny, rng);
  Add(c, swap ? base : Broadcastable(base, rng), op == "div" ? Values::kNonZero : Values::kAny,
      rng);
  c.tolerance = op == "div" ? kFloatTolerance : 0;
  return c;
}

Case Matmul(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  std::vector<int64_t> batch = Shape(rng, op == "mm" ? 0 : U(rng, op == "bmm" ? 1 : 0, 2));
  if (op == "bmm") batch.resize(1);
  const int64_t m = U(rng, 1, 5), k = U(rng, 1, 5), n = U(rng, 1, 5);
  std::vector<int64_t> a = batch, b = batch;
  a.insert(a.end(), {m, k});
  b.insert(b.end(), {k, n});
  Add(c, a, Values::kAny, rng);
  Add(c, b, Values::kAny, rng);
  return c;
}

Case Product(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  const int64_t m = U(rng, 1, 5), k = U(rng, 1, 5), n = U(rng, 1, 5), b = U(rng, 1, 3);
  if (op == "linear") {
    std::vector<int64_t> x = Shape(rng, U(rng, 0, 2));
    x.push_back(k);
    Add(c, x, Values::kAny, rng);
    Add(c, {n, k}, Values::kAny, rng);
    if (U(rng, 0, 1)) Add(c, {n}, Values::kAny, rng);
    return c;
  }
  const std::vector<int64_t> out =
      op == "addmm" ? std::vector<int64_t>{m, n} : std::vector<int64_t>{b, m, n};
  Add(c, Broadcastable(out, rng), Values::kAny, rng);
  Add(c, op == "addmm" ? std::vector<int64_t>{m, k} : std::vector<int64_t>{b, m, k}, Values::kAny,
      rng);
  Add(c, op == "addmm" ? std::vector<int64_t>{k, n} : std::vector<int64_t>{b, k, n}, Values::kAny,
      rng);
  (void)c.attrs.Set("beta", static_cast<double>(U(rng, -2, 2)));
  (void)c.attrs.Set("alpha", static_cast<double>(U(rng, -2, 2)));
  return c;
}

Case Einsum(const std::string& op, Rng& rng) {
  const char* equations[] = {"ij,jk->ik", "bij,bjk->bik", "bhqd,bhkd->bhqk", "ij->j", "ij,ij->ij",
                             "i,j->ij",   "ijk->ki",      "ii->i",           "ij,j"};
  const std::string eq = equations[U(rng, 0, 8)];
  Case c{op, {}, {}, {}, 0, {}};
  (void)c.attrs.Set("equation", eq);
  std::map<char, int64_t> extent;
  std::vector<std::string> subs(1);
  for (char ch : eq.substr(0, eq.find("->"))) {
    if (ch == ',') {
      subs.emplace_back();
      continue;
    }
    subs.back().push_back(ch);
    if (!extent.count(ch)) extent[ch] = U(rng, 1, 4);
  }
  for (const std::string& s : subs) {
    std::vector<int64_t> shape;
    for (char ch : s) shape.push_back(extent[ch]);
    Add(c, shape, Values::kAny, rng);
  }
  return c;
}

Case Reshape(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  std::vector<int64_t> x = Shape(rng, U(rng, 1, 3), 1, 4);
  // A dim made of two factors, so that splitting it and merging around it both occur.
  const size_t at = static_cast<size_t>(U(rng, 0, static_cast<int64_t>(x.size()) - 1));
  const int64_t p = U(rng, 1, 3), q = U(rng, 1, 3);
  x[at] = p * q;
  Add(c, x, Values::kAny, rng);
  const auto nd = static_cast<int64_t>(x.size());
  if (op == "flatten") {
    const int64_t a = U(rng, 0, nd - 1);
    (void)c.attrs.Set("start_dim", a);
    (void)c.attrs.Set("end_dim", U(rng, a, nd - 1));
  } else if (op == "unflatten") {
    (void)c.attrs.Set("dim", static_cast<int64_t>(at));
    (void)c.attrs.Set("sizes", std::vector<int64_t>{p, q});
  } else {  // reshape, view: split dim `at` into (p, q), or merge it with its neighbour
    std::vector<int64_t> out;
    const bool merge = at + 1 < x.size() && U(rng, 0, 1) == 1;
    for (size_t d = 0; d < x.size(); ++d) {
      if (d == at && merge) {
        out.push_back(x[d] * x[d + 1]);
        ++d;
      } else if (d == at) {
        out.insert(out.end(), {p, q});
      } else {
        out.push_back(x[d]);
      }
    }
    if (U(rng, 0, 2) == 0)
      out[static_cast<size_t>(U(rng, 0, static_cast<int64_t>(out.size()) - 1))] = -1;
    (void)c.attrs.Set("shape", out);
  }
  return c;
}

Case DimMap(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  std::vector<int64_t> x = Shape(rng, U(rng, 1, 3), 1, 4);
  for (int64_t& e : x)
    if (U(rng, 0, 2) == 0) e = 1;
  const auto nd = static_cast<int64_t>(x.size());
  if (op == "transpose") {
    (void)c.attrs.Set("dim0", U(rng, 0, nd - 1));
    (void)c.attrs.Set("dim1", U(rng, 0, nd - 1));
  } else if (op == "permute") {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < nd; ++d) dims.push_back(d);
    std::shuffle(dims.begin(), dims.end(), rng);
    (void)c.attrs.Set("dims", dims);
  } else if (op == "squeeze" && U(rng, 0, 1)) {
    (void)c.attrs.Set("dims", std::vector<int64_t>{U(rng, 0, nd - 1)});
  } else if (op == "unsqueeze") {
    (void)c.attrs.Set("dim", U(rng, 0, nd));
  } else if (op == "expand") {
    std::vector<int64_t> out = x;
    for (int64_t& e : out)
      if (e == 1) e = U(rng, 1, 4);
    if (U(rng, 0, 1)) out.insert(out.begin(), U(rng, 1, 3));
    (void)c.attrs.Set("shape", out);
  }
  Add(c, x, Values::kAny, rng);
  return c;
}

Case Concat(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  std::vector<int64_t> x = Shape(rng, U(rng, 1, 3), 0, 4);
  const auto nd = static_cast<int64_t>(x.size());
  const int64_t dim = U(rng, 0, op == "stack" ? nd : nd - 1);
  (void)c.attrs.Set("dim", dim);
  if (op == "cat" || op == "stack") {
    for (int64_t k = U(rng, 1, 3); k > 0; --k) {
      if (op == "cat") x[static_cast<size_t>(dim)] = U(rng, 0, 4);
      Add(c, x, Values::kAny, rng);
    }
    return c;
  }
  const int64_t n = x[static_cast<size_t>(dim)];
  Add(c, x, Values::kAny, rng);
  if (op == "split") {
    if (U(rng, 0, 1)) {
      (void)c.attrs.Set("split_size", U(rng, 1, std::max<int64_t>(n, 1)));
    } else {
      const int64_t a = U(rng, 0, n);
      (void)c.attrs.Set("sizes", std::vector<int64_t>{a, n - a});
    }
  } else if (op == "chunk") {
    (void)c.attrs.Set("chunks", U(rng, 1, 3));
  } else {  // narrow, slice
    const int64_t start = U(rng, 0, n), length = U(rng, 0, n - start);
    (void)c.attrs.Set("start", start);
    (void)c.attrs.Set(op == "narrow" ? "length" : "end", op == "narrow" ? length : start + length);
  }
  return c;
}

Case Index(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  std::vector<int64_t> x = Shape(rng, U(rng, 1, 3), 1, 4);
  const auto nd = static_cast<int64_t>(x.size());
  const int64_t dim = U(rng, 0, nd - 1);
  (void)c.attrs.Set("dim", dim);
  Add(c, x, Values::kAny, rng);
  if (op == "index_select") {
    AddIndex(c, {U(rng, 0, 5)}, x[static_cast<size_t>(dim)], rng);
  } else {
    std::vector<int64_t> ix = x;
    for (size_t d = 0; d < ix.size(); ++d)
      ix[d] =
          static_cast<int64_t>(d) == dim ? U(rng, 0, 4) : U(rng, ix[d] > 1 ? ix[d] - 1 : 1, ix[d]);
    AddIndex(c, ix, x[static_cast<size_t>(dim)], rng);
  }
  return c;
}

Case Reduce(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  const std::vector<int64_t> x = Shape(rng, U(rng, 1, 3), op == "argmax" ? 1 : 0, 4);
  const auto nd = static_cast<int64_t>(x.size());
  Add(c, x, Values::kAny, rng);
  if (U(rng, 0, 3) > 0) {
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < nd; ++d)
      if (U(rng, 0, 1) || (op == "argmax" && dims.empty() && d == nd - 1)) dims.push_back(d);
    if (op == "argmax") dims.resize(1);
    if (!dims.empty()) (void)c.attrs.Set("dims", dims);
  }
  if (U(rng, 0, 1)) (void)c.attrs.Set("keepdim", true);
  c.tolerance = op == "mean" ? kFloatTolerance : 0;
  return c;
}

Case Norm(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, kFloatTolerance, {}};
  const std::vector<int64_t> x = Shape(rng, U(rng, 1, 3), 1, 4);
  const auto nd = static_cast<int64_t>(x.size());
  Add(c, x, Values::kAny, rng);
  if (op == "softmax" || op == "log_softmax") {
    (void)c.attrs.Set("dim", U(rng, 0, nd - 1));
  } else if (op == "dropout") {
    (void)c.attrs.Set("p", 0.25);
    (void)c.attrs.Set("seed", U(rng, 0, 1000));
    c.tolerance = 0;
  } else {  // layer_norm, rms_norm over the last `ndims` dims, with weight (and bias)
    const int64_t k = U(rng, 1, nd);
    (void)c.attrs.Set("ndims", k);
    const std::vector<int64_t> w(x.end() - k, x.end());
    for (int64_t extra = U(rng, 0, op == "layer_norm" ? 2 : 1); extra > 0; --extra)
      Add(c, w, Values::kAny, rng);
  }
  return c;
}

Case Embedding(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  if (op == "embedding") {
    const int64_t v = U(rng, 1, 6);
    Add(c, {v, U(rng, 1, 4)}, Values::kAny, rng);
    AddIndex(c, Shape(rng, U(rng, 1, 2), 0, 4), v, rng);
  } else {
    const int64_t n = U(rng, 1, 5), k = U(rng, 1, 6);
    Add(c, {n, k}, Values::kAny, rng);
    AddIndex(c, {n}, k, rng);
    const char* reductions[] = {"mean", "sum", "none"};
    (void)c.attrs.Set("reduction", std::string(reductions[U(rng, 0, 2)]));
    c.tolerance = kFloatTolerance;
  }
  return c;
}

Case Scan(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  const std::vector<int64_t> x = Shape(rng, U(rng, 1, 3), 1, 5);
  const auto nd = static_cast<int64_t>(x.size());
  const int64_t dim = U(rng, 0, nd - 1);
  Add(c, x, Values::kAny, rng);
  (void)c.attrs.Set("dim", dim);
  if (op == "topk") {
    (void)c.attrs.Set("k", U(rng, 0, x[static_cast<size_t>(dim)]));
    (void)c.attrs.Set("largest", U(rng, 0, 1) == 1);
  } else if (op == "sort") {
    (void)c.attrs.Set("descending", U(rng, 0, 1) == 1);
  }
  return c;
}

// A 0/1 mask of `shape`, never Partial.
void AddMask(Case& c, std::vector<int64_t> shape, Rng& rng) {
  AddIndex(c, std::move(shape), 2, rng);
  c.inputs.back().dtype = DType{kCodeBool, 8, 1};
}

Case Select(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  const std::vector<int64_t> base = Shape(rng, U(rng, 1, 3));
  if (op == "where") {
    AddMask(c, Broadcastable(base, rng), rng);
    Add(c, Broadcastable(base, rng), Values::kAny, rng);
    Add(c, base, Values::kAny, rng);
  } else {
    Add(c, base, Values::kAny, rng);
    AddMask(c, Broadcastable(base, rng), rng);
    (void)c.attrs.Set("value", static_cast<double>(U(rng, -5, 5)));
  }
  return c;
}

Case Attention(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, kFloatTolerance, {}};
  const int64_t b = U(rng, 1, 2), h = U(rng, 1, 3), lq = U(rng, 1, 4), e = U(rng, 1, 3);
  const bool causal = U(rng, 0, 1) == 1;
  const int64_t lk = causal ? lq : U(rng, 1, 4), ev = U(rng, 1, 3);
  Add(c, {b, h, lq, e}, Values::kAny, rng);
  Add(c, {b, h, lk, e}, Values::kAny, rng);
  Add(c, {b, h, lk, ev}, Values::kAny, rng);
  if (causal) (void)c.attrs.Set("is_causal", true);
  return c;
}

// The scientific plugin's operators (plugins/scientific).
Case Scientific(const std::string& op, Rng& rng) {
  Case c{op, {}, {}, {}, 0, {}};
  if (op == "spectral_mix") {
    const int64_t b = U(rng, 1, 3), i = U(rng, 1, 4), o = U(rng, 1, 4), m = U(rng, 1, 4);
    Add(c, {b, i, m}, Values::kAny, rng);
    Add(c, {i, o, m}, Values::kAny, rng);
    return c;
  }
  std::vector<int64_t> x = Shape(rng, U(rng, 1, 3), 1, 5);
  const auto nd = static_cast<int64_t>(x.size());
  if (op == "fft") {
    x.push_back(2);  // (re, im)
    (void)c.attrs.Set("dim", U(rng, 0, nd - 1));
    if (U(rng, 0, 1)) (void)c.attrs.Set("inverse", true);
    c.tolerance = kFloatTolerance;
  } else {
    (void)c.attrs.Set("dim", U(rng, 0, nd - 1));
    std::vector<int64_t> w;
    for (int64_t k = 2 * U(rng, 0, 2); k >= 0; --k) w.push_back(U(rng, -2, 2));
    (void)c.attrs.Set("weights", w);
  }
  Add(c, x, Values::kAny, rng);
  return c;
}

// PyTorch's names (plugins/aten): the target's case under the alias.
const std::map<std::string, std::string>& AtenTargets() {
  static const std::map<std::string, std::string> k = {
      {"aten.add.Tensor", "add"},
      {"aten.mul.Tensor", "mul"},
      {"aten.gelu.default", "gelu"},
      {"aten.mm.default", "mm"},
      {"aten.bmm.default", "bmm"},
      {"aten.linear.default", "linear"},
      {"aten.addmm.default", "addmm"},
      {"aten.einsum.default", "einsum"},
      {"aten.view.default", "view"},
      {"aten.permute.default", "permute"},
      {"aten.cat.default", "cat"},
      {"aten.slice.Tensor", "slice"},
      {"aten.gather.default", "gather"},
      {"aten.sum.dim_IntList", "sum"},
      {"aten._softmax.default", "softmax"},
      {"aten.embedding.default", "embedding"},
      {"aten.cumsum.default", "cumsum"},
      {"aten.where.self", "where"},
      {"aten.scaled_dot_product_attention.default", "scaled_dot_product_attention"},
  };
  return k;
}

}  // namespace

const std::vector<Family>& Families() {
  static const std::vector<Family> kFamilies = {
      {"pointwise",
       {"add", "sub", "mul", "div", "maximum", "minimum", "neg", "relu", "tanh", "sigmoid", "exp",
        "gelu", "abs", "sqrt", "log"}},
      {"matmul", {"matmul", "mm", "bmm", "linear", "addmm", "baddbmm", "einsum"}},
      {"view",
       {"reshape", "view", "flatten", "unflatten", "transpose", "permute", "squeeze", "unsqueeze",
        "expand", "contiguous"}},
      {"concat", {"cat", "stack", "split", "chunk", "narrow", "slice"}},
      {"index", {"index_select", "gather"}},
      {"reduction", {"sum", "mean", "prod", "max", "min", "amax", "amin", "argmax"}},
      {"norm", {"softmax", "log_softmax", "layer_norm", "rms_norm", "dropout"}},
      {"embedding", {"embedding", "cross_entropy"}},
      {"scan", {"cumsum", "sort", "topk"}},
      {"select", {"where", "masked_fill"}},
      {"attention", {"scaled_dot_product_attention", "sdpa"}},
      {"windowed",
       {"conv", "conv_backward_weight", "conv_transpose", "conv_transpose_backward_weight",
        "max_pool", "avg_pool", "pad", "interpolate", "neighborhood_attention", "offset_stencil"}},
      {"scientific", {"fft", "stencil", "spectral_mix"}, "scientific"},
      {"aten",
       [] {
         std::vector<std::string> names;
         for (const auto& [alias, target] : AtenTargets()) names.push_back(alias);
         return names;
       }(),
       "aten"},
  };
  return kFamilies;
}

Result<Case> MakeCase(const std::string& op, Rng& rng) {
  static const std::map<std::string, Generator> kGenerators = [] {
    std::map<std::string, Generator> g;
    for (const char* u : {"neg", "relu", "tanh", "sigmoid", "exp", "gelu", "abs", "sqrt", "log"})
      g[u] = Unary;
    for (const char* b : {"add", "sub", "mul", "div", "maximum", "minimum"}) g[b] = Binary;
    for (const char* m : {"matmul", "mm", "bmm"}) g[m] = Matmul;
    for (const char* p : {"linear", "addmm", "baddbmm"}) g[p] = Product;
    g["einsum"] = Einsum;
    for (const char* r : {"reshape", "view", "flatten", "unflatten"}) g[r] = Reshape;
    for (const char* d : {"transpose", "permute", "squeeze", "unsqueeze", "expand", "contiguous"})
      g[d] = DimMap;
    for (const char* k : {"cat", "stack", "split", "chunk", "narrow", "slice"}) g[k] = Concat;
    for (const char* i : {"index_select", "gather"}) g[i] = Index;
    for (const char* r : {"sum", "mean", "prod", "max", "min", "amax", "amin", "argmax"})
      g[r] = Reduce;
    for (const char* n : {"softmax", "log_softmax", "layer_norm", "rms_norm", "dropout"})
      g[n] = Norm;
    for (const char* e : {"embedding", "cross_entropy"}) g[e] = Embedding;
    for (const char* k : {"cumsum", "sort", "topk"}) g[k] = Scan;
    for (const char* w : {"where", "masked_fill"}) g[w] = Select;
    for (const char* a : {"scaled_dot_product_attention", "sdpa"}) g[a] = Attention;
    return g;
  }();
  if (auto alias = AtenTargets().find(op); alias != AtenTargets().end()) {
    auto c = MakeCase(alias->second, rng);
    if (c.ok()) c->op = op;
    return c;
  }
  if (op == "fft" || op == "stencil" || op == "spectral_mix") return Scientific(op, rng);
  if (auto c = WindowedCase(op, rng); c.ok()) return c;
  auto it = kGenerators.find(op);
  if (it == kGenerators.end())
    return InvalidArgument("rulecheck has no case generator for operator '" + op + "'");
  return it->second(op, rng);
}

}  // namespace weft::ops::check
