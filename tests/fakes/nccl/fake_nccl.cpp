// A fake NCCL for machines without a GPU (issue 24 item 3): NCCL's C API over host memory
// between processes, on the fake CUDA runtime's streams. What it keeps of NCCL: unique ids
// made by one rank and passed out of band; blocking and non-blocking initialisation
// (ncclInProgress until connected); ncclCommSplit; every collective the plugin calls and
// point-to-point send/recv, each enqueued on the caller's stream without blocking the caller;
// group calls that fuse their operations (sends and receives of a group never wait on each
// other); ncclCommGetAsyncError, ncclCommAbort, and a dead peer that hangs the operation until
// the abort (comm.hpp). What it does not keep: NCCL's algorithms (data goes straight to every
// peer and is reduced in rank order) and its speed.
#include <unistd.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "tests/fakes/nccl/comm.hpp"
#include "tests/fakes/nccl/reduce.hpp"

extern "C" cudaError_t cudaGetDeviceCount(int*);
extern "C" int fakeCudaIsDeviceRange(const void*, size_t);

namespace weft::fake_nccl {
namespace {

constexpr char kMagic[4] = {'F', 'N', 'C', 'L'};

// The handle the caller holds; operations hold the communicator itself, so that an abort or
// destroy never frees what a queued operation still reads.
struct Handle {
  std::shared_ptr<Comm> comm;
};

thread_local std::string last_error;
thread_local int group_depth = 0;
struct Pending {
  std::unique_ptr<Op> op;
  cudaStream_t stream;
};
thread_local std::vector<Pending> group;

ncclResult_t Fail(ncclResult_t e, const std::string& why) {
  last_error = why;
  return e;
}

std::shared_ptr<Comm> Of(ncclComm_t c) { return reinterpret_cast<Handle*>(c)->comm; }

int64_t InitTimeoutMs() {
  const char* t = std::getenv("FAKE_NCCL_INIT_TIMEOUT_MS");
  return t ? std::atoll(t) : 120000;
}

// The directory a unique id names, or "" if it is not one of ours.
std::string DirOf(const ncclUniqueId& id) {
  if (std::memcmp(id.internal, kMagic, sizeof(kMagic)) != 0) return "";
  const char* path = id.internal + sizeof(kMagic);
  return std::string(path, strnlen(path, sizeof(id.internal) - sizeof(kMagic)));
}

void Connect(const std::shared_ptr<Comm>& c, const std::string& dir) {
  std::string why;
  if (c->nranks > 1)
    c->mesh = Mesh::Connect(dir, c->rank, c->nranks, InitTimeoutMs(), c->aborted, &why);
  if (c->nranks > 1 && !c->mesh) {
    c->SetError(nccl::kSystemError, "initialisation: " + why);
    return;
  }
  if (c->nranks == 1) ::rmdir(dir.c_str());  // else the last rank to connect removes it
  c->async_error.store(nccl::kSuccess);
}

ncclResult_t Init(ncclComm_t* out, int nranks, const ncclUniqueId& id, int rank, bool blocking) {
  if (!out) return Fail(nccl::kInvalidArgument, "comm is NULL");
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return Fail(nccl::kInvalidArgument, "rank " + std::to_string(rank) + " of " +
                                            std::to_string(nranks) + " is out of range");
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cuda::kSuccess || devices < 1)
    return Fail(nccl::kUnhandledCudaError, "no CUDA device is visible");
  const std::string dir = DirOf(id);
  if (dir.empty()) return Fail(nccl::kInvalidArgument, "not a unique id of this library");
  auto c = std::make_shared<Comm>();
  c->rank = rank;
  c->nranks = nranks;
  c->async_error.store(nccl::kInProgress);
  *out = reinterpret_cast<ncclComm_t>(new Handle{c});  // freed by destroy or abort
  if (blocking) {
    Connect(c, dir);
    return c->async_error.load();
  }
  c->init = std::thread([c, dir] { Connect(c, dir); });
  return nccl::kInProgress;
}

// The receive scratch of `bytes` owned by `op`.
char* Scratch(Op& op, size_t bytes) {
  op.scratch.push_back(std::make_unique<char[]>(bytes ? bytes : 1));
  return op.scratch.back().get();
}

// Where the fake runtime checks pointers (FAKE_CUDA_CHECK_POINTERS=1): every buffer an
// operation reads or writes must be device memory, as NCCL's kernels need; a host pointer
// fails the call instead of being read as if it were on the device.
struct Range {
  const void* ptr;
  size_t bytes;
  const char* name;
};
ncclResult_t CheckRanges(std::initializer_list<Range> ranges) {
  for (const Range& r : ranges)
    if (!fakeCudaIsDeviceRange(r.ptr, r.bytes))
      return Fail(nccl::kInvalidArgument, std::string(r.name) + " (" + std::to_string(r.bytes) +
                                              " bytes) is not in device memory");
  return nccl::kSuccess;
}

// A reduction's buffers: recv is written on every rank (root < 0) or on the root only.
ncclResult_t CheckReduceBuffers(const void* send, const void* recv, size_t bytes, int root,
                                int me) {
  const size_t written = root < 0 || me == root ? bytes : 0;
  return CheckRanges({{send, bytes, "sendbuff"}, {recv, written, "recvbuff"}});
}

ncclResult_t CheckOp(ncclComm_t comm, ncclDataType_t type, size_t* item) {
  if (!comm) return Fail(nccl::kInvalidArgument, "comm is NULL");
  *item = TypeSize(type);
  if (*item == 0) return Fail(nccl::kInvalidArgument, "unknown datatype " + std::to_string(type));
  const std::shared_ptr<Comm> c = Of(comm);
  if (c->aborted.load()) return Fail(nccl::kInvalidUsage, "the communicator was aborted");
  const ncclResult_t e = c->async_error.load();
  if (e == nccl::kInProgress) return Fail(nccl::kInvalidUsage, "the communicator is not ready");
  return nccl::kSuccess;
}

ncclResult_t Submit(std::unique_ptr<Op> op, cudaStream_t stream) {
  if (group_depth > 0) {
    group.push_back({std::move(op), stream});
    return nccl::kSuccess;
  }
  return Issue(std::move(op), stream);
}

std::unique_ptr<Op> NewOp(ncclComm_t comm) {
  auto op = std::make_unique<Op>();
  op->comm = Of(comm);
  return op;
}

// The start every operation shares: the checks, the operation, its ranks and byte count.
struct Started {
  ncclResult_t error = nccl::kSuccess;
  std::unique_ptr<Op> op;
  int n = 0, me = 0;
  size_t bytes = 0;
};

Started Start(ncclComm_t comm, ncclDataType_t type, size_t count) {
  Started b;
  size_t item = 0;
  b.error = CheckOp(comm, type, &item);
  if (b.error != nccl::kSuccess) return b;
  b.op = NewOp(comm);
  b.n = b.op->comm->nranks;
  b.me = b.op->comm->rank;
  b.bytes = count * item;
  return b;
}

// One message each way with every other rank: send_at(p) goes to p, p's arrives at recv_at(p).
template <typename SendAt, typename RecvAt>
void ExchangeWithPeers(Op& op, int n, int me, size_t bytes, SendAt send_at, RecvAt recv_at) {
  for (int p = 0; p < n; ++p) {
    if (p == me) continue;
    op.transfers.push_back({p, true, send_at(p), bytes});
    op.transfers.push_back({p, false, recv_at(p), bytes});
  }
}

// recv = the contributions reduced in rank order (rank 0's first, whatever this rank is):
// `own` is this rank's, from[p] peer p's; the first one is the accumulator.
void ReduceInRankOrder(ncclDataType_t type, ncclRedOp_t op, size_t count, int me, char* own,
                       const std::vector<char*>& from, void* recv) {
  const int n = static_cast<int>(from.size());
  char* acc = me == 0 ? own : from[0];
  for (int p = 1; p < n; ++p)
    Reduce(type, op, acc, p == me ? own : from[static_cast<size_t>(p)], count);
  if (op == nccl::kAvg) Divide(type, acc, count, n);
  std::memmove(recv, acc, count * TypeSize(type));
}

// recv = the ranks' `send` reduced in rank order; `root` < 0: on every rank, else on root only.
// FAKE_NCCL_FAIL_BYTES=n: every reduction of n bytes fails as a broken link would
// (Op::injected_failure): what only a poll of ncclCommGetAsyncError notices, since no process
// dies. 0 or unset: none.
size_t FailBytes() {
  static const size_t n = [] {
    const char* v = std::getenv("FAKE_NCCL_FAIL_BYTES");
    return v ? static_cast<size_t>(std::strtoull(v, nullptr, 10)) : size_t{0};
  }();
  return n;
}

ncclResult_t ReduceTo(const void* send, void* recv, size_t count, ncclDataType_t type,
                      ncclRedOp_t op_code, int root, ncclComm_t comm, cudaStream_t stream) {
  if (!CanReduce(type, op_code)) return Fail(nccl::kInvalidArgument, "unsupported reduction");
  Started b = Start(comm, type, count);
  if (b.error != nccl::kSuccess) return b.error;
  auto& [error, op, n, me, bytes] = b;
  if (ncclResult_t e = CheckReduceBuffers(send, recv, bytes, root, me)) return e;
  if (bytes > 0 && bytes == FailBytes())
    op->injected_failure =
        "a link failed (injected: FAKE_NCCL_FAIL_BYTES=" + std::to_string(bytes) + ")";
  std::vector<char*> from(static_cast<size_t>(n), nullptr);
  for (int p = 0; p < n; ++p) {
    if (p == me) continue;
    if (root < 0 || p == root) op->transfers.push_back({p, true, const_cast<void*>(send), bytes});
    if (root < 0 || me == root) {
      from[static_cast<size_t>(p)] = Scratch(*op, bytes);
      op->transfers.push_back({p, false, from[static_cast<size_t>(p)], bytes});
    }
  }
  if (root < 0 || me == root) {
    char* own = Scratch(*op, bytes);
    op->before.push_back([=] { std::memcpy(own, send, bytes); });
    op->after.push_back([=] { ReduceInRankOrder(type, op_code, count, me, own, from, recv); });
  }
  return Submit(std::move(op), stream);
}

}  // namespace
}  // namespace weft::fake_nccl

