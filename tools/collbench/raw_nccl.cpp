#include "tools/collbench/raw_nccl.hpp"

#include <cstring>
#include <stdexcept>

namespace weft::collbench {
namespace {

// NCCL's type for a reduction of t, or -1.
int NcclType(const DType& t) {
  const DLDataType d = t.dl;
  if (d.code == kDLFloat)
    return d.bits == 16   ? nccl::kFloat16
           : d.bits == 32 ? nccl::kFloat32
           : d.bits == 64 ? nccl::kFloat64
                          : -1;
  if (d.code == kDLBfloat) return d.bits == 16 ? nccl::kBfloat16 : -1;
  if (d.code == kDLInt)
    return d.bits == 8    ? nccl::kInt8
           : d.bits == 32 ? nccl::kInt32
           : d.bits == 64 ? nccl::kInt64
                          : -1;
  if (d.code == kDLUInt)
    return d.bits == 8    ? nccl::kUint8
           : d.bits == 32 ? nccl::kUint32
           : d.bits == 64 ? nccl::kUint64
                          : -1;
  return -1;
}

int NcclOp(int redop) {
  switch (redop) {
    case WEFT_REDUCE_SUM:
      return nccl::kSum;
    case WEFT_REDUCE_PROD:
      return nccl::kProd;
    case WEFT_REDUCE_MAX:
      return nccl::kMax;
    case WEFT_REDUCE_MIN:
      return nccl::kMin;
    default:
      return -1;
  }
}

}  // namespace

std::unique_ptr<RawNccl> RawNccl::Connect(weft_context_t* ctx, int32_t rank, int32_t nranks,
                                          DeviceMemory* device, std::string* error) {
  if (!device) {
    *error = "--raw nccl needs device buffers (-d cuda)";
    return nullptr;
  }
  std::unique_ptr<RawNccl> raw(new RawNccl());
  raw->device_ = device;
  raw->rank_ = rank;
  raw->nranks_ = nranks;
  raw->api_ = backends::nccl_plugin::NcclApi::Load(error);
  if (!raw->api_) return nullptr;
  ncclUniqueId id{};
  if (rank == 0) {
    if (ncclResult_t r = raw->api_->GetUniqueId(&id); r != nccl::kSuccess) {
      *error = raw->api_->Describe("ncclGetUniqueId", r);
      return nullptr;
    }
  }
  int64_t shape[1] = {static_cast<int64_t>(sizeof(id))};
  DLTensor t{&id, {kDLCPU, 0}, 1, {kDLUInt, 8, 1}, shape, nullptr, 0};
  if (weft_status_t s = weft_broadcast(ctx, nullptr, 0, &t, 0, nullptr, nullptr, nullptr); s) {
    *error = std::string("broadcast of the NCCL unique id: ") + weft_last_error();
    return nullptr;
  }
  weft_nccl_config_t config = nccl::MakeConfig(true);
  if (ncclResult_t r = raw->api_->CommInitRankConfig(&raw->comm_, nranks, id, rank, &config);
      r != nccl::kSuccess) {
    *error = raw->api_->Describe("ncclCommInitRankConfig", r);
    raw->comm_ = nullptr;
    return nullptr;
  }
  try {
    raw->byte_ = device->Allocate(1);
  } catch (const std::exception& e) {
    *error = e.what();
    return nullptr;
  }
  return raw;
}

RawNccl::~RawNccl() {
  if (comm_) {
    device_->Sync();
    api_->CommDestroy(comm_);
  }
  if (byte_) device_->Free(byte_);
}

void RawNccl::Check(const char* call, ncclResult_t r) const {
  if (r != nccl::kSuccess) throw std::runtime_error(api_->Describe(call, r, comm_));
}

bool RawNccl::Supports(const Case& c) const {
  if (!c.on_device()) return false;
  switch (c.op()) {
    case Op::kAllgather:
    case Op::kBroadcast:
    case Op::kAlltoall:
    case Op::kSendrecv:
      return true;
    case Op::kAllreduce:
    case Op::kReduceScatter:
      return NcclType(c.dtype()) >= 0 && NcclOp(c.redop()) >= 0;
    default:
      return false;
  }
}

const char* RawNccl::Describe(Op op) const {
  switch (op) {
    case Op::kAllreduce:
      return "ncclAllReduce";
    case Op::kAllgather:
      return "ncclAllGather";
    case Op::kReduceScatter:
      return "ncclReduceScatter";
    case Op::kBroadcast:
      return "ncclBroadcast";
    case Op::kAlltoall:
      return api_->AlltoAll ? "ncclAlltoAll" : "ncclSend/ncclRecv group";
    default:
      return "ncclSend/ncclRecv group";
  }
}

void RawNccl::Run(Case& c) {
  Issue(c);
  device_->Sync();
}

void RawNccl::Issue(Case& c) {
  const Geometry& g = c.geometry();
  const auto item = static_cast<size_t>(c.dtype().bytes());
  const auto type = static_cast<ncclDataType_t>(NcclType(c.dtype()));
  const auto op = static_cast<ncclRedOp_t>(NcclOp(c.redop()));
  const auto send_bytes = static_cast<size_t>(g.send_count) * item;
  switch (c.op()) {
    case Op::kAllreduce:
      return Check("ncclAllReduce",
                   api_->AllReduce(c.send(), c.recv(), static_cast<size_t>(g.count), type, op,
                                   comm_, nullptr));
    case Op::kAllgather:
      return Check("ncclAllGather",
                   api_->AllGather(c.send(), c.recv(), send_bytes, nccl::kUint8, comm_, nullptr));
    case Op::kReduceScatter:
      return Check("ncclReduceScatter",
                   api_->ReduceScatter(c.send(), c.recv(), static_cast<size_t>(g.recv_count), type,
                                       op, comm_, nullptr));
    case Op::kBroadcast:
      return Check("ncclBroadcast", api_->Broadcast(c.send(), c.send(), send_bytes, nccl::kUint8, 0,
                                                    comm_, nullptr));
    case Op::kAlltoall:
      if (api_->AlltoAll) {
        return Check("ncclAlltoAll", api_->AlltoAll(c.send(), c.recv(), send_bytes / nranks_,
                                                    nccl::kUint8, comm_, nullptr));
      }
      break;
    default:
      break;
  }
  // A group of sends and receives: all-to-all without ncclAlltoAll, and the sendrecv ring.
  const int32_t n = nranks_;
  Check("ncclGroupStart", api_->GroupStart());
  ncclResult_t r = nccl::kSuccess;
  if (c.op() == Op::kAlltoall) {
    const size_t block = send_bytes / n;
    for (int32_t p = 0; p < n && r == nccl::kSuccess; ++p) {
      r = api_->Send(c.send() + p * block, block, nccl::kUint8, p, comm_, nullptr);
      if (r == nccl::kSuccess)
        r = api_->Recv(c.recv() + p * block, block, nccl::kUint8, p, comm_, nullptr);
    }
  } else {
    r = api_->Send(c.send(), send_bytes, nccl::kUint8, (rank_ + 1) % n, comm_, nullptr);
    if (r == nccl::kSuccess)
      r = api_->Recv(c.recv(), send_bytes, nccl::kUint8, (rank_ + n - 1) % n, comm_, nullptr);
  }
  const ncclResult_t end = api_->GroupEnd();
  Check("ncclSend/ncclRecv", r);
  Check("ncclGroupEnd", end);
}

void RawNccl::Barrier() {
  Check("ncclAllReduce (barrier)",
        api_->AllReduce(byte_, byte_, 1, nccl::kUint8, nccl::kMax, comm_, nullptr));
  device_->Sync();
}

}  // namespace weft::collbench
