// Every invalid argument of the context, work and collective calls of the C ABI (SPEC §6.1-§6.5,
// §10), on a world of one rank with the self backend: the call returns
// WEFT_ERR_INVALID_ARGUMENT, weft_last_error() names the function and the argument, no handle
// or scalar output is written, the input buffer is unchanged, and nothing aborts or hangs.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tests/api/bad_input.hpp"
#include "weft/weft.h"

namespace {

using weft_test::Outs;

DLTensor Tensor(void* data, int64_t* shape, DLDataType dtype = {kDLFloat, 32, 1}) {
  return DLTensor{data, {kDLCPU, 0}, 1, dtype, shape, nullptr, 0};
}

// A context over a world of one rank, a mesh of it and an abstract mesh, and float32 tensors
// of 4 elements.
struct RtEnv {
  RtEnv() {
    weft_context_options_t opts = WEFT_CONTEXT_OPTIONS_INIT;
    opts.rank = 0;
    opts.world_size = 1;
    opts.backend = "self";
    opts.timeout_ms = 20000;  // a bug that makes a call wait fails the test instead of hanging
    EXPECT_EQ(weft_context_create(&opts, &ctx), WEFT_OK) << weft_last_error();
    const int64_t one[1] = {1};
    EXPECT_EQ(weft_mesh_create(ctx, 1, one, nullptr, &mesh), WEFT_OK) << weft_last_error();
    EXPECT_EQ(weft_mesh_create(nullptr, 1, one, nullptr, &abstract), WEFT_OK);
  }
  ~RtEnv() {
    weft_mesh_destroy(mesh);
    weft_mesh_destroy(abstract);
    EXPECT_EQ(weft_context_destroy(ctx), WEFT_OK) << weft_last_error();
  }
  RtEnv(const RtEnv&) = delete;
  RtEnv& operator=(const RtEnv&) = delete;

  weft_context_t* ctx = nullptr;
  weft_mesh_t* mesh = nullptr;
  weft_mesh_t* abstract = nullptr;
  // Room for a view that overlaps send by one element.
  float send_data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  float recv_data[4] = {};
  int64_t shape[1] = {4};
  int64_t counts[1] = {4};
  DLTensor send = Tensor(send_data, shape);
  DLTensor recv = Tensor(recv_data, shape);
};

enum class Fn {
  kAllreduce,
  kAllgather,
  kAllgatherv,
  kReduceScatter,
  kReduceScatterv,
  kAlltoall,
  kAlltoallv,
  kBroadcast,
  kBarrier,
  kSend,
  kRecv
};
constexpr Fn kAllFns[] = {Fn::kAllreduce,      Fn::kAllgather, Fn::kAllgatherv, Fn::kReduceScatter,
                          Fn::kReduceScatterv, Fn::kAlltoall,  Fn::kAlltoallv,  Fn::kBroadcast,
                          Fn::kBarrier,        Fn::kSend,      Fn::kRecv};
// The calls whose buffers are a (send, recv) pair; the others take one `buf`.
constexpr Fn kPairFns[] = {Fn::kAllreduce,      Fn::kAllgather, Fn::kAllgatherv, Fn::kReduceScatter,
                           Fn::kReduceScatterv, Fn::kAlltoall,  Fn::kAlltoallv};
constexpr Fn kBufFns[] = {Fn::kBroadcast, Fn::kSend, Fn::kRecv};

std::string Name(Fn f) {
  static const char* const kNames[] = {
      "weft_allreduce",       "weft_allgather", "weft_allgatherv", "weft_reduce_scatter",
      "weft_reduce_scatterv", "weft_alltoall",  "weft_alltoallv",  "weft_broadcast",
      "weft_barrier",         "weft_send",      "weft_recv"};
  return kNames[static_cast<int>(f)];
}

// "weft_reduce_scatterv" -> "ReduceScatterv", for test names.
std::string Label(Fn f, const std::string& what) {
  std::string out;
  bool upper = true;
  for (char c : Name(f).substr(5)) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(c)) : c;
    upper = false;
  }
  return out + what;
}