using namespace weft;             // NOLINT
using namespace weft::fake_nccl;  // NOLINT

#define FAKE_API extern "C" __attribute__((visibility("default")))

FAKE_API ncclResult_t ncclGetVersion(int* version) {
  if (!version) return Fail(nccl::kInvalidArgument, "version is NULL");
  *version = nccl::Version(2, 28, 0);
  return nccl::kSuccess;
}

FAKE_API const char* ncclGetErrorString(ncclResult_t r) {
  switch (r) {
    case nccl::kSuccess:
      return "no error";
    case nccl::kUnhandledCudaError:
      return "unhandled cuda error";
    case nccl::kSystemError:
      return "unhandled system error";
    case nccl::kInternalError:
      return "internal error";
    case nccl::kInvalidArgument:
      return "invalid argument";
    case nccl::kInvalidUsage:
      return "invalid usage";
    case nccl::kRemoteError:
      return "remote process exited or there was a network error";
    case nccl::kInProgress:
      return "NCCL operation in progress";
    default:
      return "unknown result code";
  }
}

FAKE_API const char* ncclGetLastError(ncclComm_t comm) {
  if (comm) {
    const std::shared_ptr<Comm> c = Of(comm);
    std::lock_guard<std::mutex> lock(c->mu);
    if (!c->last_error.empty()) {
      last_error = c->last_error;
    }
  }
  return last_error.c_str();
}

