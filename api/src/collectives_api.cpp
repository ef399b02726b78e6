// extern "C" layer for the collectives: argument checks per call, then Launch
// (collective_launch.cpp) does the rest; on the communicator each op first runs the
// cross-rank check of its arguments (collective_check.hpp) when the policy asks for it.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "api/src/buffer_check.hpp"
#include "api/src/collective_check.hpp"
#include "api/src/collective_launch.hpp"
#include "api/src/guard.hpp"

using weft::InvalidArgument;
using weft::Result;
using weft::Status;
using weft::api::Buffer;
using weft::api::CheckBuffer;
using weft::api::CheckCollective;
using weft::api::CheckPolicy;
using weft::api::CommOp;
using weft::api::GroupInfo;
using weft::api::Guard;
using weft::api::Launch;
using weft::api::check::Call;
using weft::api::check::Kind;
using weft::backends::Communicator;
using weft::backends::OpArgs;

namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Result<weft::ReduceOp> CheckOp(int32_t op, weft::DType t) {
  if (op < 0 || op >= weft::kNumReduceOps)
    return InvalidArgument("op is " + Str(op) + " but must be WEFT_REDUCE_SUM..WEFT_REDUCE_PROD");
  const auto o = static_cast<weft::ReduceOp>(op);
  // The reason is built only for a pair that fails (this runs on every call).
  if (!weft::ReduceValidFor(o, t, nullptr)) {
    std::string why;
    weft::ReduceValidFor(o, t, &why);
    return InvalidArgument("op " + std::string(weft::ReduceOpName(o)) + " on dtype " +
                           weft::DTypeName(t) + ": " + why);
  }
  return static_cast<weft::ReduceOp>(op);
}

Result<std::pair<Buffer, Buffer>> Pair(const DLTensor* send, const DLTensor* recv) {
  WEFT_ASSIGN_OR_RETURN(Buffer s, CheckBuffer(send, "send"));
  WEFT_ASSIGN_OR_RETURN(Buffer r, CheckBuffer(recv, "recv"));
  WEFT_RETURN_IF_ERROR(weft::api::CheckSameType(s, "send", r, "recv"));
  WEFT_RETURN_IF_ERROR(weft::api::CheckNoOverlap(s, "send", r, "recv"));
  return std::make_pair(s, r);
}

// `why` names what sets the size: a string literal, or a callable that builds the text (only
// on the error path: this runs on every call).
template <typename Why>
Status SizeIs(const Buffer& b, const char* name, int64_t expect, Why&& why) {
  if (b.numel == expect) return Status::Ok();
  std::string w;
  if constexpr (std::is_invocable_v<Why>)
    w = why();
  else
    w = why;
  return InvalidArgument(std::string(name) + " has " + Str(b.numel) + " elements but " + w +
                         " needs " + Str(expect));
}

// Counts (and optional displacements) of a v-collective, checked against a buffer.
Result<std::pair<std::vector<uint64_t>, std::vector<uint64_t>>> Counts(
    const int64_t* counts, const int64_t* displs, int32_t n, const Buffer& buf,
    const char* counts_name, const char* displs_name, const char* buf_name) {
  if (!counts) return InvalidArgument(std::string(counts_name) + " is NULL");
  std::vector<uint64_t> c(n), d(n);
  int64_t packed = 0;
  for (int32_t i = 0; i < n; ++i) {
    const int64_t di = displs ? displs[i] : packed;
    // Without displacements a block that overruns is its count's fault, not a displacement's.
    if (counts[i] < 0 || di < 0 || di > buf.numel || counts[i] > buf.numel - di)
      return InvalidArgument(std::string(counts[i] < 0 || !displs ? counts_name : displs_name) +
                             "[" + Str(i) + "] puts block " + Str(i) + " (" + Str(counts[i]) +
                             " elements at " + Str(di) + ") outside " + buf_name + " (" +
                             Str(buf.numel) + " elements)");
    c[i] = static_cast<uint64_t>(counts[i]);
    d[i] = static_cast<uint64_t>(di);
    packed += counts[i];
  }
  return std::make_pair(std::move(c), std::move(d));
}

DLDevice Dev(const DLTensor* t) { return t ? t->device : DLDevice{kDLCPU, 0}; }