// The arguments of any collective, valid for the world of one rank; a case changes one.
struct Args {
  weft_context_t* ctx;
  const weft_mesh_t* mesh = nullptr;
  int32_t mesh_dim = 0;
  const DLTensor* send;
  DLTensor* recv;  // also `buf` of broadcast and recv
  int32_t op = WEFT_REDUCE_SUM;
  const int64_t* counts;  // recv_counts, counts, or both alltoallv counts
  const int64_t* send_counts;
  const int64_t* displs = nullptr;  // recv_displs of allgatherv and alltoallv
  const int64_t* send_displs = nullptr;
  int32_t root = 0, peer = 0;
  int64_t tag = 1;
  void* stream = nullptr;
  const weft_call_options_t* opts = nullptr;
  weft_work_t** work;
  DLTensor send_view{}, recv_view{};  // storage for a case's spoiled tensors
  void SetSend(const DLTensor& t) {
    send_view = t;
    send = &send_view;
  }
  void SetRecv(const DLTensor& t) {
    recv_view = t;
    recv = &recv_view;
  }
};

Args Valid(RtEnv& e, Outs& o) {
  Args a;
  a.ctx = e.ctx;
  a.send = &e.send;
  a.recv = &e.recv;
  a.counts = e.counts;
  a.send_counts = e.counts;
  a.work = &o.work;
  return a;
}

weft_status_t Call(Fn f, const Args& a) {
  switch (f) {
    case Fn::kAllreduce:
      return weft_allreduce(a.ctx, a.mesh, a.mesh_dim, a.send, a.recv, a.op, a.stream, a.opts,
                            a.work);
    case Fn::kAllgather:
      return weft_allgather(a.ctx, a.mesh, a.mesh_dim, a.send, a.recv, a.stream, a.opts, a.work);
    case Fn::kAllgatherv:
      return weft_allgatherv(a.ctx, a.mesh, a.mesh_dim, a.send, a.recv, a.counts, a.displs,
                             a.stream, a.opts, a.work);
    case Fn::kReduceScatter:
      return weft_reduce_scatter(a.ctx, a.mesh, a.mesh_dim, a.send, a.recv, a.op, a.stream, a.opts,
                                 a.work);
    case Fn::kReduceScatterv:
      return weft_reduce_scatterv(a.ctx, a.mesh, a.mesh_dim, a.send, a.recv, a.counts, a.op,
                                  a.stream, a.opts, a.work);
    case Fn::kAlltoall:
      return weft_alltoall(a.ctx, a.mesh, a.mesh_dim, a.send, a.recv, a.stream, a.opts, a.work);
    case Fn::kAlltoallv:
      return weft_alltoallv(a.ctx, a.mesh, a.mesh_dim, a.send, a.send_counts, a.send_displs, a.recv,
                            a.counts, a.displs, a.stream, a.opts, a.work);
    case Fn::kBroadcast:
      return weft_broadcast(a.ctx, a.mesh, a.mesh_dim, a.recv, a.root, a.stream, a.opts, a.work);
    case Fn::kBarrier:
      return weft_barrier(a.ctx, a.mesh, a.mesh_dim, a.stream, a.opts, a.work);
    case Fn::kSend:
      return weft_send(a.ctx, a.mesh, a.mesh_dim, a.send, a.peer, a.tag, a.stream, a.opts, a.work);
    case Fn::kRecv:
      return weft_recv(a.ctx, a.mesh, a.mesh_dim, a.recv, a.peer, a.tag, a.stream, a.opts, a.work);
  }
  return WEFT_ERR_INTERNAL;
}

using Row = weft_test::Case<RtEnv>;

// A row that calls `f` with the valid arguments as `change` leaves them, and also checks that
// the input buffer is unchanged (SPEC §6.1).
Row Collective(Fn f, const std::string& what, const char* arg, const char* value,
               const std::function<void(RtEnv&, Args&)>& change) {
  return Row{Label(f, what), Name(f), arg, value, [f, change](RtEnv& e, Outs& o) {
               Args a = Valid(e, o);
               change(e, a);
               const std::vector<float> before(e.send_data, e.send_data + 8);
               const weft_status_t s = Call(f, a);
               EXPECT_EQ(std::vector<float>(e.send_data, e.send_data + 8), before)
                   << "the input buffer changed";
               return s;
             }};
}

