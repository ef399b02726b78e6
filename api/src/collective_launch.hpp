// The common path of every communicating C call: resolve the group (a mesh dim's or the
// world), check the per-call options, validate this rank's buffers (publishing a rejection to
// the peers, SPEC §6.4), then run the operation through the context's ordered executor,
// blocking or as work.
#pragma once

#include <functional>

#include "api/src/context.hpp"
#include "api/src/p2p_check.hpp"
#include "common/inline_function.hpp"
#include "weft/collectives.h"

namespace weft::api {

// The deadline of a call: opts->timeout_ms, 0 = the context's default, < 0 = none.
Result<std::chrono::steady_clock::time_point> ResolveDeadline(const Context& ctx,
                                                              const weft_call_options_t* opts);

// The operation a call runs once its group's communicator is known. Kept inline (no heap
// allocation): a blocking call's dispatch cost is part of a small collective's latency.
using CommOp = InlineFunction<Status(backends::Communicator&, const backends::OpArgs&)>;

struct GroupInfo {
  // The world ranks in group order: the context's own list for the world (no copy per call),
  // else `own`.
  const std::vector<int32_t>& ranks() const { return world != nullptr ? *world : own; }
  const std::vector<int32_t>* world = nullptr;
  std::vector<int32_t> own;
  int32_t index = 0;                    // this rank's position
  const CheckPolicy* policy = nullptr;  // the context's: whether the call is checked across ranks
  int32_t size() const { return static_cast<int32_t>(ranks().size()); }
};

namespace detail {
// A call between resolving its group and running its op.
struct Launching {
  // Out of line: it keeps the release of `ctx` out of every call's inlined body.
  ~Launching();
  Ref<Context> ctx;  // the call's reference: the context stays alive until it returns
  GroupInfo group;
  std::chrono::steady_clock::time_point deadline;
};
Status BeginLaunch(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim, void* stream,
                   const weft_call_options_t* opts, DLDevice device, Launching* out);
Status FinishLaunch(Launching& l, Result<CommOp> op, void* stream, DLDevice device,
                    weft_work_t** work);
}  // namespace detail

// `prepare(const GroupInfo&) -> Result<CommOp>` validates this rank's arguments for the group
// and returns the op to run; its errors are per-rank and get published. The device of the
// buffers goes into OpArgs. A template so that a blocking call allocates no wrapper for it.
template <typename Prepare>
Status Launch(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim, void* stream,
              const weft_call_options_t* opts, weft_work_t** work, DLDevice device,
              Prepare&& prepare) {
  detail::Launching l;
  WEFT_RETURN_IF_ERROR(detail::BeginLaunch(ctx, mesh, mesh_dim, stream, opts, device, &l));
  const GroupInfo& group = l.group;
  return detail::FinishLaunch(l, prepare(group), stream, device, work);
}

// Point-to-point with a work handle: the requests are posted in issue order on this thread and
// the work completes with them, so a receive posted before a send cannot hold the send back.
// `post` posts them (p2p_check.hpp).
using PostOp = std::function<Result<std::unique_ptr<PostedP2p>>(backends::Communicator&,
                                                                const backends::OpArgs&)>;
Status LaunchPosted(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim, void* stream,
                    const weft_call_options_t* opts, weft_work_t** work, DLDevice device,
                    const std::function<Result<PostOp>(const GroupInfo&)>& prepare);

}  // namespace weft::api