FAKE_API ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  if (!id) return Fail(nccl::kInvalidArgument, "uniqueId is NULL");
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/fake-nccl-XXXXXX";
  if (tmpl.size() + sizeof(kMagic) + 1 > sizeof(id->internal) || !::mkdtemp(tmpl.data()))
    return Fail(nccl::kSystemError, "cannot make a rendezvous directory under " + tmpl);
  std::memset(id->internal, 0, sizeof(id->internal));
  std::memcpy(id->internal, kMagic, sizeof(kMagic));
  std::memcpy(id->internal + sizeof(kMagic), tmpl.c_str(), tmpl.size());
  return nccl::kSuccess;
}

FAKE_API ncclResult_t ncclCommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank) {
  return Init(comm, nranks, id, rank, true);
}

FAKE_API ncclResult_t ncclCommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id,
                                             int rank, weft_nccl_config_t* config) {
  if (config && config->magic != nccl::kConfigMagic)
    return Fail(nccl::kInvalidArgument, "config was not initialised (magic)");
  const bool blocking = !config || config->blocking != 0;  // undefined (INT_MIN): blocking
  return Init(comm, nranks, id, rank, blocking);
}

FAKE_API ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* error) {
  if (!comm || !error) return Fail(nccl::kInvalidArgument, "comm or asyncError is NULL");
  *error = Of(comm)->async_error.load();
  return nccl::kSuccess;
}