std::vector<Row> CommonCases() {
  static const weft_call_options_t kSmall = {4, 0, 0};
  static const struct {
    weft_call_options_t opts;
    uint64_t tail;
  } kNonZeroTail = {{sizeof(kNonZeroTail), 0, 0}, 1};
  std::vector<Row> rows;
  for (Fn f : kAllFns) {
    rows.push_back(
        Collective(f, "CtxNull", "ctx", nullptr, [](RtEnv&, Args& a) { a.ctx = nullptr; }));
    rows.push_back(Collective(f, "MeshDimNegative", "mesh_dim", "-1", [](RtEnv& e, Args& a) {
      a.mesh = e.mesh;
      a.mesh_dim = -1;
    }));
    rows.push_back(Collective(f, "MeshDimTooLarge", "mesh_dim", "1", [](RtEnv& e, Args& a) {
      a.mesh = e.mesh;
      a.mesh_dim = 1;
    }));
    rows.push_back(Collective(f, "MeshAbstract", "mesh", nullptr,
                              [](RtEnv& e, Args& a) { a.mesh = e.abstract; }));
    rows.push_back(Collective(f, "OptsStructSizeTooSmall", "opts->struct_size", "4",
                              [](RtEnv&, Args& a) { a.opts = &kSmall; }));
    rows.push_back(Collective(f, "OptsNonZeroTail", "opts->struct_size", "24",
                              [](RtEnv&, Args& a) { a.opts = &kNonZeroTail.opts; }));
    rows.push_back(Collective(f, "StreamForHostMemory", "stream", nullptr,
                              [](RtEnv&, Args& a) { a.stream = &a; }));
  }
  return rows;
}

// Tensors that CheckBuffer must refuse, each applied to the one argument `arg` names.
struct BadTensor {
  const char* what;
  const char* field;  // appended to the argument's name: "send" + "->shape"
  const char* value;
  std::function<void(DLTensor&)> spoil;
};

std::vector<BadTensor> BadTensors() {
  static int64_t negative[1] = {-4}, strides[1] = {2};
  return {
      {"DtypeLanes", "->dtype", "lanes=2", [](DLTensor& t) { t.dtype.lanes = 2; }},
      {"DtypeBits", "->dtype", "float12", [](DLTensor& t) { t.dtype.bits = 12; }},
      {"NdimTooLarge", "->ndim", "33", [](DLTensor& t) { t.ndim = 33; }},
      {"ShapeNull", "->shape", nullptr, [](DLTensor& t) { t.shape = nullptr; }},
      {"ShapeNegative", "->shape[0]", "-4", [](DLTensor& t) { t.shape = negative; }},
      {"Strided", "->strides[0]", "2", [](DLTensor& t) { t.strides = strides; }},
      {"DataNull", "->data", nullptr, [](DLTensor& t) { t.data = nullptr; }},
      // Past every user address space, and wrapping around the address space.
      {"ByteOffsetTwoTo62", "->byte_offset", "4611686018427387904",
       [](DLTensor& t) { t.byte_offset = uint64_t{1} << 62; }},
      {"ByteOffsetWraps", "->byte_offset", "18446744073709551615",
       [](DLTensor& t) { t.byte_offset = UINT64_MAX; }},
  };
}

std::vector<Row> BufferCases() {
  std::vector<Row> rows;
  for (Fn f : kPairFns) {
    rows.push_back(
        Collective(f, "SendNull", "send", nullptr, [](RtEnv&, Args& a) { a.send = nullptr; }));
    rows.push_back(
        Collective(f, "RecvNull", "recv", nullptr, [](RtEnv&, Args& a) { a.recv = nullptr; }));
    for (const BadTensor& b : BadTensors()) {
      const std::string send_arg = std::string("send") + b.field;
      const std::string recv_arg = std::string("recv") + b.field;
      Row s = Collective(f, std::string("Send") + b.what, "", b.value, [b](RtEnv& e, Args& a) {
        DLTensor t = e.send;
        b.spoil(t);
        a.SetSend(t);
      });
      s.arg = send_arg;
      rows.push_back(s);
      Row r = Collective(f, std::string("Recv") + b.what, "", b.value, [b](RtEnv& e, Args& a) {
        DLTensor t = e.recv;
        b.spoil(t);
        a.SetRecv(t);
      });
      r.arg = recv_arg;
      rows.push_back(r);
    }
    rows.push_back(Collective(f, "DtypeMismatch", "send", "int32", [](RtEnv& e, Args& a) {
      a.SetRecv(Tensor(e.recv_data, e.shape, {kDLInt, 32, 1}));
    }));
    rows.push_back(Collective(f, "Overlap", "send", "overlap", [](RtEnv& e, Args& a) {
      a.SetRecv(Tensor(e.send_data + 1, e.shape));
    }));
  }
  for (Fn f : kBufFns) {
    rows.push_back(Collective(f, "BufNull", "buf", nullptr, [f](RtEnv&, Args& a) {
      if (f == Fn::kSend) {
        a.send = nullptr;
      } else {
        a.recv = nullptr;
      }
    }));
    for (const BadTensor& b : BadTensors()) {
      Row row = Collective(f, std::string("Buf") + b.what, "", b.value, [f, b](RtEnv& e, Args& a) {
        DLTensor t = f == Fn::kSend ? e.send : e.recv;
        b.spoil(t);
        if (f == Fn::kSend) {
          a.SetSend(t);
        } else {
          a.SetRecv(t);
        }
      });
      row.arg = std::string("buf") + b.field;
      rows.push_back(row);
    }
  }
  return rows;
}