// What this rank passed, for the cross-rank check: `count` as check::Call defines it, `bytes`
// this rank's data (for the size threshold), send and recv the buffers a small operation is
// carried in (collective_fused.hpp).
Call Args(Kind kind, weft::DType t, uint64_t count, uint64_t bytes, const void* send = nullptr,
          void* recv = nullptr) {
  Call c;
  c.kind = kind;
  c.dtype = t;
  c.count = count;
  c.bytes = bytes;
  c.send = send;
  c.recv = recv;
  return c;
}

Call WithOp(Call c, weft::ReduceOp op) {
  c.op = static_cast<int32_t>(op);
  return c;
}

// Numbers the call and checks it when the policy says so (the Call is built only then: this
// runs on every call), then runs `op` unless the check's exchange carried the whole operation.
template <typename MakeCall, typename Op>
Status Checked(Communicator& c, const OpArgs& a, const CheckPolicy& pol, uint64_t bytes,
               MakeCall&& make_call, Op&& op) {
  const uint64_t seq = c.NextUserCall();
  if (weft::api::WillCheck(c, pol, bytes, a)) [[unlikely]] {
    bool done = false;
    WEFT_RETURN_IF_ERROR(CheckCollective(c, a, make_call(), seq, &done));
    if (done) return Status::Ok();
  }
  return op();  // one return of op's Status: returned in place, not moved
}

}  // namespace

extern "C" {

weft_status_t weft_allreduce(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                             const DLTensor* send, DLTensor* recv, int32_t op,
                             WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return Launch(
        ctx, mesh, mesh_dim, stream, opts, work, Dev(send),
        [&](const GroupInfo& g) -> Result<CommOp> {
          WEFT_ASSIGN_OR_RETURN(auto b, Pair(send, recv));
          WEFT_RETURN_IF_ERROR(SizeIs(b.second, "recv", b.first.numel, "allreduce"));
          WEFT_ASSIGN_OR_RETURN(weft::ReduceOp o, CheckOp(op, b.first.dtype));
          const CheckPolicy* pol = g.policy;
          return CommOp([b, o, pol](Communicator& c, const OpArgs& a) {
            const auto& [in, out] = b;
            auto call = [&] {
              return WithOp(
                  Args(Kind::kAllreduce, in.dtype, in.numel, in.bytes(), in.data, out.data), o);
            };
            return Checked(c, a, *pol, in.bytes(), call, [&] {
              return c.Allreduce(in.data, out.data, in.numel, in.dtype, o, a);
            });
          });
        });
  });
}

weft_status_t weft_allgather(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                             const DLTensor* send, DLTensor* recv, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return Launch(
        ctx, mesh, mesh_dim, stream, opts, work, Dev(send),
        [&](const GroupInfo& g) -> Result<CommOp> {
          WEFT_ASSIGN_OR_RETURN(auto b, Pair(send, recv));
          WEFT_RETURN_IF_ERROR(SizeIs(b.second, "recv", b.first.numel * g.size(), [&] {
            return "allgather over " + Str(g.size()) + " ranks";
          }));
          const CheckPolicy* pol = g.policy;
          return CommOp([b, pol](Communicator& c, const OpArgs& a) {
            const auto& [in, out] = b;
            auto call = [&] {
              return Args(Kind::kAllgather, in.dtype, in.numel, out.bytes(), in.data, out.data);
            };
            return Checked(c, a, *pol, out.bytes(), call,
                           [&] { return c.Allgather(in.data, out.data, in.numel, in.dtype, a); });
          });
        });
  });
}