FAKE_API ncclResult_t ncclCommCount(const ncclComm_t comm, int* count) {
  if (!comm || !count) return Fail(nccl::kInvalidArgument, "comm or count is NULL");
  *count = Of(comm)->nranks;
  return nccl::kSuccess;
}

FAKE_API ncclResult_t ncclCommUserRank(const ncclComm_t comm, int* rank) {
  if (!comm || !rank) return Fail(nccl::kInvalidArgument, "comm or rank is NULL");
  *rank = Of(comm)->rank;
  return nccl::kSuccess;
}

FAKE_API ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device) {
  if (!comm || !device) return Fail(nccl::kInvalidArgument, "comm or device is NULL");
  *device = 0;
  return nccl::kSuccess;
}

// Waits for the operations issued so far (they run on their streams).
FAKE_API ncclResult_t ncclCommFinalize(ncclComm_t comm) {
  if (!comm) return Fail(nccl::kInvalidArgument, "comm is NULL");
  const std::shared_ptr<Comm> c = Of(comm);
  std::unique_lock<std::mutex> lock(c->mu);
  c->cv.wait(lock, [&] { return c->ran == c->issued || c->aborted.load(); });
  return c->async_error.load() == nccl::kInProgress ? nccl::kSuccess : c->async_error.load();
}

FAKE_API ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  if (!comm) return Fail(nccl::kInvalidArgument, "comm is NULL");
  std::unique_ptr<Handle> h(reinterpret_cast<Handle*>(comm));
  return nccl::kSuccess;
}

FAKE_API ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (!comm) return Fail(nccl::kInvalidArgument, "comm is NULL");
  std::unique_ptr<Handle> h(reinterpret_cast<Handle*>(comm));
  Comm& c = *h->comm;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    c.aborted.store(true);
    c.cv.notify_all();
  }
  if (c.init.joinable()) c.init.join();
  if (c.mesh) c.mesh->Shutdown();  // the peers see this rank die
  return nccl::kSuccess;
}

FAKE_API ncclResult_t ncclGroupStart() {
  ++group_depth;
  return nccl::kSuccess;
}

// The group's operations, fused per communicator (one operation each, its transfers and local
// work in issue order), issued on the stream of the communicator's first operation.
FAKE_API ncclResult_t ncclGroupEnd() {
  if (group_depth == 0) return Fail(nccl::kInvalidUsage, "ncclGroupEnd without ncclGroupStart");
  if (--group_depth > 0) return nccl::kSuccess;
  std::vector<Pending> ops = std::move(group);
  group.clear();
  ncclResult_t result = nccl::kSuccess;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].op) continue;
    Op& fused = *ops[i].op;
    for (size_t j = i + 1; j < ops.size(); ++j) {
      if (!ops[j].op || ops[j].op->comm != fused.comm) continue;
      Op& o = *ops[j].op;
      for (auto& t : o.transfers) fused.transfers.push_back(t);
      for (auto& f : o.before) fused.before.push_back(std::move(f));
      for (auto& f : o.after) fused.after.push_back(std::move(f));
      for (auto& s : o.scratch) fused.scratch.push_back(std::move(s));
      ops[j].op.reset();
    }
    if (ncclResult_t e = Issue(std::move(ops[i].op), ops[i].stream)) result = e;
  }
  return result;
}

FAKE_API ncclResult_t ncclAllReduce(const void* send, void* recv, size_t count, ncclDataType_t type,
                                    ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  return ReduceTo(send, recv, count, type, op, -1, comm, stream);
}

FAKE_API ncclResult_t ncclReduce(const void* send, void* recv, size_t count, ncclDataType_t type,
                                 ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream) {
  if (comm && (root < 0 || root >= Of(comm)->nranks))
    return Fail(nccl::kInvalidArgument, "root " + std::to_string(root) + " is out of range");
  return ReduceTo(send, recv, count, type, op, root, comm, stream);
}