std::vector<Row> SpecificCases() {
  static int64_t three[1] = {3}, five[1] = {5}, minus[1] = {-1}, one[1] = {1};
  static int32_t ints[4];
  std::vector<Row> rows;
  for (Fn f : {Fn::kAllreduce, Fn::kReduceScatter, Fn::kReduceScatterv}) {
    rows.push_back(Collective(f, "OpNegative", "op", "-1", [](RtEnv&, Args& a) { a.op = -1; }));
    rows.push_back(Collective(f, "OpUnknown", "op", "5", [](RtEnv&, Args& a) { a.op = 5; }));
    rows.push_back(Collective(f, "OpAvgOnInt", "op", "int32", [](RtEnv& e, Args& a) {
      a.SetSend(Tensor(ints, e.shape, {kDLInt, 32, 1}));
      a.SetRecv(Tensor(ints, e.shape, {kDLInt, 32, 1}));  // in place: allowed
      a.op = WEFT_REDUCE_AVG;
    }));
  }
  auto short_recv = [](RtEnv& e, Args& a) { a.SetRecv(Tensor(e.recv_data, three)); };
  rows.push_back(Collective(Fn::kAllreduce, "RecvTooSmall", "recv", "3", short_recv));
  rows.push_back(Collective(Fn::kAllgather, "RecvTooSmall", "recv", "3", short_recv));
  rows.push_back(Collective(Fn::kAlltoall, "RecvTooSmall", "recv", "3", short_recv));
  rows.push_back(Collective(Fn::kReduceScatter, "SendNotGroupTimesRecv", "send", "3", short_recv));
  rows.push_back(Collective(Fn::kAlltoall, "InPlace", "send", nullptr,
                            [](RtEnv&, Args& a) { a.recv = const_cast<DLTensor*>(a.send); }));
  rows.push_back(Collective(Fn::kAlltoallv, "InPlace", "send", nullptr,
                            [](RtEnv&, Args& a) { a.recv = const_cast<DLTensor*>(a.send); }));
  // v-collectives: counts and displacements.
  rows.push_back(Collective(Fn::kAllgatherv, "RecvCountsNull", "recv_counts", nullptr,
                            [](RtEnv&, Args& a) { a.counts = nullptr; }));
  rows.push_back(Collective(Fn::kAllgatherv, "RecvCountsNegative", "recv_counts[0]", "-1",
                            [](RtEnv&, Args& a) { a.counts = minus; }));
  rows.push_back(Collective(Fn::kAllgatherv, "RecvCountsTooLarge", "recv_counts[0]", "5",
                            [](RtEnv&, Args& a) { a.counts = five; }));
  rows.push_back(Collective(Fn::kAllgatherv, "RecvDisplsOutside", "recv_displs[0]", "1",
                            [](RtEnv&, Args& a) { a.displs = one; }));
  rows.push_back(Collective(Fn::kAllgatherv, "SendNotItsCount", "send", "3",
                            [](RtEnv&, Args& a) { a.counts = three; }));
  rows.push_back(Collective(Fn::kReduceScatterv, "CountsNull", "counts", nullptr,
                            [](RtEnv&, Args& a) { a.counts = nullptr; }));
  rows.push_back(Collective(Fn::kReduceScatterv, "CountsNegative", "counts[0]", "-1",
                            [](RtEnv&, Args& a) { a.counts = minus; }));
  rows.push_back(Collective(Fn::kReduceScatterv, "CountsTooLarge", "counts[0]", "5",
                            [](RtEnv&, Args& a) { a.counts = five; }));
  rows.push_back(Collective(Fn::kReduceScatterv, "SendNotSumOfCounts", "send", "3",
                            [](RtEnv&, Args& a) { a.counts = three; }));
  rows.push_back(Collective(Fn::kAlltoallv, "SendCountsNull", "send_counts", nullptr,
                            [](RtEnv&, Args& a) { a.send_counts = nullptr; }));
  rows.push_back(Collective(Fn::kAlltoallv, "SendCountsTooLarge", "send_counts[0]", "5",
                            [](RtEnv&, Args& a) { a.send_counts = five; }));
  rows.push_back(Collective(Fn::kAlltoallv, "SendDisplsOutside", "send_displs[0]", "5",
                            [](RtEnv&, Args& a) { a.send_displs = five; }));
  rows.push_back(Collective(Fn::kAlltoallv, "RecvCountsNull", "recv_counts", nullptr,
                            [](RtEnv&, Args& a) { a.counts = nullptr; }));
  rows.push_back(Collective(Fn::kAlltoallv, "RecvCountsNegative", "recv_counts[0]", "-1",
                            [](RtEnv&, Args& a) { a.counts = minus; }));
  rows.push_back(Collective(Fn::kAlltoallv, "RecvDisplsOutside", "recv_displs[0]", "5",
                            [](RtEnv&, Args& a) { a.displs = five; }));
  // Roots, peers and tags.
  rows.push_back(Collective(Fn::kBroadcast, "RootNegative", "root", "-1",
                            [](RtEnv&, Args& a) { a.root = -1; }));
  rows.push_back(Collective(Fn::kBroadcast, "RootOutsideGroup", "root", "1",
                            [](RtEnv&, Args& a) { a.root = 1; }));
  for (Fn f : {Fn::kSend, Fn::kRecv}) {
    rows.push_back(
        Collective(f, "PeerNegative", "peer", "-1", [](RtEnv&, Args& a) { a.peer = -1; }));
    rows.push_back(
        Collective(f, "PeerOutsideGroup", "peer", "1", [](RtEnv&, Args& a) { a.peer = 1; }));
    rows.push_back(Collective(f, "TagNegative", "tag", "-1", [](RtEnv&, Args& a) { a.tag = -1; }));
    rows.push_back(Collective(f, "TagTooLarge", "tag", "2147483648",
                              [](RtEnv&, Args& a) { a.tag = int64_t{1} << 31; }));
    // The blocking form takes another path through the library.
    rows.push_back(Collective(f, "BlockingPeerOutsideGroup", "peer", "1", [](RtEnv&, Args& a) {
      a.peer = 1;
      a.work = nullptr;
    }));
    rows.push_back(Collective(f, "BlockingTagNegative", "tag", "-1", [](RtEnv&, Args& a) {
      a.tag = -1;
      a.work = nullptr;
    }));
  }
  return rows;
}