weft_status_t weft_allgatherv(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                              const DLTensor* send, DLTensor* recv, const int64_t* recv_counts,
                              const int64_t* recv_displs, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return Launch(
        ctx, mesh, mesh_dim, stream, opts, work, Dev(send),
        [&](const GroupInfo& g) -> Result<CommOp> {
          WEFT_ASSIGN_OR_RETURN(auto b, Pair(send, recv));
          WEFT_ASSIGN_OR_RETURN(auto cd, Counts(recv_counts, recv_displs, g.size(), b.second,
                                                "recv_counts", "recv_displs", "recv"));
          WEFT_RETURN_IF_ERROR(SizeIs(b.first, "send", cd.first[g.index],
                                      [&] { return "recv_counts[" + Str(g.index) + "]"; }));
          const CheckPolicy* pol = g.policy;
          return CommOp([b, cd, pol](Communicator& c, const OpArgs& a) {
            // The own send count differs by design; recv_counts must agree.
            auto call = [&] {
              Call x = Args(Kind::kAllgatherv, b.first.dtype, 0, b.second.bytes());
              x.counts = cd.first;
              return x;
            };
            return Checked(c, a, *pol, b.second.bytes(), call, [&] {
              return c.Allgatherv(b.first.data, b.first.numel, b.second.data, cd.first, cd.second,
                                  b.first.dtype, a);
            });
          });
        });
  });
}

weft_status_t weft_reduce_scatter(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                                  const DLTensor* send, DLTensor* recv, int32_t op,
                                  WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return Launch(ctx, mesh, mesh_dim, stream, opts, work, Dev(send),
                  [&](const GroupInfo& g) -> Result<CommOp> {
                    WEFT_ASSIGN_OR_RETURN(auto b, Pair(send, recv));
                    WEFT_RETURN_IF_ERROR(SizeIs(b.first, "send", b.second.numel * g.size(), [&] {
                      return "reduce_scatter over " + Str(g.size()) + " ranks";
                    }));
                    WEFT_ASSIGN_OR_RETURN(weft::ReduceOp o, CheckOp(op, b.first.dtype));
                    const CheckPolicy* pol = g.policy;
                    return CommOp([b, o, pol](Communicator& c, const OpArgs& a) {
                      const auto& [in, out] = b;
                      auto call = [&] {
                        return WithOp(Args(Kind::kReduceScatter, in.dtype, out.numel, in.bytes(),
                                           in.data, out.data),
                                      o);
                      };
                      return Checked(c, a, *pol, in.bytes(), call, [&] {
                        return c.ReduceScatter(in.data, out.data, out.numel, in.dtype, o, a);
                      });
                    });
                  });
  });
}

weft_status_t weft_reduce_scatterv(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                                   const DLTensor* send, DLTensor* recv, const int64_t* counts,
                                   int32_t op, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return Launch(
        ctx, mesh, mesh_dim, stream, opts, work, Dev(send),
        [&](const GroupInfo& g) -> Result<CommOp> {
          WEFT_ASSIGN_OR_RETURN(auto b, Pair(send, recv));
          WEFT_ASSIGN_OR_RETURN(
              auto cd, Counts(counts, nullptr, g.size(), b.first, "counts", "counts", "send"));
          int64_t total = 0;
          for (uint64_t x : cd.first) total += static_cast<int64_t>(x);
          WEFT_RETURN_IF_ERROR(SizeIs(b.first, "send", total, "sum(counts)"));
          WEFT_RETURN_IF_ERROR(SizeIs(b.second, "recv", cd.first[g.index],
                                      [&] { return "counts[" + Str(g.index) + "]"; }));
          WEFT_ASSIGN_OR_RETURN(weft::ReduceOp o, CheckOp(op, b.first.dtype));
          const CheckPolicy* pol = g.policy;
          return CommOp([b, cd, o, pol](Communicator& c, const OpArgs& a) {
            auto call = [&] {
              Call x = WithOp(Args(Kind::kReduceScatterv, b.first.dtype, 0, b.first.bytes()), o);
              x.counts = cd.first;
              return x;
            };
            return Checked(c, a, *pol, b.first.bytes(), call, [&] {
              return c.ReduceScatterv(b.first.data, b.second.data, cd.first, b.first.dtype, o, a);
            });
          });
        });
  });
}