FAKE_API ncclResult_t ncclBroadcast(const void* send, void* recv, size_t count, ncclDataType_t type,
                                    int root, ncclComm_t comm, cudaStream_t stream) {
  size_t item = 0;
  if (ncclResult_t e = CheckOp(comm, type, &item)) return e;
  auto op = NewOp(comm);
  const int n = op->comm->nranks, me = op->comm->rank;
  if (root < 0 || root >= n) return Fail(nccl::kInvalidArgument, "root is out of range");
  const size_t bytes = count * item;
  if (ncclResult_t e =
          CheckRanges({{send, me == root ? bytes : 0, "sendbuff"}, {recv, bytes, "recvbuff"}}))
    return e;
  if (me == root) {
    op->before.push_back([=] {
      if (send != recv) std::memmove(recv, send, bytes);
    });
    for (int p = 0; p < n; ++p)
      if (p != me) op->transfers.push_back({p, true, recv, bytes});
  } else {
    op->transfers.push_back({root, false, recv, bytes});
  }
  return Submit(std::move(op), stream);
}

FAKE_API ncclResult_t ncclAllGather(const void* send, void* recv, size_t count, ncclDataType_t type,
                                    ncclComm_t comm, cudaStream_t stream) {
  Started b = Start(comm, type, count);
  if (b.error != nccl::kSuccess) return b.error;
  auto& [error, op, n, me, bytes] = b;
  if (ncclResult_t e = CheckRanges(
          {{send, bytes, "sendbuff"}, {recv, bytes * static_cast<size_t>(n), "recvbuff"}}))
    return e;
  char* out = static_cast<char*>(recv);
  char* own = Scratch(*op, bytes);  // send may lie inside recv (in place)
  op->before.push_back([=] { std::memcpy(own, send, bytes); });
  ExchangeWithPeers(
      *op, n, me, bytes, [&](int) { return own; },
      [&](int p) { return out + static_cast<size_t>(p) * bytes; });
  op->after.push_back([=] { std::memcpy(out + static_cast<size_t>(me) * bytes, own, bytes); });
  return Submit(std::move(op), stream);
}

FAKE_API ncclResult_t ncclReduceScatter(const void* send, void* recv, size_t count,
                                        ncclDataType_t type, ncclRedOp_t op_code, ncclComm_t comm,
                                        cudaStream_t stream) {
  if (!CanReduce(type, op_code)) return Fail(nccl::kInvalidArgument, "unsupported reduction");
  Started b = Start(comm, type, count);
  if (b.error != nccl::kSuccess) return b.error;
  auto& [error, op, n, me, bytes] = b;
  if (ncclResult_t e = CheckRanges(
          {{send, bytes * static_cast<size_t>(n), "sendbuff"}, {recv, bytes, "recvbuff"}}))
    return e;
  const char* in = static_cast<const char*>(send);
  std::vector<char*> from(static_cast<size_t>(n), nullptr);
  char* own = Scratch(*op, bytes);
  op->before.push_back([=] { std::memcpy(own, in + static_cast<size_t>(me) * bytes, bytes); });
  ExchangeWithPeers(
      *op, n, me, bytes,
      [&](int p) { return const_cast<char*>(in) + static_cast<size_t>(p) * bytes; },
      [&](int p) { return from[static_cast<size_t>(p)] = Scratch(*op, bytes); });
  op->after.push_back([=] { ReduceInRankOrder(type, op_code, count, me, own, from, recv); });
  return Submit(std::move(op), stream);
}

FAKE_API ncclResult_t ncclAlltoAll(const void* send, void* recv, size_t count, ncclDataType_t type,
                                   ncclComm_t comm, cudaStream_t stream) {
  Started b = Start(comm, type, count);
  if (b.error != nccl::kSuccess) return b.error;
  auto& [error, op, n, me, bytes] = b;
  if (ncclResult_t e = CheckRanges({{send, bytes * static_cast<size_t>(n), "sendbuff"},
                                    {recv, bytes * static_cast<size_t>(n), "recvbuff"}}))
    return e;
  const char* in = static_cast<const char*>(send);
  char* out = static_cast<char*>(recv);
  ExchangeWithPeers(
      *op, n, me, bytes,
      [&](int p) { return const_cast<char*>(in) + static_cast<size_t>(p) * bytes; },
      [&](int p) { return out + static_cast<size_t>(p) * bytes; });
  op->before.push_back([=] {
    std::memmove(out + static_cast<size_t>(me) * bytes, in + static_cast<size_t>(me) * bytes,
                 bytes);
  });
  return Submit(std::move(op), stream);
}

