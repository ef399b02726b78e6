// The windowed rules on real processes (issue 23, "on real processes for a sample"): every
// rank draws the same random cases of the windowed family (ops/check/cases_windowed.cpp) and
// the same random input layouts on a mesh of the world (1-D, and 2-D when the world allows),
// enumerates the engine's strategies, and for each strategy without Partials runs the halo
// exchange through the library (weft_halo_plan_create from the strategy's halo, then
// weft_halo_exchange on float64 blocks) and the reference kernel on the padded blocks; its
// output blocks must equal the one-process result's. Exit 0 when every rank agrees, 1 with the
// first mismatch otherwise.
//
//   weftrun -n 4 --backend gloo windowed_ranks [cases]
#include <weft/weft.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ops/check/cases.hpp"
#include "ops/check/harness.hpp"
#include "ops/engine/engine.hpp"
#include "ops/rules/builtin.hpp"
#include "ops/rules/shape_util.hpp"

namespace {

using weft::ops::DenseTensor;
using weft::ops::StrategyPtr;
using weft::placement::Layout;

constexpr DLDataType kF64{kDLFloat, 64, 1};

struct World {
  weft_context_t* ctx = nullptr;
  int32_t rank = 0, size = 1;
};

std::string Fail(const std::string& what, weft_status_t s) {
  return what + ": " + weft_status_string(s) + ": " + weft_last_error();
}

// `l` as a C layout on `mesh` (the same mesh shape, world ranks in row-major order).
weft_status_t ToC(const Layout& l, weft_mesh_t* mesh, weft_layout_t** out) {
  std::vector<weft_placement_t> p;
  for (const auto& pl : l.placements()) {
    if (const auto* s = std::get_if<weft::placement::Shard>(&pl))
      p.push_back({WEFT_SHARD, s->dim, 0, 0});
    else
      p.push_back({WEFT_REPLICATE, 0, 0, 0});
  }
  std::vector<std::vector<int64_t>> sizes(static_cast<size_t>(l.ndim()));
  std::vector<const int64_t*> ptrs(sizes.size());
  std::vector<int64_t> counts(sizes.size());
  for (int32_t d = 0; d < l.ndim(); ++d) {
    sizes[d] = l.ResolvedSizes(d);
    ptrs[d] = sizes[d].data();
    counts[d] = static_cast<int64_t>(sizes[d].size());
  }
  return weft_layout_create_ragged(mesh, l.ndim(), l.shape().data(), kF64, p.data(), ptrs.data(),
                                   counts.data(), out);
}

// This rank's block of the global tensor `t` under `l`.
DenseTensor BlockOf(const DenseTensor& t, const Layout& l, int32_t rank,
                    std::vector<int64_t>* offset) {
  std::vector<int64_t> shape(static_cast<size_t>(l.ndim()));
  offset->assign(shape.size(), 0);
  l.LocalBlock(rank, shape.data(), offset->data());
  DenseTensor b{shape, {}};
  std::vector<int64_t> at(shape.size());
  weft::ops::shape::ForEach(shape, [&](const int64_t* i) {
    for (size_t d = 0; d < at.size(); ++d) at[d] = (*offset)[d] + i[d];
    b.values.push_back(t.values[static_cast<size_t>(weft::ops::shape::Offset(t.shape, at.data()))]);
  });
  return b;
}

// The padded block of `local` through the library's halo exchange; "" or what failed.
std::string Exchange(weft_mesh_t* mesh, const Layout& l,
                     const weft::placement::halo::HaloSpec& spec, DenseTensor& local,
                     std::vector<int64_t>* origin) {
  weft_layout_t* cl = nullptr;
  if (weft_status_t s = ToC(l, mesh, &cl); s != WEFT_OK) return Fail("layout", s);
  std::vector<weft_halo_dim_t> dims;
  for (const auto& d : spec.dims)
    dims.push_back({d.dim, static_cast<int32_t>(d.lo_rule), static_cast<int32_t>(d.hi_rule), 0,
                    d.lo, d.hi, d.pad_lo, d.pad_hi, d.windows.data()});
  weft_halo_desc_t desc = WEFT_HALO_DESC_INIT;
  desc.ndims = static_cast<int32_t>(dims.size());
  desc.dims = dims.data();
  desc.constant_value = spec.constant;
  weft_plan_t* plan = nullptr;
  weft_status_t s = weft_halo_plan_create(cl, &desc, nullptr, &plan);
  std::vector<int64_t> shape(local.shape.size());
  origin->assign(shape.size(), 0);
  if (s == WEFT_OK) s = weft_halo_padded_shape(plan, -1, shape.data(), origin->data());
  DenseTensor padded{shape, std::vector<double>(static_cast<size_t>(
                                std::max<int64_t>(1, weft::ops::shape::Count(shape))))};
  std::vector<int64_t> lshape = local.shape;
  if (local.values.empty()) local.values.push_back(0);  // a valid pointer for an empty block
  DLTensor in{local.values.data(),
              {kDLCPU, 0},
              static_cast<int32_t>(lshape.size()),
              kF64,
              lshape.data(),
              nullptr,
              0};
  DLTensor out{padded.values.data(),
               {kDLCPU, 0},
               static_cast<int32_t>(shape.size()),
               kF64,
               shape.data(),
               nullptr,
               0};
  if (s == WEFT_OK) s = weft_halo_exchange(plan, &in, &out, nullptr, nullptr, nullptr);
  weft_plan_destroy(plan);
  weft_layout_destroy(cl);
  if (s != WEFT_OK) return Fail("halo", s);
  padded.values.resize(static_cast<size_t>(weft::ops::shape::Count(shape)));
  local = std::move(padded);
  return "";
}

bool HasPartial(const StrategyPtr& s) {
  for (const auto* list : {&s->inputs, &s->outputs})
    for (const auto& l : *list)
      for (const auto& p : l->placements())
        if (std::holds_alternative<weft::placement::Partial>(p)) return true;
  return false;
}

// One strategy on this rank: "" when its outputs are the one-process result's blocks.
std::string RunStrategy(const World& w, weft_mesh_t* mesh, const weft::ops::OpDef& op,
                        const weft::ops::check::Case& c, const weft::ops::Strategy& s,
                        const std::vector<DenseTensor>& want) {
  std::vector<DenseTensor> blocks;
  std::vector<std::vector<int64_t>> offsets(c.values.size());
  for (size_t i = 0; i < c.values.size(); ++i) {
    blocks.push_back(BlockOf(c.values[i], *s.inputs[i], w.rank, &offsets[i]));
    if (i < s.halos.size() && !s.halos[i].dims.empty()) {
      const std::string e = Exchange(mesh, *s.inputs[i], s.halos[i], blocks[i], &offsets[i]);
      if (!e.empty()) return e;
    }
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const auto& l : s.outputs) {
    std::vector<int64_t> shape(static_cast<size_t>(l->ndim())), off(shape.size());
    l->LocalBlock(w.rank, shape.data(), off.data());
    shapes.push_back(shape);
  }
  weft::ops::KernelCall call;
  call.inputs = blocks;
  call.input_offsets = offsets;
  call.output_shapes = shapes;
  call.global_inputs = c.inputs;
  call.input_layouts = s.inputs;
  call.output_layouts = s.outputs;
  call.attrs = &c.attrs;
  call.rank = w.rank;
  call.halos = s.halos;
  std::vector<DenseTensor> got;
  if (weft::Status st = op.kernel(call, &got); !st.ok()) return "kernel: " + st.message();
  for (size_t o = 0; o < want.size(); ++o) {
    std::vector<int64_t> off;
    const DenseTensor mine = BlockOf(want[o], *s.outputs[o], w.rank, &off);
    const std::string diff = weft::ops::check::FirstDifference(got[o], mine, c.tolerance);
    if (!diff.empty()) return "output " + std::to_string(o) + ": " + diff;
  }
  return "";
}

// One random case of `op` on a mesh of shape `mshape`: every strategy without Partials run
// through the library's halo exchange. Returns the failures (the first described in *first).
int64_t RunCase(const World& w, weft::ops::Engine& engine, const weft::ops::OpDef& op,
                const std::vector<int64_t>& mshape, weft::ops::check::Rng& rng, int64_t* checked,
                int64_t* halos, std::string* first) {
  auto c = weft::ops::check::MakeCase(op.name, rng);
  weft_mesh_t* mesh = nullptr;
  weft_mesh_create(w.ctx, static_cast<int32_t>(mshape.size()), mshape.data(), nullptr, &mesh);
  weft::placement::Mesh::Spec ms;
  ms.shape = mshape;
  const auto abstract = *weft::placement::Mesh::Create(ms);
  std::vector<weft::placement::LayoutPtr> layouts;
  for (const auto& info : c->inputs)
    layouts.push_back(weft::ops::check::RandomLayout(abstract, info, false, rng));
  auto all = engine.Enumerate(op.name, layouts, c->attrs);
  int64_t failures = 0;
  if (!all.ok()) {
    *first = op.name + ": " + all.status().message();
    failures = 1;
  } else {
    // The one-process result: the kernel on the global inputs.
    std::vector<std::vector<int64_t>> zero, out_shapes;
    for (const auto& v : c->values) zero.emplace_back(v.shape.size(), 0);
    for (const auto& l : (*all)[0]->outputs) out_shapes.push_back(l->shape());
    weft::ops::KernelCall whole;
    whole.inputs = c->values;
    whole.input_offsets = zero;
    whole.output_shapes = out_shapes;
    whole.global_inputs = c->inputs;
    whole.attrs = &c->attrs;
    std::vector<DenseTensor> want;
    (void)op.kernel(whole, &want);
    for (const StrategyPtr& s : *all) {
      if (HasPartial(s)) continue;
      for (const auto& h : s->halos) *halos += h.dims.empty() ? 0 : 1;
      const std::string e = RunStrategy(w, mesh, op, *c, *s, want);
      ++*checked;
      if (!e.empty() && failures++ == 0) *first = op.name + " " + s->Describe() + ": " + e;
    }
  }
  weft_mesh_destroy(mesh);
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  World w;
  if (weft_context_create(nullptr, &w.ctx) != WEFT_OK) {
    std::fprintf(stderr, "windowed_ranks: %s\n", weft_last_error());
    return 1;
  }
  weft_context_rank(w.ctx, &w.rank);
  weft_context_world_size(w.ctx, &w.size);
  const int64_t cases = argc > 1 ? std::atoll(argv[1]) : 27;
  weft::ops::Registry reg;
  (void)weft::ops::RegisterBuiltins(reg);
  weft::ops::Engine engine(reg);
  std::vector<std::vector<int64_t>> shapes{{w.size}};
  if (w.size == 4) shapes.push_back({2, 2});
  const auto& ops = weft::ops::check::Families();
  std::vector<std::string> windowed;
  for (const auto& f : ops)
    if (f.name == "windowed") windowed = f.ops;
  weft::ops::check::Rng rng(20261128);
  int64_t failures = 0, checked = 0, halos = 0;
  std::string first;
  for (int64_t k = 0; k < cases && failures == 0; ++k) {
    const std::string& name = windowed[static_cast<size_t>(k) % windowed.size()];
    failures += RunCase(w, engine, *reg.Find(name), shapes[static_cast<size_t>(k) % shapes.size()],
                        rng, &checked, &halos, &first);
    // Every rank stops after the same case: a rank that stopped alone would leave the others
    // waiting in their next exchange.
    int64_t any = failures, count = 1;
    DLTensor f{&any, {kDLCPU, 0}, 1, {kDLInt, 64, 1}, &count, nullptr, 0};
    weft_allreduce(w.ctx, nullptr, 0, &f, &f, WEFT_REDUCE_SUM, nullptr, nullptr, nullptr);
    if (any > 0 && failures == 0) failures = -1;  // another rank failed: stop, count nothing
  }
  if (failures < 0) failures = 0;
  int64_t totals[3] = {failures, checked, halos};
  int64_t three = 3;
  DLTensor t{totals, {kDLCPU, 0}, 1, {kDLInt, 64, 1}, &three, nullptr, 0};
  weft_allreduce(w.ctx, nullptr, 0, &t, &t, WEFT_REDUCE_SUM, nullptr, nullptr, nullptr);
  if (!first.empty()) std::fprintf(stderr, "windowed_ranks: rank %d: %s\n", w.rank, first.c_str());
  if (w.rank == 0)
    std::printf(
        "windowed_ranks: %d ranks, %lld strategy runs (summed over ranks), %lld halo "
        "exchanges, %lld failures\n",
        w.size, static_cast<long long>(totals[1]), static_cast<long long>(totals[2]),
        static_cast<long long>(totals[0]));
  std::fflush(stdout);
  weft_barrier(w.ctx, nullptr, 0, nullptr, nullptr, nullptr);
  weft_context_destroy(w.ctx);
  return totals[0] == 0 ? 0 : 1;
}
