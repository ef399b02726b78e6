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

namespace {

Status Execute(weft_plan_t* plan, int32_t n, const DLTensor* const* in, DLTensor* const* out,
               void* stream, const weft_call_options_t* opts, weft_work_t** work) {
  WEFT_USE(p, plan);
  const auto& exec = p->runner.shared->exec;
  if (exec->kind() != weft::placement::executor::PlanKind::kRedistribute)
    return weft::InvalidUsage("plan is a halo plan: run it with weft_halo_*");
  weft::api::Ref<weft::api::Context> ctx;
  WEFT_RETURN_IF_ERROR(weft::api::RunContext(exec->context(), "plan's context", &ctx));
  return weft::api::ExecutePlan(*ctx, p->runner, {}, n, in, out, stream, opts, work, false);
}

}  // namespace

extern "C" {

weft_status_t weft_plan_execute(weft_plan_t* plan, const DLTensor* in, DLTensor* out,
                                WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] { return Execute(plan, 1, &in, &out, stream, opts, work); });
}

weft_status_t weft_plan_execute_n(weft_plan_t* plan, int32_t n, const DLTensor* const* in,
                                  DLTensor* const* out, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] { return Execute(plan, n, in, out, stream, opts, work); });
}

weft_status_t weft_redistribute(const weft_layout_t* src_layout, const DLTensor* in,
                                const weft_layout_t* dst_layout, DLTensor* out,
                                WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&]() -> Status {
    WEFT_USE(src, src_layout);
    WEFT_USE(dst, dst_layout);
    const weft::placement::ContextId owner = src->layout->mesh().context();
    if (owner.abstract())
      return weft::InvalidUsage("src is on an abstract mesh: nothing to execute");
    // The layout holds its context as an identity; the call is on behalf of that context.
    weft::api::Ref<weft::api::Context> ctx;
    WEFT_RETURN_IF_ERROR(weft::api::RunContext(owner, "src_layout's context", &ctx));
    WEFT_ASSIGN_OR_RETURN(PlanRunner runner, ctx->plan_cache().Get(src->layout, dst->layout));
    // The cached plan may still be running (async work): this call then borrows a workspace.
    return weft::api::ExecutePlan(*ctx, std::move(runner), {}, 1, &in, &out, stream, opts, work,
                                  true);
  });
}

}  // extern "C"