FAKE_API ncclResult_t ncclSend(const void* send, size_t count, ncclDataType_t type, int peer,
                               ncclComm_t comm, cudaStream_t stream) {
  size_t item = 0;
  if (ncclResult_t e = CheckOp(comm, type, &item)) return e;
  auto op = NewOp(comm);
  if (peer < 0 || peer >= op->comm->nranks)
    return Fail(nccl::kInvalidArgument, "peer " + std::to_string(peer) + " is out of range");
  if (ncclResult_t e = CheckRanges({{send, count * item, "sendbuff"}})) return e;
  op->transfers.push_back({peer, true, const_cast<void*>(send), count * item});
  return Submit(std::move(op), stream);
}

FAKE_API ncclResult_t ncclRecv(void* recv, size_t count, ncclDataType_t type, int peer,
                               ncclComm_t comm, cudaStream_t stream) {
  size_t item = 0;
  if (ncclResult_t e = CheckOp(comm, type, &item)) return e;
  auto op = NewOp(comm);
  if (peer < 0 || peer >= op->comm->nranks)
    return Fail(nccl::kInvalidArgument, "peer " + std::to_string(peer) + " is out of range");
  if (ncclResult_t e = CheckRanges({{recv, count * item, "recvbuff"}})) return e;
  op->transfers.push_back({peer, false, recv, count * item});
  return Submit(std::move(op), stream);
}

namespace weft::fake_nccl {
namespace {

struct SplitEntry {
  int color, key;
  ncclUniqueId id;
};

// Every rank's `bytes` from the front of its entry, through the parent in issue order.
bool ExchangeEntries(const std::shared_ptr<Comm>& parent, std::vector<SplitEntry>& all,
                     size_t bytes, size_t offset) {
  Op op;
  op.comm = parent;
  const int me = parent->rank;
  char* mine = reinterpret_cast<char*>(&all[static_cast<size_t>(me)]) + offset;
  for (int p = 0; p < parent->nranks; ++p)
    if (p != me) {
      op.transfers.push_back({p, true, mine, bytes});
      op.transfers.push_back(
          {p, false, reinterpret_cast<char*>(&all[static_cast<size_t>(p)]) + offset, bytes});
    }
  RunNow(op);
  return parent->async_error.load() == nccl::kSuccess;
}

struct Child {
  int leader = -1, size = 0, rank = 0;
};

// The child of rank `me`: its color's lowest parent rank leads, ranks order by (key, parent rank).
Child ChildOf(const std::vector<SplitEntry>& all, int me) {
  Child c;
  const SplitEntry& mine = all[static_cast<size_t>(me)];
  for (size_t p = 0; p < all.size(); ++p) {
    if (mine.color == nccl::kSplitNoColor || all[p].color != mine.color) continue;
    if (c.leader < 0) c.leader = static_cast<int>(p);
    ++c.size;
    if (all[p].key < mine.key || (all[p].key == mine.key && static_cast<int>(p) < me)) ++c.rank;
  }
  return c;
}

}  // namespace
}  // namespace weft::fake_nccl

// Every rank's (color, key) through the parent, in issue order with its operations; the
// lowest rank of each color makes the child's directory and passes its id to the others.
FAKE_API ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t* newcomm,
                                    weft_nccl_config_t* config) {
  if (!comm || !newcomm) return Fail(nccl::kInvalidArgument, "comm or newcomm is NULL");
  if (group_depth > 0) return Fail(nccl::kInvalidUsage, "ncclCommSplit inside a group");
  size_t item = 0;
  if (ncclResult_t e = CheckOp(comm, nccl::kUint8, &item)) return e;
  const std::shared_ptr<Comm> parent = Of(comm);
  const int me = parent->rank;
  std::vector<SplitEntry> all(static_cast<size_t>(parent->nranks));
  all[static_cast<size_t>(me)] = {color, key, {}};
  if (!ExchangeEntries(parent, all, 2 * sizeof(int), 0))
    return Fail(parent->async_error.load(), "ncclCommSplit: the exchange failed");
  const Child child = ChildOf(all, me);
  if (me == child.leader)
    if (ncclResult_t e = ncclGetUniqueId(&all[static_cast<size_t>(me)].id)) return e;
  if (!ExchangeEntries(parent, all, sizeof(ncclUniqueId), offsetof(SplitEntry, id)))
    return Fail(parent->async_error.load(), "ncclCommSplit: the exchange failed");
  if (color == nccl::kSplitNoColor) {
    *newcomm = nullptr;
    return nccl::kSuccess;
  }
  const bool blocking = !config || config->blocking != 0;
  return Init(newcomm, child.size, all[static_cast<size_t>(child.leader)].id, child.rank, blocking);
}
