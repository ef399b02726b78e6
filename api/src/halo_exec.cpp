// extern "C" layer for running halo plans: exchange, in-place exchange and accumulate share one
// path (buffer checks published to the peers on rejection, SPEC §6.4; the first-execution plan
// check; the run through the context's ordered executor).
#include <memory>
#include <string>
#include <utility>

#include "api/src/collective_launch.hpp"
#include "api/src/context.hpp"
#include "api/src/guard.hpp"
#include "api/src/plan_handle.hpp"
#include "api/src/tensor_check.hpp"

using weft::InvalidArgument;
using weft::InvalidUsage;
using weft::Status;
using weft::api::Guard;
namespace halo = weft::placement::halo;
using weft::placement::executor::TensorView;

namespace {

enum class Mode { kExchange, kInplace, kAccumulate };

std::string Str(int64_t v) { return std::to_string(v); }

Status RunHalo(weft_plan_t* plan, Mode mode, const DLTensor* in, DLTensor* out, bool add,
               void* stream, const weft_call_options_t* opts, weft_work_t** work) {
  WEFT_USE(obj, plan);
  if (!obj->halo) return InvalidArgument("plan is a redistribute plan, not a halo plan");
  const std::shared_ptr<weft::api::HaloShared> h = obj->halo;
  const halo::HaloPlan& p = *h->plan;
  weft::api::Ref<weft::api::Context> ctx;
  WEFT_RETURN_IF_ERROR(weft::api::RunContext(p.layout().mesh().context(), "plan's context", &ctx));
  weft::api::Context& c = *ctx;
  if (p.rank() != c.rank())
    return InvalidUsage("the plan was made for rank " + Str(p.rank()) + " but this is rank " +
                        Str(c.rank()));
  WEFT_ASSIGN_OR_RETURN(auto deadline, weft::api::ResolveDeadline(c, opts));
  if (!p.in_mesh())  // not a member: nothing to send or receive
    return work ? weft::api::PublishDoneWork(work) : Status::Ok();
  // The same verdict on every rank (the plan knows every window), before anything is sent.
  if (mode == Mode::kInplace && !p.windows_contain_owned())
    return InvalidUsage(
        "the in-place exchange needs every rank's window to contain its owned range, and this "
        "plan has a window that does not (use weft_halo_exchange)");
  const weft::DType dt = p.layout().dtype();
  const std::string me = "rank " + Str(p.rank()) + "'s ";
  auto check = [&]() -> weft::Result<std::pair<TensorView, TensorView>> {
    TensorView a, b;
    // Names: exchange reads local and writes padded; accumulate reads padded_grad and writes
    // local_grad; the in-place form writes padded only.
    const bool adj = mode == Mode::kAccumulate;
    if (mode != Mode::kInplace) {
      WEFT_ASSIGN_OR_RETURN(
          a,
          weft::api::CheckView(in, adj ? "padded_grad" : "local", dt, adj ? p.window() : p.owned(),
                               me + (adj ? "padded block" : "local block"), false));
    }
    WEFT_ASSIGN_OR_RETURN(
        b,
        weft::api::CheckView(out, adj ? "local_grad" : "padded", dt, adj ? p.owned() : p.window(),
                             me + (adj ? "local block" : "padded block"), true));
    if (mode != Mode::kInplace && weft::api::Overlap(a, b))
      return InvalidArgument(adj ? "padded_grad and local_grad overlap"
                                 : "local and padded overlap (use weft_halo_exchange_inplace)");
    const DLTensor* ts[2] = {in, out};
    for (const DLTensor* t : ts)
      if (t && t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost)
        return InvalidArgument("buffers must be in CPU or CUDA host memory");
    if (in && out && mode != Mode::kInplace &&
        (in->device.device_type != out->device.device_type ||
         in->device.device_id != out->device.device_id))
      return InvalidArgument("the two buffers are on different devices");
    if (stream) return InvalidArgument("stream must be NULL for host buffers");
    return std::make_pair(a, b);
  };
  auto views = check();
  if (!views.ok()) {
    c.PublishLocalFailure(views.status().message());
    return views.status();
  }
  if (h->busy->exchange(true))
    return InvalidUsage("the plan already has an execution in flight (one at a time)");
  auto busy = std::make_shared<weft::api::BusyFlag>(h->busy);
  if (h->poisoned) return InvalidUsage("the ranks of the mesh built different halo plans");
  const bool first = !h->checked.exchange(true);
  const DLDevice device = out ? out->device : DLDevice{kDLCPU, 0};
  const weft::backends::OpArgs args{device, stream, deadline};
  auto op = [&c, h, busy, first, args, mode, add, v = std::move(*views)]() -> Status {
    const halo::HaloPlan& p = *h->plan;
    weft::backends::Communicator* comm = nullptr;
    if (p.layout().mesh().size() > 1) {
      WEFT_ASSIGN_OR_RETURN(comm, c.Group(p.MeshRanks(), args.deadline));
    }
    Status s;
    if (first) {
      s = halo::CheckSameHalo(p, comm, args);
      if (s.code() == weft::Code::kInvalidUsage) h->poisoned = true;
    }
    if (s.ok()) {
      switch (mode) {
        case Mode::kExchange:
          s = halo::RunExchange(p, &v.first, v.second, *h->ws, comm, args);
          break;
        case Mode::kInplace:
          s = halo::RunExchange(p, nullptr, v.second, *h->ws, comm, args);
          break;
        case Mode::kAccumulate:
          s = halo::RunAccumulate(p, v.first, v.second, add, *h->ws, comm, args);
          break;
      }
    }
    busy->Release();
    return s;
  };
  WEFT_ASSIGN_OR_RETURN(auto state, c.Execute(std::move(op), work != nullptr));
  return work ? weft::api::PublishWork(std::move(state), work) : Status::Ok();
}

}  // namespace

extern "C" {

weft_status_t weft_halo_exchange(weft_plan_t* plan, const DLTensor* local, DLTensor* padded,
                                 WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return RunHalo(plan, Mode::kExchange, local, padded, false, stream, opts, work);
  });
}

weft_status_t weft_halo_exchange_inplace(weft_plan_t* plan, DLTensor* padded,
                                         WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return RunHalo(plan, Mode::kInplace, nullptr, padded, false, stream, opts, work);
  });
}

weft_status_t weft_halo_accumulate(weft_plan_t* plan, const DLTensor* padded_grad,
                                   DLTensor* local_grad, int32_t add, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return RunHalo(plan, Mode::kAccumulate, padded_grad, local_grad, add != 0, stream, opts, work);
  });
}

}  // extern "C"
