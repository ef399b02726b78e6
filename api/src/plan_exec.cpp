// ExecutePlan: the one path from weft_plan_execute, weft_redistribute and weft_halo_* to the
// executors.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/src/collective_launch.hpp"
#include "api/src/context.hpp"
#include "api/src/guard.hpp"
#include "api/src/plan_handle.hpp"
#include "api/src/tensor_check.hpp"
#include "device/ops.hpp"

namespace weft::api {
namespace {

using Clock = std::chrono::steady_clock;
using placement::executor::Call;
using placement::executor::Operand;
using placement::executor::Operands;
using placement::executor::PlanKind;
using placement::executor::TensorView;

std::string Str(int64_t v) { return std::to_string(v); }

// "CUDA 0", "CPU 0".
std::string DeviceText(DLDevice d) {
  return std::string(device::DeviceTypeName(d.device_type)) + " " + Str(d.device_id);
}

bool OnHost(DLDevice d) { return d.device_type == kDLCPU || d.device_type == kDLCUDAHost; }

Result<TensorView> CheckOperand(const DLTensor* t, const Operand& o, bool output) {
  return CheckView(t, o.name, o.dtype, o.block, o.what, output);
}

// The device every buffer is on, or an error naming two that differ (or a stream given for
// host buffers).
Result<DLDevice> OneDevice(const Operands& ops, int32_t n, const DLTensor* const* in,
                           DLTensor* const* out, void* stream) {
  const DLTensor* first = nullptr;
  const std::string* first_name = nullptr;
  for (int32_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    const std::pair<const DLTensor*, const std::string*> operands[] = {
        {ops.in[k] ? in[i] : nullptr, ops.in[k] ? &ops.in[k]->name : nullptr},
        {ops.out[k] ? out[i] : nullptr, ops.out[k] ? &ops.out[k]->name : nullptr}};
    for (const auto& [t, name] : operands) {
      if (!t) continue;
      if (!first) {
        first = t;
        first_name = name;
      }
      if (t->device.device_type != first->device.device_type ||
          t->device.device_id != first->device.device_id)
        return InvalidArgument(*name + "->device is " + DeviceText(t->device) + " but " +
                               *first_name + "->device is " + DeviceText(first->device) + ": " +
                               ops.mixed_devices);
    }
  }
  const DLDevice d = first ? first->device : DLDevice{kDLCPU, 0};
  if (stream && OnHost(d)) return InvalidArgument("stream must be NULL for host buffers");
  return d;
}

// Checks every tensor's buffers against what the runnable expects of `call`; the names in
// errors are its own (in, out; in[i], out[i] batched; local, padded, ... for a halo).
Result<std::pair<std::vector<TensorView>, std::vector<TensorView>>> CheckBuffers(
    const placement::executor::Runnable& e, const Call& call, int32_t n, const DLTensor* const* in,
    DLTensor* const* out, void* stream, DLDevice* device) {
  // A rank outside the source (destination) mesh of a cross-mesh plan passes no input
  // (output): whatever it passes there is ignored, and its views stay empty.
  if (e.takes_in() && !in) return InvalidArgument("in is NULL");
  if (e.takes_out() && !out) return InvalidArgument("out is NULL");
  const Operands ops = e.Expect(call);
  std::vector<TensorView> vi(static_cast<size_t>(n)), vo(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    const auto k = static_cast<size_t>(i);
    if (ops.in[k]) {
      WEFT_ASSIGN_OR_RETURN(vi[k], CheckOperand(in[i], *ops.in[k], false));
    }
    if (ops.out[k]) {
      WEFT_ASSIGN_OR_RETURN(vo[k], CheckOperand(out[i], *ops.out[k], true));
    }
  }
  WEFT_ASSIGN_OR_RETURN(*device, OneDevice(ops, n, in, out, stream));
  // No output may overlap an input or another output.
  for (int32_t i = 0; i < n; ++i) {
    const auto b = Extent(vo[static_cast<size_t>(i)]);
    if (!b.first) continue;
    const std::string& oname = ops.out[static_cast<size_t>(i)]->name;
    for (int32_t j = 0; j < n; ++j) {
      const auto a = Extent(vi[static_cast<size_t>(j)]);
      if (a.first && a.first < b.second && b.first < a.second) {
        const std::string& iname = ops.in[static_cast<size_t>(j)]->name;
        return InvalidArgument(
            (n == 1 ? iname + " and " + oname + " overlap" : oname + " overlaps " + iname) +
            ops.overlap_note);
      }
      const auto c = Extent(vo[static_cast<size_t>(j)]);
      if (j != i && c.first && c.first < b.second && b.first < c.second)
        return InvalidArgument(oname + " overlaps " + ops.out[static_cast<size_t>(j)]->name);
    }
  }
  return std::make_pair(std::move(vi), std::move(vo));
}

}  // namespace

namespace {
[[gnu::cold, gnu::noinline]] Status AbstractMesh() {
  return InvalidUsage("the plan is on an abstract mesh: it can be described, not executed");
}
}  // namespace

Status RunContext(placement::ContextId owner, const char* name, Ref<Context>* ctx) {
  if (owner.abstract()) return AbstractMesh();
  return UseValue<weft_context>(owner.value(), name, ctx);
}

Status ExecutePlan(Context& c, PlanRunner runner, const Call& call, int32_t n,
                   const DLTensor* const* in, DLTensor* const* out, void* stream,
                   const weft_call_options_t* opts, weft_work_t** work, bool borrow) {
  const auto& exec = runner.shared->exec;
  if (n != static_cast<int32_t>(exec->size()))
    return InvalidArgument("n is " + Str(n) + " but the plan holds " + Str(int64_t(exec->size())) +
                           " tensors");
  if (exec->rank() != c.rank())
    return InvalidUsage("the plan was made for rank " + Str(exec->rank()) + " but this is rank " +
                        Str(c.rank()));
  WEFT_ASSIGN_OR_RETURN(Clock::time_point deadline, ResolveDeadline(c, opts));
  if (!exec->takes_in() && !exec->takes_out())  // nothing to send or receive
    return work ? PublishDoneWork(work) : Status::Ok();
  WEFT_RETURN_IF_ERROR(exec->Admit(call));
  DLDevice device{kDLCPU, 0};
  auto views = CheckBuffers(*exec, call, n, in, out, stream, &device);
  if (!views.ok()) {
    c.PublishLocalFailure(views.status().message());
    return views.status();
  }
  if (runner.busy && runner.busy->exchange(true)) {
    if (!borrow) return InvalidUsage("the plan already has an execution in flight (one at a time)");
    runner.ws = std::make_shared<placement::executor::BatchWorkspace>();
    runner.busy = nullptr;
  }
  auto busy = std::make_shared<BusyFlag>(runner.busy);
  if (runner.shared->poisoned)
    return InvalidUsage(exec->kind() == PlanKind::kHalo
                            ? "the ranks of the mesh built different halo plans"
                            : "the ranks of the mesh built different redistribute plans");
  // Decided at issue time, so every rank (issuing in the same order) agrees who checks.
  const bool check = !runner.shared->checked.exchange(true);
  const backends::OpArgs args{device, stream, deadline};
  // The views move into the operation: they are a few hundred bytes each.
  auto op = [&c, runner, busy, check, call, args, vi = std::move(views->first),
             vo = std::move(views->second)]() -> Status {
    placement::executor::GroupFn groups = [&c, &args](const std::vector<int32_t>& ranks) {
      return c.Group(ranks, args.deadline);
    };
    Status s;
    if (check) {
      s = runner.shared->exec->CheckSamePlan(groups, args);
      if (s.code() == Code::kInvalidUsage) runner.shared->poisoned = true;
    }
    if (s.ok()) s = runner.shared->exec->Run(call, vi, vo, *runner.ws, groups, args);
    busy->Release();
    return s;
  };
  WEFT_ASSIGN_OR_RETURN(auto state, c.Execute(std::move(op), work != nullptr));
  return work ? PublishWork(std::move(state), work) : Status::Ok();
}

}  // namespace weft::api
