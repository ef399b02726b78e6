// extern "C" layer for executing redistributes: weft_plan_execute and the one-shot
// weft_redistribute with its plan cache.
#include "api/src/context.hpp"
#include "api/src/guard.hpp"
#include "api/src/handles.hpp"
#include "api/src/plan_cache.hpp"
#include "api/src/plan_handle.hpp"

using weft::Result;
using weft::Status;
using weft::api::Guard;
using weft::api::PlanRunner;

extern "C" {

weft_status_t weft_plan_execute(weft_plan_t* plan, const DLTensor* in, DLTensor* out,
                                WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(plan);
    if (plan->halo) return weft::InvalidUsage("plan is a halo plan: run it with weft_halo_*");
    return weft::api::ExecutePlan(plan->runner, 1, &in, &out, stream, opts, work, false);
  });
}

weft_status_t weft_plan_execute_n(weft_plan_t* plan, int32_t n, const DLTensor* const* in,
                                  DLTensor* const* out, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    WEFT_REQUIRE(plan);
    if (plan->halo) return weft::InvalidUsage("plan is a halo plan: run it with weft_halo_*");
    return weft::api::ExecutePlan(plan->runner, n, in, out, stream, opts, work, false);
  });
}

weft_status_t weft_redistribute(const weft_layout_t* src_layout, const DLTensor* in,
                                const weft_layout_t* dst_layout, DLTensor* out,
                                WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&]() -> Status {
    WEFT_REQUIRE(src_layout);
    WEFT_REQUIRE(dst_layout);
    const void* owner = src_layout->layout->mesh().context();
    if (!owner) return weft::InvalidUsage("src is on an abstract mesh: nothing to execute");
    // The layout holds its context as an identity; the call is on behalf of that context.
    auto* ctx = const_cast<weft_context_t*>(static_cast<const weft_context_t*>(owner));
    WEFT_ASSIGN_OR_RETURN(PlanRunner runner,
                          ctx->impl->plan_cache().Get(src_layout->layout, dst_layout->layout));
    // The cached plan may still be running (async work): this call then borrows a workspace.
    return weft::api::ExecutePlan(std::move(runner), 1, &in, &out, stream, opts, work, true);
  });
}

}  // extern "C"