weft_status_t weft_alltoall(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                            const DLTensor* send, DLTensor* recv, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return Launch(
        ctx, mesh, mesh_dim, stream, opts, work, Dev(send),
        [&](const GroupInfo& g) -> Result<CommOp> {
          WEFT_ASSIGN_OR_RETURN(auto b, Pair(send, recv));
          if (b.first.data == b.second.data && b.first.numel > 0)
            return InvalidArgument("alltoall has no in-place form: send is recv");
          WEFT_RETURN_IF_ERROR(SizeIs(b.second, "recv", b.first.numel, "alltoall"));
          if (b.first.numel % g.size() != 0)
            return InvalidArgument("send has " + Str(b.first.numel) +
                                   " elements, not a multiple of the group size " + Str(g.size()));
          const uint64_t per = b.first.numel / g.size();
          const CheckPolicy* pol = g.policy;
          return CommOp([b, per, pol](Communicator& c, const OpArgs& a) {
            const auto& [in, out] = b;
            auto call = [&] {
              return Args(Kind::kAlltoall, in.dtype, per, in.bytes(), in.data, out.data);
            };
            return Checked(c, a, *pol, in.bytes(), call,
                           [&] { return c.Alltoall(in.data, out.data, per, in.dtype, a); });
          });
        });
  });
}

weft_status_t weft_alltoallv(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                             const DLTensor* send, const int64_t* send_counts,
                             const int64_t* send_displs, DLTensor* recv, const int64_t* recv_counts,
                             const int64_t* recv_displs, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return Launch(
        ctx, mesh, mesh_dim, stream, opts, work, Dev(send),
        [&](const GroupInfo& g) -> Result<CommOp> {
          WEFT_ASSIGN_OR_RETURN(auto b, Pair(send, recv));
          if (b.first.data == b.second.data && b.first.numel > 0)
            return InvalidArgument("alltoallv has no in-place form: send is recv");
          WEFT_ASSIGN_OR_RETURN(auto s, Counts(send_counts, send_displs, g.size(), b.first,
                                               "send_counts", "send_displs", "send"));
          WEFT_ASSIGN_OR_RETURN(auto r, Counts(recv_counts, recv_displs, g.size(), b.second,
                                               "recv_counts", "recv_displs", "recv"));
          const CheckPolicy* pol = g.policy;
          const uint64_t bytes = std::max(b.first.bytes(), b.second.bytes());
          // Captured piecewise: both whole buffers would not fit CommOp.
          return CommOp([from = b.first.data, to = b.second.data, t = b.first.dtype, bytes, s, r,
                         pol](Communicator& c, const OpArgs& a) {
            auto call = [&] {
              Call x = Args(Kind::kAlltoallv, t, 0, bytes);
              x.counts = s.first;
              x.recv_counts = r.first;
              return x;
            };
            return Checked(c, a, *pol, bytes, call, [&] {
              return c.Alltoallv(from, s.first, s.second, to, r.first, r.second, t, a);
            });
          });
        });
  });
}

weft_status_t weft_broadcast(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                             DLTensor* buf, int32_t root, WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return Launch(
        ctx, mesh, mesh_dim, stream, opts, work, Dev(buf),
        [&](const GroupInfo& g) -> Result<CommOp> {
          if (root < 0 || root >= g.size())
            return InvalidArgument("root is " + Str(root) + " but the group has " + Str(g.size()) +
                                   " members");
          WEFT_ASSIGN_OR_RETURN(Buffer b, CheckBuffer(buf, "buf"));
          const CheckPolicy* pol = g.policy;
          return CommOp([b, root, pol](Communicator& c, const OpArgs& a) {
            auto call = [&] {
              Call x = Args(Kind::kBroadcast, b.dtype, b.numel, b.bytes(), b.data, b.data);
              x.root = root;
              return x;
            };
            return Checked(c, a, *pol, b.bytes(), call,
                           [&] { return c.Broadcast(b.data, b.numel, b.dtype, root, a); });
          });
        });
  });
}

weft_status_t weft_barrier(weft_context_t* ctx, const weft_mesh_t* mesh, int32_t mesh_dim,
                           WEFT_COLLECTIVE_TAIL) {
  return Guard(__func__, [&] {
    return Launch(ctx, mesh, mesh_dim, stream, opts, work, DLDevice{kDLCPU, 0},
                  [&](const GroupInfo& g) -> Result<CommOp> {
                    const CheckPolicy* pol = g.policy;
                    return CommOp([pol](Communicator& c, const OpArgs& a) {
                      // A checked barrier is done: the check's all-gather waits for everyone.
                      return Checked(
                          c, a, *pol, 0, [] { return Args(Kind::kBarrier, weft::DType{}, 0, 0); },
                          [&] { return c.Barrier(a); });
                    });
                  });
  });
}

}  // extern "C"
