#include "check.hpp"
#include "tests/support/device_buffers.hpp"

#include <cstring>
#include <sstream>

namespace halo {
namespace {

std::string Join(const std::vector<int64_t>& v, const char* sep = "x") {
  std::ostringstream os;
  for (size_t i = 0; i < v.size(); ++i) os << (i ? sep : "") << v[i];
  return os.str();
}

std::vector<int64_t> Add(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> r = a;
  for (size_t i = 0; i < r.size(); ++i) r[i] += b[i];
  return r;
}

std::vector<char> Bytes(const Type& t, bool nan_payload, double v) {
  std::vector<char> b(static_cast<size_t>(t.bytes()));
  EncodeValue(t, nan_payload, b.data(), v);
  return b;
}

uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

}  // namespace

std::string Case::Name() const {
  std::ostringstream os;
  os << type << " [" << Join(shape) << "] on mesh [" << Join(mesh) << "] ";
  if (!mesh_ranks.empty()) {
    std::vector<int64_t> r(mesh_ranks.begin(), mesh_ranks.end());
    os << "ranks {" << Join(r, ",") << "} ";
  }
  for (const auto& p : placements) os << p << " ";
  for (size_t d = 0; d < splits.size(); ++d)
    if (!splits[d].empty()) os << "split" << d << "={" << Join(splits[d], ",") << "} ";
  os << halo.Describe();
  if (local_style != Style::kRowMajor || padded_style != Style::kRowMajor)
    os << " styles " << int(local_style) << "/" << int(padded_style);
  return os.str();
}

std::unique_ptr<Setup> MakeSetup(const Case& c, bool expect_ok) {
  auto s = std::make_unique<Setup>();
  s->c = c;
  s->type = &TypeNamed(c.type);
  s->mesh = std::make_unique<Mesh>(c.mesh, c.mesh_ranks);
  s->layout = std::make_unique<Layout>(*s->mesh, c.shape, s->type->dl, c.placements, c.splits);
  if (s->layout->status != WEFT_OK) {
    s->status = s->layout->status;
    return s;
  }
  std::vector<weft_halo_dim_t> dims;
  const weft_halo_desc_t desc = MakeDesc(c.halo, &dims);
  s->status = weft_halo_plan_create(s->layout->l, &desc, nullptr, &s->plan.p);
  if (expect_ok) {
    EXPECT_EQ(s->status, WEFT_OK) << c.Name() << ": " << weft_last_error();
  }
  s->geo = MakeGeometry(s->mesh->m, s->layout->l, c.halo);
  s->me = s->geo.PositionOf(TheWorld().rank);
  return s;
}

DataFn FormulaData(const Geometry& geo) {
  return [&geo](int32_t r, const std::vector<int64_t>& g) {
    const int64_t l = LinearIndex(geo.global, g);
    return double(1 + (l * 7 + 3) % 239) + 300.0 * double(geo.PartialIndex(r));
  };
}

DataFn SmallGrad(uint64_t salt) {
  return [salt](int32_t r, const std::vector<int64_t>& g) {
    uint64_t h = Mix(salt + 0x9e3779b97f4a7c15ull * uint64_t(r + 1));
    for (int64_t x : g) h = Mix(h ^ uint64_t(x + 1000));
    return double(1 + h % 3);
  };
}

void CheckWindows(Setup& s) {
  const size_t nd = s.c.shape.size();
  for (int32_t r = 0; r < s.geo.size(); ++r) {
    std::vector<int64_t> shape(nd, -1), origin(nd, -1);
    // The rank argument is a world rank (that of mesh position r).
    const int32_t world = s.geo.ranks[static_cast<size_t>(r)];
    ASSERT_EQ(weft_halo_padded_shape(s.plan.p, world, shape.data(), origin.data()), WEFT_OK)
        << weft_last_error();
    const Box& w = s.geo.window[static_cast<size_t>(r)];
    EXPECT_EQ(shape, w.Extents()) << "padded shape of rank " << world << " | " << s.c.Name();
    EXPECT_EQ(origin, w.begin) << "padded origin of rank " << world << " | " << s.c.Name();
  }
  std::vector<int64_t> mine(nd, -1);
  ASSERT_EQ(weft_halo_padded_shape(s.plan.p, -1, mine.data(), nullptr), WEFT_OK);
  EXPECT_EQ(mine, s.Window().Extents()) << "rank -1";
}

std::unique_ptr<Block> RunExchange(Setup& s, const DataFn& data, bool inplace) {
  const Type& t = *s.type;
  Block local(s.Owned().Extents(), t, s.c.local_style);
  ForEachIndex(local.shape, [&](const std::vector<int64_t>& i) {
    EncodeValue(t, s.c.nan_payload, local.At(i), data(s.me, Add(s.Owned().begin, i)));
  });
  const weft::test::Buffer<char> before = local.mem;
  auto padded = std::make_unique<Block>(s.Window().Extents(), t, s.c.padded_style);
  ForEachIndex(padded->shape, [&](const std::vector<int64_t>& i) {
    const std::vector<int64_t> g = Add(s.Window().begin, i);
    if (inplace && s.Owned().Contains(g))
      EncodeValue(t, s.c.nan_payload, padded->At(i), data(s.me, g));
    else
      conformance::Encode(t, padded->At(i), kSentinel);
  });
  const weft_status_t st =
      inplace ? weft_halo_exchange_inplace(s.plan.p, &padded->t, nullptr, nullptr, nullptr)
              : weft_halo_exchange(s.plan.p, &local.t, &padded->t, nullptr, nullptr, nullptr);
  weft::test::SyncDevice();  // device buffers: "complete" meant enqueued
  EXPECT_EQ(st, WEFT_OK) << (inplace ? "in-place " : "") << "exchange: " << weft_last_error()
                         << " | " << s.c.Name();
  EXPECT_TRUE(local.mem == before) << "exchange modified its input | " << s.c.Name();
  EXPECT_EQ(padded->DamagedGuardBytes(), 0) << "exchange wrote outside padded | " << s.c.Name();
  return padded;
}

void CheckPadded(Setup& s, Block& padded, const DataFn& data, bool inplace) {
  weft::test::SyncDevice();  // device buffers: what was enqueued has run
  const Type& t = *s.type;
  int64_t bad = 0;
  ForEachIndex(padded.shape, [&](const std::vector<int64_t>& i) {
    const std::vector<int64_t> g = Add(s.Window().begin, i);
    const Cell c = ExpectedCell(s.geo, s.me, g);
    std::vector<char> want;
    const char* what = "data";
    if (c.kind == CellKind::kData) {
      want = Bytes(t, s.c.nan_payload, data(s.me, c.src));
    } else if (c.kind == CellKind::kConstant) {
      want = Bytes(t, false, s.geo.constant);
      what = "constant";
    } else {
      want = Bytes(t, false, inplace ? kSentinel : 0.0);
      what = inplace ? "untouched star corner" : "zeroed star corner";
    }
    if (std::memcmp(want.data(), padded.At(i), want.size()) == 0) return;
    if (bad++ < 4) {
      std::vector<char> got(padded.At(i), padded.At(i) + want.size());
      std::ostringstream os;
      os << "position " << s.me << (inplace ? " in-place" : "") << " padded cell g=("
         << Join(g, ",") << ") expected " << what;
      if (c.kind == CellKind::kData) os << " from (" << Join(c.src, ",") << ")";
      if (t.dl.code == kDLFloat && t.dl.bits == 64 && !s.c.nan_payload)
        os << " = " << DecodeF64(want.data()) << ", got " << DecodeF64(got.data());
      ADD_FAILURE() << os.str() << " | " << s.c.Name();
    }
  });
  EXPECT_EQ(bad, 0) << "wrong padded cells on position " << s.me << " | " << s.c.Name();
}

void ExchangeAndCheck(Setup& s, const DataFn& data, bool inplace) {
  auto padded = RunExchange(s, data, inplace);
  CheckPadded(s, *padded, data, inplace);
}

std::unique_ptr<Block> RunAccumulate(Setup& s, const DataFn& y, int32_t add, const DataFn& z) {
  const Type& t = *s.type;
  Block grad_in(s.Window().Extents(), t, s.c.padded_style);
  ForEachIndex(grad_in.shape, [&](const std::vector<int64_t>& i) {
    conformance::Encode(t, grad_in.At(i), y(s.me, Add(s.Window().begin, i)));
  });
  const weft::test::Buffer<char> before = grad_in.mem;
  auto out = std::make_unique<Block>(s.Owned().Extents(), t, s.c.local_style);
  ForEachIndex(out->shape, [&](const std::vector<int64_t>& i) {
    conformance::Encode(t, out->At(i), add ? z(s.me, Add(s.Owned().begin, i)) : kSentinel);
  });
  const weft_status_t st =
      weft_halo_accumulate(s.plan.p, &grad_in.t, &out->t, add, nullptr, nullptr, nullptr);
  weft::test::SyncDevice();
  EXPECT_EQ(st, WEFT_OK) << "accumulate(add=" << add << "): " << weft_last_error() << " | "
                         << s.c.Name();
  EXPECT_TRUE(grad_in.mem == before) << "accumulate modified its input | " << s.c.Name();
  EXPECT_EQ(out->DamagedGuardBytes(), 0) << "accumulate wrote outside local | " << s.c.Name();
  return out;
}

std::vector<double> ExpectedGrad(const Setup& s, const DataFn& y, int32_t add, const DataFn& z) {
  const Box& own = s.Owned();
  const std::vector<int64_t> ext = own.Extents();
  std::vector<double> want;
  ForEachIndex(ext, [&](const std::vector<int64_t>& i) {
    want.push_back(add ? z(s.me, Add(own.begin, i)) : 0.0);
  });
  for (int32_t r = 0; r < s.geo.size(); ++r) {
    if (!s.geo.SameGroup(r, s.me)) continue;
    const Box& w = s.geo.window[static_cast<size_t>(r)];
    ForEachIndex(w.Extents(), [&](const std::vector<int64_t>& i) {
      const std::vector<int64_t> g = Add(w.begin, i);
      const Cell c = ExpectedCell(s.geo, r, g);
      if (c.kind != CellKind::kData || !own.Contains(c.src)) return;
      int64_t l = 0;
      for (size_t d = 0; d < ext.size(); ++d) l = l * ext[d] + c.src[d] - own.begin[d];
      want[static_cast<size_t>(l)] += y(r, g);
    });
  }
  return want;
}

void CheckGrad(Setup& s, Block& grad, const DataFn& y, int32_t add, const DataFn& z) {
  weft::test::SyncDevice();
  const std::vector<double> want = ExpectedGrad(s, y, add, z);
  const Type& t = *s.type;
  int64_t bad = 0;
  size_t l = 0;
  ForEachIndex(grad.shape, [&](const std::vector<int64_t>& i) {
    const std::vector<char> w = Bytes(t, false, want[l++]);
    if (std::memcmp(w.data(), grad.At(i), w.size()) == 0) return;
    if (bad++ < 4) {
      std::ostringstream os;
      os << "position " << s.me << " accumulate(add=" << add << ") element ("
         << Join(Add(s.Owned().begin, i), ",") << ") expected " << want[l - 1];
      if (t.dl.code == kDLFloat && t.dl.bits == 64) os << ", got " << DecodeF64(grad.At(i));
      ADD_FAILURE() << os.str() << " | " << s.c.Name();
    }
  });
  EXPECT_EQ(bad, 0) << "wrong gradient elements on position " << s.me << " | " << s.c.Name();
}

void AccumulateAndCheck(Setup& s, const DataFn& y, int32_t add, const DataFn& z) {
  auto grad = RunAccumulate(s, y, add, z);
  CheckGrad(s, *grad, y, add, z);
}

}  // namespace halo