weft_status_t CreateContext(Outs& o, const std::function<void(weft_context_options_t&)>& change) {
  weft_context_options_t opts = WEFT_CONTEXT_OPTIONS_INIT;
  opts.rank = 0;
  opts.world_size = 1;
  opts.backend = "self";
  change(opts);
  return weft_context_create(&opts, &o.ctx);
}

std::vector<Row> ContextCases() {
  struct Bigger {
    weft_context_options_t opts;
    uint64_t tail;
  };
  using O = weft_context_options_t;
  return {
      {"ContextCreateOutNull", "weft_context_create", "ctx", nullptr,
       [](RtEnv&, Outs&) { return weft_context_create(nullptr, nullptr); }},
      {"ContextCreateStructSizeTooSmall", "weft_context_create", "opts->struct_size", "8",
       [](RtEnv&, Outs& o) { return CreateContext(o, [](O& p) { p.struct_size = 8; }); }},
      {"ContextCreateNonZeroTail", "weft_context_create", "opts->struct_size", nullptr,
       [](RtEnv&, Outs& o) {
         Bigger big{WEFT_CONTEXT_OPTIONS_INIT, 1};
         big.opts.struct_size = sizeof(big);
         return weft_context_create(&big.opts, &o.ctx);
       }},
      // The launch options are named as the environment detection names them.
      {"ContextCreateRankNotBelowWorld", "weft_context_create", "options.rank", "3",
       [](RtEnv&, Outs& o) {
         return CreateContext(o, [](O& p) {
           p.rank = 3;
           p.world_size = 2;
         });
       }},
      {"ContextCreateRankNegative", "weft_context_create", "options.rank", "-5",
       [](RtEnv&, Outs& o) { return CreateContext(o, [](O& p) { p.rank = -5; }); }},
      {"ContextCreateWorldSizeZero", "weft_context_create", "options.world_size", "0",
       [](RtEnv&, Outs& o) { return CreateContext(o, [](O& p) { p.world_size = 0; }); }},
      {"ContextCreatePortWithoutHost", "weft_context_create", "options.store_port", "70000",
       [](RtEnv&, Outs& o) { return CreateContext(o, [](O& p) { p.store_port = 70000; }); }},
      {"ContextRankCtxNull", "weft_context_rank", "ctx", nullptr,
       [](RtEnv&, Outs& o) { return weft_context_rank(nullptr, &o.i32[0]); }},
      {"ContextRankOutNull", "weft_context_rank", "rank", nullptr,
       [](RtEnv& e, Outs&) { return weft_context_rank(e.ctx, nullptr); }},
      {"ContextWorldSizeCtxNull", "weft_context_world_size", "ctx", nullptr,
       [](RtEnv&, Outs& o) { return weft_context_world_size(nullptr, &o.i32[0]); }},
      {"ContextWorldSizeOutNull", "weft_context_world_size", "world_size", nullptr,
       [](RtEnv& e, Outs&) { return weft_context_world_size(e.ctx, nullptr); }},
      {"BackendNameCtxNull", "weft_context_backend_name", "ctx", nullptr,
       [](RtEnv&, Outs& o) {
         return weft_context_backend_name(nullptr, o.buf.data(), 256, &o.needed);
       }},
      {"BackendNameNeededNull", "weft_context_backend_name", "needed", nullptr,
       [](RtEnv& e, Outs& o) {
         return weft_context_backend_name(e.ctx, o.buf.data(), 256, nullptr);
       }},
      {"BackendNameBufNull", "weft_context_backend_name", "buf", "256",
       [](RtEnv& e, Outs& o) { return weft_context_backend_name(e.ctx, nullptr, 256, &o.needed); }},
      {"BackendNameLenTooSmall", "weft_context_backend_name", "len", "4",
       [](RtEnv& e, Outs& o) {
         return weft_context_backend_name(e.ctx, o.buf.data(), 4, &o.needed);
       }},
      {"ContextAbortCtxNull", "weft_context_abort", "ctx", nullptr,
       [](RtEnv&, Outs&) { return weft_context_abort(nullptr); }},
      {"ContextErrorCtxNull", "weft_context_error", "ctx", nullptr,
       [](RtEnv&, Outs& o) {
         return weft_context_error(nullptr, &o.i32[0], &o.i32[1], o.buf.data(), 256, &o.needed);
       }},
      {"ContextErrorStatusNull", "weft_context_error", "status", nullptr,
       [](RtEnv& e, Outs& o) {
         return weft_context_error(e.ctx, nullptr, &o.i32[1], o.buf.data(), 256, &o.needed);
       }},
      {"ContextErrorFailedRankNull", "weft_context_error", "failed_rank", nullptr,
       [](RtEnv& e, Outs& o) {
         return weft_context_error(e.ctx, &o.i32[0], nullptr, o.buf.data(), 256, &o.needed);
       }},
      {"ContextErrorNeededNull", "weft_context_error", "needed", nullptr,
       [](RtEnv& e, Outs& o) {
         return weft_context_error(e.ctx, &o.i32[0], &o.i32[1], o.buf.data(), 256, nullptr);
       }},
      {"ContextErrorBufNull", "weft_context_error", "buf", "256",
       [](RtEnv& e, Outs& o) {
         return weft_context_error(e.ctx, &o.i32[0], &o.i32[1], nullptr, 256, &o.needed);
       }},
  };
}

