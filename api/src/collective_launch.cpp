#include "api/src/collective_launch.hpp"

#include <memory>
#include <string>

#include "api/src/guard.hpp"
#include "api/src/handles.hpp"
#include "common/clock.hpp"

namespace weft::api {
namespace {

using Clock = std::chrono::steady_clock;

Result<GroupInfo> ResolveGroup(const Context& ctx, const weft_mesh_t* mesh, int32_t dim) {
  GroupInfo g;
  if (!mesh) {
    g.world = &ctx.world_ranks();
    g.index = ctx.rank();
    return g;
  }
  const placement::Mesh& m = *mesh->mesh;
  if (dim < 0 || dim >= m.ndim())
    return InvalidArgument("mesh_dim is " + std::to_string(dim) + " but the mesh has " +
                           std::to_string(m.ndim()) + " dims");
  placement::Coord coord{};
  if (!m.Coordinate(ctx.rank(), coord.data()))
    return InvalidUsage("rank " + std::to_string(ctx.rank()) + " is not in the mesh");
  g.own = m.Group(dim, coord.data());
  g.index = static_cast<int32_t>(coord[dim]);
  return g;
}

}  // namespace

Result<std::chrono::steady_clock::time_point> ResolveDeadline(const Context& ctx,
                                                              const weft_call_options_t* opts) {
  int64_t ms = 0;
  if (opts) {
    WEFT_RETURN_IF_ERROR(CheckStructSize(opts, sizeof(*opts), sizeof(weft_call_options_t), "opts"));
    ms = opts->timeout_ms;
  }
  if (ms == 0) ms = ctx.timeout_ms();
  if (ms < 0) return Clock::time_point::max();
  return DeadlineAfter(ms);
}

namespace detail {

Status BeginLaunch(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim, void* stream,
                   const weft_call_options_t* opts, DLDevice device, Launching* out) {
  WEFT_REQUIRE(ctx);
  Context& c = *ctx->impl;
  if (mesh && mesh->mesh->context() != ctx)
    return InvalidArgument("mesh belongs to another context (or is abstract)");
  WEFT_ASSIGN_OR_RETURN(out->group, ResolveGroup(c, mesh, mesh_dim));
  WEFT_ASSIGN_OR_RETURN(out->deadline, ResolveDeadline(c, opts));
  if (stream && (device.device_type == kDLCPU || device.device_type == kDLCUDAHost))
    return InvalidArgument("stream must be NULL for host buffers");
  out->ctx = &c;
  return Status::Ok();
}

Status FinishLaunch(Launching& l, Result<CommOp> op, void* stream, DLDevice device,
                    weft_work_t** work) {
  Context& c = *l.ctx;
  if (!op.ok()) {
    if (op.status().code() == Code::kInvalidArgument) c.PublishLocalFailure(op.status().message());
    return op.status();
  }
  backends::OpArgs args{device, stream, l.deadline};
  if (work == nullptr) {
    return c.RunNow([&]() -> Status {
      WEFT_ASSIGN_OR_RETURN(backends::Communicator * comm, c.Group(l.group.ranks(), args.deadline));
      return op.value()(*comm, args);
    });
  }
  auto run = [&c, group = std::move(l.group), args, fn = std::move(op).value()]() -> Status {
    WEFT_ASSIGN_OR_RETURN(backends::Communicator * comm, c.Group(group.ranks(), args.deadline));
    return fn(*comm, args);
  };
  WEFT_ASSIGN_OR_RETURN(auto state, c.Execute(std::move(run), true));
  *work = std::make_unique<weft_work>(weft_work{std::move(state)}).release();
  return Status::Ok();
}

}  // namespace detail

Status LaunchPosted(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim, void* stream,
                    const weft_call_options_t* opts, weft_work_t** work, DLDevice device,
                    const std::function<Result<PostOp>(const GroupInfo&)>& prepare) {
  struct Posted {
    backends::Communicator* comm = nullptr;
    std::unique_ptr<PostedP2p> p2p;
    backends::OpArgs args;
  };
  auto posted = std::make_shared<Posted>();
  auto as_comm_op = [&](const GroupInfo& g) -> Result<CommOp> {
    WEFT_ASSIGN_OR_RETURN(PostOp post, prepare(g));
    return CommOp([posted, post](backends::Communicator& c, const backends::OpArgs& a) {
      WEFT_ASSIGN_OR_RETURN(posted->p2p, post(c, a));
      posted->comm = &c;
      posted->args = a;
      return Status::Ok();
    });
  };
  WEFT_RETURN_IF_ERROR(Launch(ctx, mesh, mesh_dim, stream, opts, nullptr, device, as_comm_op));
  auto state = std::make_shared<WorkState>();
  Context* c = ctx->impl.get();
  state->Delegate([posted, c](int64_t timeout_ms) -> Status {
    Status s = c->sticky_error();
    if (s.ok()) s = c->Explain(posted->p2p->Wait(*posted->comm, timeout_ms, posted->args));
    return s;
  });
  *work = std::make_unique<weft_work>(weft_work{std::move(state)}).release();
  return Status::Ok();
}

}  // namespace weft::api
