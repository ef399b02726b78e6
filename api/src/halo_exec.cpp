// extern "C" layer for running halo plans: exchange, in-place exchange and accumulate are calls
// of one form each on the execution path every plan takes (ExecutePlan, plan_exec.cpp).
#include "api/src/collective_launch.hpp"
#include "api/src/context.hpp"
#include "api/src/guard.hpp"
#include "api/src/plan_handle.hpp"

using weft::InvalidArgument;
using weft::Status;
using weft::api::Guard;
using weft::placement::executor::Call;

namespace {

Status RunHalo(weft_plan_t* plan, Call call, const DLTensor* in, DLTensor* out, void* stream,
               const weft_call_options_t* opts, weft_work_t** work) {
  WEFT_USE(obj, plan);
  const auto& exec = obj->runner.shared->exec;
  if (exec->kind() != weft::placement::executor::PlanKind::kHalo)
    return InvalidArgument("plan is a redistribute plan, not a halo plan");
  weft::api::Ref<weft::api::Context> ctx;
  WEFT_RETURN_IF_ERROR(weft::api::RunContext(exec->context(), "plan's context", &ctx));
  return weft::api::ExecutePlan(*ctx, obj->runner, call, 1, &in, &out, stream, opts, work, false);
}

}  // namespace

extern "C" {

weft_status_t weft_halo_exchange(weft_plan_t* plan, const DLTensor* local, DLTensor* padded,
                                 WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return RunHalo(plan, {Call::Form::kForward, false}, local, padded, stream, opts, work);
  });
}

weft_status_t weft_halo_exchange_inplace(weft_plan_t* plan, DLTensor* padded,
                                         WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return RunHalo(plan, {Call::Form::kInPlace, false}, nullptr, padded, stream, opts, work);
  });
}

weft_status_t weft_halo_accumulate(weft_plan_t* plan, const DLTensor* padded_grad,
                                   DLTensor* local_grad, int32_t add, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return RunHalo(plan, {Call::Form::kAdjoint, add != 0}, padded_grad, local_grad, stream, opts,
                   work);
  });
}

}  // extern "C"
