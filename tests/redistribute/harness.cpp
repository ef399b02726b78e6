#include "harness.hpp"
#include "tests/support/device_buffers.hpp"

#include <cstring>
#include <sstream>

namespace redist {
namespace {

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// The logical value at global linear index L in execution `iter`.
double Value(const Type& t, int64_t L, int iter) {
  const int64_t b = (L * 7 + 3 + iter * 11) % 61;
  return t.is_bool ? double(b % 2) : double(10 + b);
}

// This rank's term (member p of P along the Partial dims) of a Partial(op) value v: the
// group's reduction of the terms is v exactly.
double Term(const Type& t, int32_t op, int64_t p, int64_t P, int64_t L, double v) {
  switch (op) {
    case WEFT_REDUCE_SUM: {
      if (p > 0) return double((p * 3 + L) % 5);
      double rest = 0;
      for (int64_t q = 1; q < P; ++q) rest += double((q * 3 + L) % 5);
      return v - rest;  // integers wrap back when the terms are summed
    }
    case WEFT_REDUCE_PROD:
      return p == 0 ? v : 1;
    case WEFT_REDUCE_MAX:
      return p == L % P ? v : (t.is_bool ? 0 : v - 1 - double(p % 3));
    case WEFT_REDUCE_MIN:
      return p == L % P ? v : (t.is_bool ? 1 : v + 1 + double(p % 3));
    default:
      return v;  // avg of equal terms
  }
}

// Calls fn(local index, global linear index) for every element of a block.
template <class Fn>
void ForEach(const std::vector<int64_t>& shape, const std::vector<int64_t>& offset,
             const std::vector<int64_t>& global, Fn&& fn) {
  const size_t nd = shape.size();
  if (Product(shape) == 0) return;
  std::vector<int64_t> idx(nd, 0);
  while (true) {
    int64_t L = 0;
    for (size_t d = 0; d < nd; ++d) L = L * global[d] + offset[d] + idx[d];
    fn(idx, L);
    size_t d = nd;
    while (d > 0) {
      --d;
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (nd == 0) return;
  }
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

}  // namespace

Local::Local(const Layout& layout, const Type& type, int32_t rank, bool transposed,
             int64_t byte_offset) {
  int32_t nd = 0;
  weft_layout_ndim(layout.l, &nd);
  shape.resize(nd);
  offset.resize(nd);
  strides.resize(nd);
  weft_layout_local_shape(layout.l, rank, shape.data(), offset.data());
  int64_t s = 1;
  for (int32_t d = transposed ? 0 : nd - 1; transposed ? d < nd : d >= 0;
       d += transposed ? 1 : -1) {
    strides[d] = s;
    s *= shape[d];
  }
  mem.assign(static_cast<size_t>(numel() * type.bytes() + byte_offset), char(0x5a));
  t = DLTensor{mem.data(),     weft::test::BufferDevice(),        nd, type.dl, shape.data(),
               strides.data(), static_cast<uint64_t>(byte_offset)};
}

Local::~Local() { weft::test::SyncDevice(); }

char* Local::At(const std::vector<int64_t>& idx) {
  int64_t e = 0;
  for (size_t d = 0; d < idx.size(); ++d) e += idx[d] * strides[d];
  return mem.data() + t.byte_offset + e * (t.dtype.bits / 8);
}

int64_t Local::numel() const { return Product(shape); }

const Type& TypeNamed(const std::string& name) {
  for (const Type& t : conformance::AllTypes())
    if (name == t.name) return t;
  ADD_FAILURE() << "no type " << name;
  return conformance::AllTypes()[0];
}

std::string PairSpec::Name() const {
  std::ostringstream os;
  os << type << " [";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? "x" : "") << shape[i];
  os << "] on mesh [";
  for (size_t i = 0; i < mesh.size(); ++i) os << (i ? "x" : "") << mesh[i];
  os << "] " << Join(src) << (src_splits.empty() ? "" : "(ragged)") << " -> " << Join(dst)
     << (dst_splits.empty() ? "" : "(ragged)");
  return os.str();
}

void Fill(Local& in, const Layout& layout, const Type& t, const Mesh& mesh,
          const std::vector<int64_t>& global, int iter) {
  World& w = TheWorld();
  // Member index over the Partial mesh dims (all with one op in these tests).
  std::vector<int64_t> mshape(layout.placements.size()), coord(layout.placements.size());
  int32_t nd = 0;
  weft_mesh_ndim(mesh.m, &nd);
  weft_mesh_shape(mesh.m, mshape.data());
  weft_mesh_coordinate(mesh.m, w.rank, coord.data());
  int64_t p = 0, P = 1;
  int32_t op = -1;
  for (size_t m = 0; m < layout.placements.size(); ++m) {
    const weft_placement_t pl = Parse(layout.placements[m]);
    if (pl.kind != WEFT_PARTIAL) continue;
    op = pl.reduce_op;
    p = p * mshape[m] + coord[m];
    P *= mshape[m];
  }
  ForEach(in.shape, in.offset, global, [&](const std::vector<int64_t>& idx, int64_t L) {
    const double v = Value(t, L, iter);
    conformance::Encode(t, in.At(idx), op < 0 ? v : Term(t, op, p, P, L, v));
  });
}

void Check(Local& out, const Type& t, const std::vector<int64_t>& global, int iter,
           const std::string& what) {
  weft::test::SyncDevice();  // device buffers: what was enqueued has run
  int64_t bad = 0;
  ForEach(out.shape, out.offset, global, [&](const std::vector<int64_t>& idx, int64_t L) {
    const std::vector<char> want = conformance::EncodeOne(t, Value(t, L, iter));
    if (std::memcmp(want.data(), out.At(idx), want.size()) != 0 && bad++ < 3)
      ADD_FAILURE() << what << ": rank " << TheWorld().rank << " element " << L << " wrong";
  });
  EXPECT_EQ(bad, 0) << what;
}

void RunPair(const PairSpec& spec) {
  World& w = TheWorld();
  const std::string what = spec.Name();
  SCOPED_TRACE(what);
  const Type& t = TypeNamed(spec.type);
  Mesh mesh(spec.mesh);
  Layout src(mesh, spec.shape, t.dl, spec.src, spec.src_splits);
  Layout dst(mesh, spec.shape, t.dl, spec.dst, spec.dst_splits);
  ASSERT_EQ(src.status, WEFT_OK) << weft_last_error();
  ASSERT_EQ(dst.status, WEFT_OK) << weft_last_error();
  Plan plan;
  if (!spec.one_shot)
    WEFT_OK_OR_FAIL(weft_redistribute_plan_create(src.l, dst.l, nullptr, &plan.p));
  for (int iter = 0; iter < spec.repeats; ++iter) {
    Local in(src, t, w.rank, spec.strided_in, spec.strided_in ? 8 : 0);
    Local out(dst, t, w.rank, spec.strided_out, spec.strided_out ? 16 : 0);
    Fill(in, src, t, mesh, spec.shape, iter);
    weft_work_t* work = nullptr;
    weft_work_t** wp = spec.async ? &work : nullptr;
    if (spec.one_shot)
      WEFT_OK_OR_FAIL(weft_redistribute(src.l, &in.t, dst.l, &out.t, nullptr, nullptr, wp));
    else
      WEFT_OK_OR_FAIL(weft_plan_execute(plan.p, &in.t, &out.t, nullptr, nullptr, wp));
    if (work) {
      WEFT_OK_OR_FAIL(weft_work_wait(work, -1));
      WEFT_OK_OR_FAIL(weft_work_release(work));
    }
    weft::test::SyncDevice();  // device buffers: "complete" meant enqueued
    bool partial = false;
    std::vector<std::string> reduced = spec.dst;
    for (auto& p : reduced)
      if (p[0] == 'P') p = "R", partial = true;
    if (!partial) {
      Check(out, t, spec.shape, iter, what);
      continue;
    }
    // A Partial destination holds terms: reduce them (P -> R) and check the logical value.
    Layout full(mesh, spec.shape, t.dl, reduced, spec.dst_splits);
    ASSERT_EQ(full.status, WEFT_OK) << weft_last_error();
    Local back(full, t, w.rank);
    WEFT_OK_OR_FAIL(weft_redistribute(dst.l, &out.t, full.l, &back.t, nullptr, nullptr, nullptr));
    weft::test::SyncDevice();
    Check(back, t, spec.shape, iter, what + " (reduced)");
  }
}

}  // namespace redist
