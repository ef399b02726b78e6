#include "tools/collbench/weft_runner.hpp"

namespace weft::collbench {
namespace {

// A 1-D contiguous tensor; holds its shape so that the DLTensor can point at it.
struct Tensor {
  int64_t shape[1];
  DLTensor t;
  Tensor(void* data, int64_t numel, DLDataType dtype, DLDevice device)
      : shape{numel}, t{data, device, 1, dtype, shape, nullptr, 0} {}
  Tensor(const Tensor&) = delete;
  Tensor& operator=(const Tensor&) = delete;
  DLTensor* get() { return &t; }
};

weft_status_t SendRecvRing(weft_context_t* ctx, Case& c, Tensor& send, Tensor& recv) {
  const int32_t n = c.nranks();
  const int32_t right = (c.rank() + 1) % n, left = (c.rank() + n - 1) % n;
  weft_work_t* work = nullptr;
  weft_status_t s = weft_recv(ctx, nullptr, 0, recv.get(), left, 0, nullptr, nullptr, &work);
  if (s != WEFT_OK) return s;
  s = weft_send(ctx, nullptr, 0, send.get(), right, 0, nullptr, nullptr, nullptr);
  const weft_status_t w = weft_work_wait(work, -1);
  weft_work_release(work);
  return s != WEFT_OK ? s : w;
}

}  // namespace

bool AllreduceInPlace(weft_context_t* ctx, void* data, int64_t count, DLDataType dt, int op,
                      std::string* error) {
  int64_t shape[1] = {count};
  DLTensor t{data, {kDLCPU, 0}, 1, dt, shape, nullptr, 0};
  const weft_status_t s = weft_allreduce(ctx, nullptr, 0, &t, &t, op, nullptr, nullptr, nullptr);
  if (s != WEFT_OK) *error = WeftError("allreduce of the results", s);
  return s == WEFT_OK;
}

bool Barrier(weft_context_t* ctx, std::string* error) {
  const weft_status_t s = weft_barrier(ctx, nullptr, 0, nullptr, nullptr, nullptr);
  if (s != WEFT_OK) *error = WeftError("barrier", s);
  return s == WEFT_OK;
}

weft_status_t RunWeft(weft_context_t* ctx, Case& c) {
  const Geometry& g = c.geometry();
  const DLDataType dt = c.dtype().dl;
  Tensor send(c.send(), g.send_count, dt, c.device()), recv(c.recv(), g.recv_count, dt, c.device());
  DLTensor* in = send.get();
  DLTensor* out = recv.get();
  switch (c.op()) {
    case Op::kAllreduce:
      return weft_allreduce(ctx, nullptr, 0, in, out, c.redop(), nullptr, nullptr, nullptr);
    case Op::kAllgather:
      return weft_allgather(ctx, nullptr, 0, in, out, nullptr, nullptr, nullptr);
    case Op::kReduceScatter:
      return weft_reduce_scatter(ctx, nullptr, 0, in, out, c.redop(), nullptr, nullptr, nullptr);
    case Op::kAlltoall:
      return weft_alltoall(ctx, nullptr, 0, in, out, nullptr, nullptr, nullptr);
    case Op::kBroadcast:
      return weft_broadcast(ctx, nullptr, 0, in, 0, nullptr, nullptr, nullptr);
    case Op::kAllgatherv:
      return weft_allgatherv(ctx, nullptr, 0, in, out, g.counts.data(), nullptr, nullptr, nullptr,
                             nullptr);
    case Op::kReduceScatterv:
      return weft_reduce_scatterv(ctx, nullptr, 0, in, out, g.counts.data(), c.redop(), nullptr,
                                  nullptr, nullptr);
    case Op::kAlltoallv:
      return weft_alltoallv(ctx, nullptr, 0, in, g.send_counts.data(), nullptr, out,
                            g.recv_counts.data(), nullptr, nullptr, nullptr, nullptr);
    case Op::kSendrecv:
      return SendRecvRing(ctx, c, send, recv);
  }
  return WEFT_ERR_INVALID_ARGUMENT;
}

std::string PlanText(const weft_plan_t* plan) {
  size_t needed = 0;
  weft_plan_describe(plan, nullptr, 0, &needed);
  std::string text(needed, '\0');
  if (weft_plan_describe(plan, text.data(), text.size(), &needed) != WEFT_OK) return "?";
  while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
  return text;
}

}  // namespace weft::collbench
