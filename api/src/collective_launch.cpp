#include "api/src/collective_launch.hpp"

#include <memory>
#include <string>

#include "api/src/context_link.hpp"
#include "api/src/guard.hpp"
#include "api/src/handles.hpp"
#include "common/clock.hpp"

namespace weft::api {
namespace {

using Clock = std::chrono::steady_clock;

Result<GroupInfo> ResolveGroup(const Context& ctx, const placement::Mesh* mesh, int32_t dim) {
  GroupInfo g;
  g.policy = &ctx.check_policy();
  if (!mesh) {
    g.world = &ctx.world_ranks();
    g.index = ctx.rank();
    return g;
  }
  const placement::Mesh& m = *mesh;
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
  return DeadlineFromTimeoutMs(ms);
}

namespace detail {

Launching::~Launching() = default;

Status BeginLaunch(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim, void* stream,
                   const weft_call_options_t* opts, DLDevice device, Launching* out) {
  WEFT_RETURN_IF_ERROR(Use(ctx, "ctx", &out->ctx));  // held until the call returns
  const Context& c = *out->ctx;
  if (mesh == nullptr) {
    WEFT_ASSIGN_OR_RETURN(out->group, ResolveGroup(c, nullptr, mesh_dim));
  } else {
    WEFT_USE(m, mesh);  // the group is copied out of it
    if (m->mesh->context() != IdOf(ctx))
      return InvalidArgument("mesh belongs to another context (or is abstract)");
    WEFT_ASSIGN_OR_RETURN(out->group, ResolveGroup(c, m->mesh.get(), mesh_dim));
  }
  WEFT_ASSIGN_OR_RETURN(out->deadline, ResolveDeadline(c, opts));
  if (stream && (device.device_type == kDLCPU || device.device_type == kDLCUDAHost))
    return InvalidArgument("stream must be NULL for host buffers");
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
  return PublishWork(std::move(state), work);
}

}  // namespace detail

Status LaunchPosted(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim, void* stream,
                    const weft_call_options_t* opts, weft_work_t** work, DLDevice device,
                    const std::function<Result<PostOp>(const GroupInfo&)>& prepare) {
  WEFT_USE(c, ctx);  // alive until the request is registered with it
  struct Posted {
    backends::Communicator* comm = nullptr;
    std::unique_ptr<PostedP2p> p2p;
    backends::OpArgs args;
  };
  auto posted = std::make_shared<Posted>();
  auto as_comm_op = [&](const GroupInfo& g) -> Result<CommOp> {
    WEFT_ASSIGN_OR_RETURN(PostOp post, prepare(g));
    return CommOp([posted, post](backends::Communicator& comm, const backends::OpArgs& a) {
      WEFT_ASSIGN_OR_RETURN(posted->p2p, post(comm, a));
      posted->comm = &comm;
      posted->args = a;
      return Status::Ok();
    });
  };
  WEFT_RETURN_IF_ERROR(Launch(ctx, mesh, mesh_dim, stream, opts, nullptr, device, as_comm_op));
  auto request =
      std::make_shared<PostedRequest>(c.get(), posted->comm, std::move(posted->p2p), posted->args);
  c->posted().Add(request);
  auto state = std::make_shared<WorkState>();
  state->Delegate([request](int64_t timeout_ms) { return request->Wait(timeout_ms); });
  return PublishWork(std::move(state), work);
}

}  // namespace weft::api
