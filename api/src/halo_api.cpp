// extern "C" layer for halo plans: create (descriptor checks) and the padded shapes.
// Executions: halo_exec.cpp.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "api/src/guard.hpp"
#include "api/src/handles.hpp"
#include "api/src/plan_handle.hpp"
#include "placement/halo/exec/halo_runnable.hpp"

using weft::InvalidArgument;
using weft::Status;
using weft::api::Guard;
namespace halo = weft::placement::halo;

namespace {

std::string Str(int64_t v) { return std::to_string(v); }

constexpr int64_t kMaxDepth = int64_t{1} << 56;  // lo, hi, pad_lo, pad_hi (weft_halo_dim_t)

// lo, hi, pad_lo and pad_hi (the limits weft_halo_dim_t documents): window bounds are int64
// row numbers from -pad_lo to N + pad_hi, computed as an owned range's ends minus lo, plus hi,
// clamped to the padding. Each value is at most 2^56, so that their sum with an extent (below
// 2^63) is exact in 64 bits; then that sum must stay below 2^63, so that every bound is exact.
Status CheckDepths(const weft_halo_dim_t& d, int64_t extent, const std::string& at) {
  uint64_t sum = static_cast<uint64_t>(extent);
  for (const auto& [v, n] :
       {std::pair{d.lo, "lo"}, {d.hi, "hi"}, {d.pad_lo, "pad_lo"}, {d.pad_hi, "pad_hi"}}) {
    if (v < 0) return InvalidArgument(at + "." + n + " is " + Str(v) + " but must be >= 0");
    if (v > kMaxDepth)
      return InvalidArgument(at + "." + n + " is " + Str(v) + " but must be at most 2^56 (" +
                             Str(kMaxDepth) + "): window bounds are 64-bit row numbers");
    sum += static_cast<uint64_t>(v);
  }
  if (sum > static_cast<uint64_t>(INT64_MAX))
    return InvalidArgument(at + ": the extent of tensor dim " + Str(d.dim) + " (" + Str(extent) +
                           ") plus lo, hi, pad_lo and pad_hi is " + std::to_string(sum) +
                           " but must be below 2^63: window bounds are 64-bit row numbers");
  return Status::Ok();
}

// Every window lies inside the padded global box (the layout's shape with pad_lo and pad_hi
// added to the windowed dims): its bytes must fit in int64, as every buffer's must.
Status CheckPaddedSize(const halo::HaloSpec& s, const weft::placement::Layout& l) {
  std::vector<int64_t> padded = l.shape();
  for (const halo::DimSpec& d : s.dims)
    padded[static_cast<size_t>(d.dim)] += d.pad_lo + d.pad_hi;  // exact: CheckDepths
  int64_t bytes = weft::ItemSize(l.dtype());
  for (int64_t extent : padded)
    if (__builtin_mul_overflow(bytes, extent, &bytes))
      return InvalidArgument(
          "desc: the padded tensor (the layout's shape with pad_lo and pad_hi "
          "added) would hold more than 2^63 - 1 bytes");
  return Status::Ok();
}

// The C descriptor as C++ values, every field checked (the same verdict on every rank).
weft::Result<halo::HaloSpec> ToSpec(const weft_halo_desc_t* desc,
                                    const weft::placement::Layout& l) {
  WEFT_RETURN_IF_ERROR(
      weft::api::CheckStructSize(desc, sizeof(*desc), sizeof(weft_halo_desc_t), "desc"));
  halo::HaloSpec s;
  if (desc->ndims < 1 || desc->ndims > l.ndim())
    return InvalidArgument("desc->ndims is " + Str(desc->ndims) + " but must be in [1, " +
                           Str(l.ndim()) + "] (the layout's dims)");
  if (!desc->dims) return InvalidArgument("desc->dims is NULL");
  if (desc->stencil != WEFT_STENCIL_BOX && desc->stencil != WEFT_STENCIL_STAR)
    return InvalidArgument("desc->stencil is " + Str(desc->stencil) +
                           " but must be WEFT_STENCIL_BOX or WEFT_STENCIL_STAR");
  if (desc->transport < WEFT_HALO_TRANSPORT_AUTO || desc->transport > WEFT_HALO_TRANSPORT_NEIGHBOR)
    return InvalidArgument("desc->transport is " + Str(desc->transport) +
                           " but must be a WEFT_HALO_TRANSPORT_* value");
  if (desc->reserved != 0)
    return InvalidArgument("desc->reserved is " + Str(desc->reserved) + " but must be 0");
  s.stencil = static_cast<halo::Stencil>(desc->stencil);
  s.transport = static_cast<halo::Transport>(desc->transport);
  s.deterministic = desc->deterministic != 0;
  s.constant = desc->constant_value;
  const int64_t mesh_size = l.mesh().size();
  for (int32_t i = 0; i < desc->ndims; ++i) {
    const weft_halo_dim_t& d = desc->dims[i];
    const std::string at = "desc->dims[" + Str(i) + "]";
    if (d.dim < 0 || d.dim >= l.ndim())
      return InvalidArgument(at + ".dim is " + Str(d.dim) + " but the layout has " + Str(l.ndim()) +
                             " dims");
    for (int32_t j = 0; j < i; ++j)
      if (desc->dims[j].dim == d.dim)
        return InvalidArgument(at + ".dim is " + Str(d.dim) + ", which desc->dims[" + Str(j) +
                               "] already names");
    for (const auto& [v, n] :
         {std::pair{d.boundary_lo, "boundary_lo"}, {d.boundary_hi, "boundary_hi"}})
      if (v < WEFT_BOUNDARY_NONE || v > WEFT_BOUNDARY_PERIODIC)
        return InvalidArgument(at + "." + n + " is " + Str(v) +
                               " but must be a WEFT_BOUNDARY_* value");
    if (d.reserved != 0)
      return InvalidArgument(at + ".reserved is " + Str(d.reserved) + " but must be 0");
    WEFT_RETURN_IF_ERROR(CheckDepths(d, l.shape()[d.dim], at));
    halo::DimSpec ds;
    ds.dim = d.dim;
    ds.lo_rule = static_cast<halo::Boundary>(d.boundary_lo);
    ds.hi_rule = static_cast<halo::Boundary>(d.boundary_hi);
    ds.lo = d.lo;
    ds.hi = d.hi;
    ds.pad_lo = d.pad_lo;
    ds.pad_hi = d.pad_hi;
    if (d.windows) ds.windows.assign(d.windows, d.windows + 2 * mesh_size);
    s.dims.push_back(std::move(ds));
  }
  std::sort(s.dims.begin(), s.dims.end(),
            [](const halo::DimSpec& a, const halo::DimSpec& b) { return a.dim < b.dim; });
  WEFT_RETURN_IF_ERROR(CheckPaddedSize(s, l));
  return s;
}

Status CreateHalo(const weft_layout_t* layout, const weft_halo_desc_t* desc,
                  const weft_plan_options_t* opts, weft_plan_t** plan) {
  WEFT_REQUIRE(plan);
  WEFT_USE(l, layout);
  WEFT_REQUIRE(desc);
  WEFT_ASSIGN_OR_RETURN(int32_t rank, weft::api::PlanRank(*l->layout, opts, "layout"));
  WEFT_ASSIGN_OR_RETURN(halo::HaloSpec spec, ToSpec(desc, *l->layout));
  WEFT_ASSIGN_OR_RETURN(auto p, halo::HaloPlan::Create(l->layout, std::move(spec), rank));
  auto runner = weft::api::NewRunner(std::make_shared<const halo::HaloRunnable>(std::move(p)));
  return weft::api::PublishTo(
      std::make_unique<weft::api::PlanObject>(weft::api::PlanObject{std::move(runner)}), plan);
}

Status PaddedShape(const weft_plan_t* plan, int32_t rank, int64_t* shape, int64_t* origin) {
  WEFT_USE(obj, plan);
  const auto* h = dynamic_cast<const halo::HaloRunnable*>(obj->runner.shared->exec.get());
  if (!h) return InvalidArgument("plan is a redistribute plan, not a halo plan");
  const halo::HaloPlan& p = h->plan();
  if (rank == -1) rank = p.rank();
  weft::placement::Coord c{};
  if (rank < 0 || !p.layout().mesh().Coordinate(rank, c.data()))
    return InvalidArgument("rank " + Str(rank) + " is not in the plan's mesh");
  const weft::placement::planner::Box w = p.geometry().Window(c.data());
  for (int32_t d = 0; d < w.ndim; ++d) {
    if (shape) shape[d] = w.shape[d];
    if (origin) origin[d] = w.offset[d];
  }
  return Status::Ok();
}

}  // namespace

extern "C" {

weft_status_t weft_halo_plan_create(const weft_layout_t* layout, const weft_halo_desc_t* desc,
                                    const weft_plan_options_t* opts, weft_plan_t** plan) {
  return Guard(__func__, [&] { return CreateHalo(layout, desc, opts, plan); });
}

weft_status_t weft_halo_padded_shape(const weft_plan_t* plan, int32_t rank, int64_t* shape,
                                     int64_t* origin) {
  return Guard(__func__, [&] { return PaddedShape(plan, rank, shape, origin); });
}

}  // extern "C"
