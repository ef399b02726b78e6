// extern "C" layer for weft_strategy_input_halo: a windowed operator's halo per input, as the
// descriptor weft_halo_plan_create takes.
#include <memory>
#include <string>
#include <utility>

#include "api/src/guard.hpp"
#include "api/src/rules_object.hpp"
#include "weft/rules.h"

namespace weft::api {

std::unique_ptr<StrategyObject> MakeStrategyObject(ops::StrategyPtr s) {
  auto obj = std::make_unique<StrategyObject>();
  for (const placement::halo::HaloSpec& spec : s->halos) {
    std::vector<weft_halo_dim_t> dims;
    for (const placement::halo::DimSpec& d : spec.dims)
      dims.push_back({d.dim, static_cast<int32_t>(d.lo_rule), static_cast<int32_t>(d.hi_rule), 0,
                      d.lo, d.hi, d.pad_lo, d.pad_hi,
                      d.windows.empty() ? nullptr : d.windows.data()});
    obj->halo_dims.push_back(std::move(dims));
  }
  obj->strategy = std::move(s);
  return obj;
}

}  // namespace weft::api

extern "C" {

weft_status_t weft_strategy_input_halo(const weft_strategy_t* s, int32_t i,
                                       weft_halo_desc_t* desc) {
  return weft::api::Guard(__func__, [&] {
    WEFT_USE(obj, s);
    WEFT_REQUIRE(desc);
    WEFT_RETURN_IF_ERROR(weft::api::CheckStructSize(desc, sizeof(*desc), sizeof(*desc), "desc"));
    const auto n = static_cast<int32_t>(obj->strategy->inputs.size());
    if (i < 0 || i >= n)
      return weft::InvalidArgument("i is " + std::to_string(i) + " but the strategy has " +
                                   std::to_string(n) + " inputs");
    *desc = WEFT_HALO_DESC_INIT;
    if (static_cast<size_t>(i) >= obj->halo_dims.size()) return weft::Status::Ok();
    const auto& dims = obj->halo_dims[static_cast<size_t>(i)];
    desc->ndims = static_cast<int32_t>(dims.size());
    desc->dims = dims.empty() ? nullptr : dims.data();
    desc->constant_value = obj->strategy->halos[static_cast<size_t>(i)].constant;
    return weft::Status::Ok();
  });
}

}  // extern "C"