// Work handles, and meshes over a live context.
std::vector<Row> WorkAndMeshCases() {
  return {
      {"WorkWaitWorkNull", "weft_work_wait", "work", nullptr,
       [](RtEnv&, Outs&) { return weft_work_wait(nullptr, 0); }},
      {"WorkTestWorkNull", "weft_work_test", "work", nullptr,
       [](RtEnv&, Outs& o) { return weft_work_test(nullptr, &o.i32[0]); }},
      {"WorkTestDoneNull", "weft_work_test", "done", nullptr,
       [](RtEnv& e, Outs&) {
         weft_work_t* work = nullptr;
         EXPECT_EQ(weft_barrier(e.ctx, nullptr, 0, nullptr, nullptr, &work), WEFT_OK);
         const weft_status_t s = weft_work_test(work, nullptr);
         const std::string msg = weft_last_error();
         EXPECT_EQ(weft_work_wait(work, -1), WEFT_OK);
         EXPECT_EQ(weft_work_release(work), WEFT_OK);
         EXPECT_EQ(msg, weft_last_error()) << "wait or release failed";
         return s;
       }},
      {"MeshCreateRanksBeyondWorld", "weft_mesh_create", "ranks[0]", "5",
       [](RtEnv& e, Outs& o) {
         const int64_t shape[1] = {1};
         const int32_t ranks[1] = {5};
         return weft_mesh_create(e.ctx, 1, shape, ranks, &o.mesh);
       }},
      {"MeshCreateShapeBeyondWorld", "weft_mesh_create", "shape", "2",
       [](RtEnv& e, Outs& o) {
         const int64_t shape[1] = {2};
         return weft_mesh_create(e.ctx, 1, shape, nullptr, &o.mesh);
       }},
  };
}

