// The plugin table's collective entries: check the arguments, build the schedule, start it
// and hand back its request (or wait for it when the host asked for a blocking op).
#include "backends/ucx/coll/entry.hpp"

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "backends/ucx/coll/algorithms.hpp"
#include "backends/ucx/coll/board.hpp"
#include "backends/ucx/coll/small.hpp"
#include "backends/ucx/transport/transport.hpp"
#include "common/plugin_kit/op_args.hpp"

namespace weft::backends::ucx_plugin {
namespace {

struct Checker {
  State& st;
  const char* name;

  // The error paths are out of line and cold, so that the checks every call passes inline
  // into a few instructions each.
  [[gnu::cold, gnu::noinline]] weft_status_t Bad(const std::string& what) const {
    return st.Fail(WEFT_ERR_INVALID_ARGUMENT, std::string(name) + ": " + what);
  }
  [[gnu::cold, gnu::noinline]] weft_status_t Bad(const char* what, const char* why) const {
    return Bad(std::string(what) + why);
  }
  [[gnu::cold, gnu::noinline]] weft_status_t BadBits(uint32_t bits) const {
    return Bad("dtype of " + std::to_string(bits) + " bits is not a whole number of bytes");
  }
  // Bytes per element of t, or 0 after reporting (dtypes of whole bytes only).
  weft_status_t Item(DLDataType t, uint64_t* item) const {
    if (!plugin_kit::ItemBytes(t, item)) [[unlikely]]
      return BadBits(t.bits);
    return WEFT_OK;
  }
  weft_status_t Bytes(const char* what, const void* p, uint64_t count, uint64_t item,
                      uint64_t* bytes) const {
    switch (plugin_kit::CheckBuffer(p, count, item, bytes)) {
      case plugin_kit::BufferCheck::kOk:
        return WEFT_OK;
      case plugin_kit::BufferCheck::kOverflow:
        return Bad(what, ": size overflows");
      case plugin_kit::BufferCheck::kNull:
        break;
    }
    return Bad(what, " is NULL");
  }
  // One of n even blocks of `count` elements of t at `p`: its bytes, and n of them must fit.
  weft_status_t Block(const char* what, const void* p, uint64_t count, DLDataType t, int32_t n,
                      uint64_t* item, uint64_t* bytes) const {
    if (weft_status_t s = Item(t, item)) return s;
    if (weft_status_t s = Bytes(what, p, count, *item, bytes)) return s;
    if (count > UINT64_MAX / *item / static_cast<uint64_t>(n)) return Bad("size overflows");
    return WEFT_OK;
  }
  weft_status_t Array(const char* what, const uint64_t* a) const {
    return a == nullptr ? Bad(std::string(what) + " is NULL") : WEFT_OK;
  }
  // Sum of counts[i] * item, checked for overflow.
  weft_status_t Total(const char* what, const uint64_t* counts, int32_t n, uint64_t item,
                      uint64_t* total) const {
    *total = 0;
    for (int32_t i = 0; i < n; ++i) {
      if (counts[i] > (UINT64_MAX - *total) / item)
        return Bad(std::string(what) + ": sizes overflow");
      *total += counts[i] * item;
    }
    return WEFT_OK;
  }
  [[gnu::cold, gnu::noinline]] weft_status_t BadOp(int32_t op) const {
    return Bad("reduction op " + std::to_string(op) +
               " (the plugin reduces with sum, max, min or prod)");
  }
  weft_status_t Reduce(Comm& c, DLDataType t, int32_t op, Reduction* red) const {
    if (op != WEFT_REDUCE_SUM && op != WEFT_REDUCE_MAX && op != WEFT_REDUCE_MIN &&
        op != WEFT_REDUCE_PROD) [[unlikely]]
      return BadOp(op);
    red->host = st.host();
    red->dtype = t;
    red->op = op;
    if (weft_status_t s = Item(t, &red->item)) return s;
    red->item_shift = static_cast<uint32_t>(__builtin_ctzll(red->item));
    const uint64_t pair = uint64_t{t.code} | uint64_t{t.bits} << 8 | uint64_t{t.lanes} << 16 |
                          uint64_t{static_cast<uint32_t>(op)} << 32;
    if (c.kernel_pair == pair) {
      red->kernel = c.kernel;
      return WEFT_OK;
    }
    const weft_bk_host_api_t& h = *st.host();
    // The host's kernel where it hands one out (ABI 1.2, coll/algorithms.hpp), else (or for a
    // pair it rejects) host->reduce, which checks the pair and reports it without touching
    // memory.
    constexpr size_t kKernelEnd = offsetof(weft_bk_host_api_t, reduce_kernel) + sizeof(void*);
    weft_bk_reduce_fn kernel = nullptr;
    if (h.struct_size >= kKernelEnd && h.reduce_kernel != nullptr)
      kernel = h.reduce_kernel(h.host_data, t, op);
    // Reducible dtypes have one lane, so item is a power of two (kernel's count: bytes >> shift).
    if (kernel != nullptr && (uint64_t{1} << red->item_shift) != red->item) kernel = nullptr;
    if (kernel == nullptr) {
      if (weft_status_t s = h.reduce(h.host_data, t, op, nullptr, nullptr, 0)) return s;
    }
    red->kernel = c.kernel = kernel;
    c.kernel_pair = pair;
    return WEFT_OK;
  }
};

template <typename Build>
weft_status_t Run(weft_bk_comm_t* comm, const char* name, const weft_bk_op_t* a,
                  weft_bk_request_t** req, Build&& build) {
  Comm& c = *comm;
  State& st = *c.state;
  if (!OnHost(a))
    return st.Fail(WEFT_ERR_UNSUPPORTED, std::string(name) +
                                             ": device memory is not supported (kDLCPU and "
                                             "kDLCUDAHost only)");
  auto r = std::unique_ptr<weft_bk_request>(new weft_bk_request());
  r->state = &st;
  r->op = name;
  r->deadline = DeadlineOf(a);
  {
    std::lock_guard<std::mutex> lock(st.mu());
    std::string why;
    if (weft_status_t s = st.Aborted(&why)) return st.Fail(s, std::string(name) + ": " + why);
    r->sched = std::make_unique<Schedule>(c, name, r->deadline);
    build(*r->sched);
    r->sched->Start(r.get());
  }
  return Deliver(std::move(r), req);
}

// Even blocks of `count` elements: sizes and offsets in bytes.
void EvenBlocks(int32_t n, uint64_t bytes, std::vector<uint64_t>* size,
                std::vector<uint64_t>* displs) {
  size->assign(n, bytes);
  displs->resize(n);
  for (int32_t i = 0; i < n; ++i) (*displs)[i] = bytes * static_cast<uint64_t>(i);
}

std::vector<uint64_t> Scaled(const uint64_t* v, int32_t n, uint64_t item) {
  std::vector<uint64_t> out(v, v + n);
  for (uint64_t& x : out) x *= item;
  return out;
}

}  // namespace

weft_status_t CollAllreduce(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                            DLDataType dtype, int32_t op, const weft_bk_op_t* args,
                            weft_bk_request_t** req) {
  const Checker k{*comm->state, "allreduce"};
  Reduction red;
  uint64_t bytes = 0;
  if (weft_status_t s = k.Reduce(*comm, dtype, op, &red)) return s;
  if (weft_status_t s = k.Bytes("send", send, count, red.item, &bytes)) return s;
  if (weft_status_t s = k.Bytes("recv", recv, count, red.item, &bytes)) return s;
  // Members of one host meet on their boards (coll/board.hpp), blocking or not.
  if (bytes != 0 && OnBoard(*comm, bytes)) {
    if (req == nullptr && OnHost(args))
      return BoardAllreduce(*comm, red, send, recv, bytes, TimeoutOf(args));
    return Run(comm, k.name, args, req,
               [&](Schedule& s) { BuildBoardAllreduce(s, *comm, red, send, recv, bytes); });
  }
  // A small blocking all-reduce skips the schedule (small.hpp).
  if (req == nullptr && OnHost(args) &&
      SmallAllreduceFits(*comm, comm->state->tuning(), bytes, count))
    return SmallAllreduce(*comm, red, send, recv, bytes, DeadlineOf(args));
  return Run(comm, k.name, args, req, [&](Schedule& s) {
    BuildAllreduce(s, *comm, comm->state->tuning(), red, send, recv, count);
  });
}

weft_status_t CollAllgather(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                            DLDataType dtype, const weft_bk_op_t* args, weft_bk_request_t** req) {
  const Checker k{*comm->state, "allgather"};
  const int32_t n = comm->size();
  uint64_t item = 0, bytes = 0, total = 0;
  if (weft_status_t s = k.Block("send", send, count, dtype, n, &item, &bytes)) return s;
  if (weft_status_t s = k.Bytes("recv", recv, count * n, item, &total)) return s;
  std::vector<uint64_t> size, displs;
  EvenBlocks(n, bytes, &size, &displs);
  return Run(comm, k.name, args, req, [&](Schedule& s) {
    BuildAllgatherv(s, *comm, comm->state->tuning(), send, recv, size.data(), displs.data());
  });
}

weft_status_t CollAllgatherv(weft_bk_comm_t* comm, const void* send, uint64_t send_count,
                             void* recv, const uint64_t* recv_counts, const uint64_t* recv_displs,
                             DLDataType dtype, const weft_bk_op_t* args, weft_bk_request_t** req) {
  const Checker k{*comm->state, "allgatherv"};
  const int32_t n = comm->size(), me = comm->index;
  uint64_t item = 0, bytes = 0, total = 0;
  if (weft_status_t s = k.Item(dtype, &item)) return s;
  if (weft_status_t s = k.Array("recv_counts", recv_counts)) return s;
  if (weft_status_t s = k.Array("recv_displs", recv_displs)) return s;
  if (weft_status_t s = k.Bytes("send", send, send_count, item, &bytes)) return s;
  if (send_count != recv_counts[me])
    return k.Bad("this member sends " + std::to_string(send_count) + " elements but recv_counts[" +
                 std::to_string(me) + "] is " + std::to_string(recv_counts[me]));
  if (weft_status_t s = k.Total("recv_counts", recv_counts, n, item, &total)) return s;
  for (int32_t i = 0; i < n; ++i) {
    if (recv_displs[i] > UINT64_MAX / item || recv_displs[i] * item > UINT64_MAX - total)
      return k.Bad("recv_displs: offsets overflow");
  }
  if (recv == nullptr && total != 0) return k.Bad("recv is NULL");
  std::vector<uint64_t> size = Scaled(recv_counts, n, item);
  std::vector<uint64_t> displs = Scaled(recv_displs, n, item);
  return Run(comm, k.name, args, req, [&](Schedule& s) {
    BuildAllgatherv(s, *comm, comm->state->tuning(), send, recv, size.data(), displs.data());
  });
}

weft_status_t CollReduceScatter(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                                DLDataType dtype, int32_t op, const weft_bk_op_t* args,
                                weft_bk_request_t** req) {
  const Checker k{*comm->state, "reduce_scatter"};
  const int32_t n = comm->size();
  Reduction red;
  uint64_t bytes = 0, total = 0;
  if (weft_status_t s = k.Reduce(*comm, dtype, op, &red)) return s;
  if (weft_status_t s = k.Bytes("recv", recv, count, red.item, &bytes)) return s;
  if (count > UINT64_MAX / red.item / static_cast<uint64_t>(n))
    return k.Bad("send: size overflows");
  if (weft_status_t s = k.Bytes("send", send, count * n, red.item, &total)) return s;
  const std::vector<uint64_t> counts(n, count);
  return Run(comm, k.name, args, req, [&](Schedule& s) {
    BuildReduceScatterv(s, *comm, comm->state->tuning(), red, send, recv, counts.data());
  });
}

weft_status_t CollReduceScatterv(weft_bk_comm_t* comm, const void* send, void* recv,
                                 const uint64_t* counts, DLDataType dtype, int32_t op,
                                 const weft_bk_op_t* args, weft_bk_request_t** req) {
  const Checker k{*comm->state, "reduce_scatterv"};
  const int32_t n = comm->size();
  Reduction red;
  uint64_t bytes = 0, total = 0;
  if (weft_status_t s = k.Reduce(*comm, dtype, op, &red)) return s;
  if (weft_status_t s = k.Array("counts", counts)) return s;
  if (weft_status_t s = k.Total("counts", counts, n, red.item, &total)) return s;
  if (send == nullptr && total != 0) return k.Bad("send is NULL");
  if (weft_status_t s = k.Bytes("recv", recv, counts[comm->index], red.item, &bytes)) return s;
  return Run(comm, k.name, args, req, [&](Schedule& s) {
    BuildReduceScatterv(s, *comm, comm->state->tuning(), red, send, recv, counts);
  });
}

weft_status_t CollAlltoall(weft_bk_comm_t* comm, const void* send, void* recv, uint64_t count,
                           DLDataType dtype, const weft_bk_op_t* args, weft_bk_request_t** req) {
  const Checker k{*comm->state, "alltoall"};
  const int32_t n = comm->size();
  uint64_t item = 0, bytes = 0, total = 0;
  if (weft_status_t s = k.Block("block", send, count, dtype, n, &item, &bytes)) return s;
  if (weft_status_t s = k.Bytes("send", send, count * n, item, &total)) return s;
  if (weft_status_t s = k.Bytes("recv", recv, count * n, item, &total)) return s;
  std::vector<uint64_t> size, displs;
  EvenBlocks(n, bytes, &size, &displs);
  return Run(comm, k.name, args, req, [&](Schedule& s) {
    BuildAlltoallv(s, *comm, comm->state->tuning(), send, size.data(), displs.data(), recv,
                   size.data(), displs.data());
  });
}

weft_status_t CollAlltoallv(weft_bk_comm_t* comm, const void* send, const uint64_t* send_counts,
                            const uint64_t* send_displs, void* recv, const uint64_t* recv_counts,
                            const uint64_t* recv_displs, DLDataType dtype, const weft_bk_op_t* args,
                            weft_bk_request_t** req) {
  const Checker k{*comm->state, "alltoallv"};
  const int32_t n = comm->size(), me = comm->index;
  uint64_t item = 0, total = 0;
  if (weft_status_t s = k.Item(dtype, &item)) return s;
  for (const auto& [what, a] : {std::pair{"send_counts", send_counts},
                                {"send_displs", send_displs},
                                {"recv_counts", recv_counts},
                                {"recv_displs", recv_displs}})
    if (weft_status_t s = k.Array(what, a)) return s;
  if (weft_status_t s = k.Total("send_counts", send_counts, n, item, &total)) return s;
  if (send == nullptr && total != 0) return k.Bad("send is NULL");
  if (weft_status_t s = k.Total("recv_counts", recv_counts, n, item, &total)) return s;
  if (recv == nullptr && total != 0) return k.Bad("recv is NULL");
  for (int32_t i = 0; i < n; ++i) {
    if (send_displs[i] > UINT64_MAX / item || recv_displs[i] > UINT64_MAX / item)
      return k.Bad("displacements overflow");
  }
  if (send_counts[me] != recv_counts[me])
    return k.Bad("this member sends itself " + std::to_string(send_counts[me]) +
                 " elements but expects " + std::to_string(recv_counts[me]));
  const std::vector<uint64_t> sb = Scaled(send_counts, n, item), sd = Scaled(send_displs, n, item);
  const std::vector<uint64_t> rb = Scaled(recv_counts, n, item), rd = Scaled(recv_displs, n, item);
  return Run(comm, k.name, args, req, [&](Schedule& s) {
    BuildAlltoallv(s, *comm, comm->state->tuning(), send, sb.data(), sd.data(), recv, rb.data(),
                   rd.data());
  });
}

weft_status_t CollBroadcast(weft_bk_comm_t* comm, void* buf, uint64_t count, DLDataType dtype,
                            int32_t root, const weft_bk_op_t* args, weft_bk_request_t** req) {
  const Checker k{*comm->state, "broadcast"};
  uint64_t item = 0, bytes = 0;
  if (weft_status_t s = k.Item(dtype, &item)) return s;
  if (weft_status_t s = k.Bytes("buf", buf, count, item, &bytes)) return s;
  if (root < 0 || root >= comm->size())
    return k.Bad("root " + std::to_string(root) + " outside the group of " +
                 std::to_string(comm->size()));
  return Run(comm, k.name, args, req, [&](Schedule& s) {
    BuildBroadcast(s, *comm, comm->state->tuning(), buf, bytes, root);
  });
}

weft_status_t CollBarrier(weft_bk_comm_t* comm, const weft_bk_op_t* args, weft_bk_request_t** req) {
  if (OnBoard(*comm, 0)) {
    if (req == nullptr && OnHost(args)) return BoardBarrier(*comm, TimeoutOf(args));
    return Run(comm, "barrier", args, req, [&](Schedule& s) { BuildBoardBarrier(s, *comm); });
  }
  return Run(comm, "barrier", args, req, [&](Schedule& s) { BuildBarrier(s, *comm); });
}

}  // namespace weft::backends::ucx_plugin