std::vector<Row> AllCases() {
  std::vector<Row> all;
  for (auto group : {CommonCases, BufferCases, SpecificCases, ContextCases, WorkAndMeshCases}) {
    std::vector<Row> cases = group();
    all.insert(all.end(), cases.begin(), cases.end());
  }
  return all;
}

class RuntimeBadInput : public testing::TestWithParam<Row> {};

TEST_P(RuntimeBadInput, IsRejectedNamingTheArgument) {
  RtEnv env;
  weft_test::ExpectRejected(GetParam(), env);
  // A world of one has no peer to abort: the context stays usable.
  EXPECT_EQ(weft_barrier(env.ctx, nullptr, 0, nullptr, nullptr, nullptr), WEFT_OK)
      << weft_last_error();
}

INSTANTIATE_TEST_SUITE_P(Api, RuntimeBadInput, testing::ValuesIn(AllCases()),
                         weft_test::CaseName<RtEnv>);

// The rows above change one argument of these: each must succeed unchanged (send and recv as a
// pair below), or the rows would prove nothing.
class RuntimeValid : public testing::TestWithParam<Fn> {};

TEST_P(RuntimeValid, BaselineArgumentsSucceed) {
  RtEnv env;
  Outs outs;
  Args a = Valid(env, outs);
  a.mesh = env.mesh;  // on the mesh, then on the world
  ASSERT_EQ(Call(GetParam(), a), WEFT_OK) << weft_last_error();
  ASSERT_NE(outs.work, Outs().work) << "the work handle was not written";
  EXPECT_EQ(weft_work_wait(outs.work, -1), WEFT_OK) << weft_last_error();
  EXPECT_EQ(weft_work_release(outs.work), WEFT_OK);
  a.mesh = nullptr;
  a.work = nullptr;
  EXPECT_EQ(Call(GetParam(), a), WEFT_OK) << weft_last_error();
}

INSTANTIATE_TEST_SUITE_P(Api, RuntimeValid,
                         testing::Values(Fn::kAllreduce, Fn::kAllgather, Fn::kAllgatherv,
                                         Fn::kReduceScatter, Fn::kReduceScatterv, Fn::kAlltoall,
                                         Fn::kAlltoallv, Fn::kBroadcast, Fn::kBarrier),
                         [](const testing::TestParamInfo<Fn>& info) {
                           return Label(info.param, "");
                         });

TEST(RuntimeValidPair, SendToSelfWithTheBaselineArguments) {
  RtEnv env;
  Outs recv_outs, send_outs;
  Args r = Valid(env, recv_outs), s = Valid(env, send_outs);
  ASSERT_EQ(Call(Fn::kRecv, r), WEFT_OK) << weft_last_error();
  ASSERT_EQ(Call(Fn::kSend, s), WEFT_OK) << weft_last_error();
  EXPECT_EQ(weft_work_wait(recv_outs.work, -1), WEFT_OK) << weft_last_error();
  EXPECT_EQ(weft_work_wait(send_outs.work, -1), WEFT_OK) << weft_last_error();
  weft_work_release(recv_outs.work);
  weft_work_release(send_outs.work);
  EXPECT_EQ(std::vector<float>(env.recv_data, env.recv_data + 4),
            std::vector<float>(env.send_data, env.send_data + 4));
}

}  // namespace
